"""``kubedra replay`` end to end on hostile traces (issue 23, second round): YAML, JSON and
JSON Lines text built from a working trace with fields replaced, hostile snippets spliced in
(alias bombs, deep nesting, NaN and huge numbers, control characters) and entries naming
files that are missing, directories, FIFOs, symlinks out of the directory or in a loop.

Every input either replays (exit 0) or exits 1 or 2 with one ``error:`` line naming the
trace (and, past the syntax, the entry and field), never a traceback, never a hang (each run
is bounded by an alarm), and nothing is written but the ``--series`` file asked for.
Derandomized; about 150 runs in CI (``HYPOTHESIS_PROFILE=fuzz`` runs ten times as many).
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kubedra.cli import replay_cmd

REPO = Path(__file__).resolve().parents[2]
CLUSTER = REPO / "examples" / "replay" / "cluster.yaml"
SCALE = max(1, settings.default.max_examples // 100)
FUZZ = settings(
    max_examples=150 * SCALE,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
RUN_LIMIT_S = 60
"""One run of the command; far beyond what any of these traces needs (well under a second)."""

POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "train"},
    "spec": {
        "containers": [{"name": "main", "image": "x", "resources": {"claims": [{"name": "gpu"}]}}],
        "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}],
    },
}
JOB = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "batch"},
    "spec": {
        "completions": 2,
        "parallelism": 1,
        "template": {"spec": POD["spec"] | {"restartPolicy": "Never"}},
    },
}
GOOD: list[dict[str, Any]] = [
    {"at": "0s", "duration": "1h", "count": 2, "objects": [POD]},
    {"at": "10m", "duration": "30m", "objects": [JOB]},
    {"at": "20m", "file": "jobs.yaml"},
    {"at": "30m", "cordon": "node-1"},
    {"at": "40m", "taint": {"device": "gpu-0", "key": "k", "effect": "NoExecute"}},
    {"at": "2h", "delete": {"kind": "Pod", "name": "train-0"}},
]
SPECIAL_FILES = [
    "jobs.yaml",
    "missing.yaml",
    "adir",
    "fifo",
    "outside-link",
    "loop",
    "../escape.yaml",
    "/etc/passwd",
    "a" * 300,
    "bad\x00name",
    "esc\x1b[2J\nforged",
    "empty.yaml",
    "bomb.yaml",
]
BOMB = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
    f"{b}: &{b} [{', '.join(['*' + a] * 9)}]\n"
    for a, b in zip("abcdefgh", "bcdefghi", strict=False)
)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
    st.sampled_from(
        [
            "0s",
            "1h",
            "-1h",
            ".nan",
            "1e999",
            "99999999999999999999h",
            "2562047h47m16.854775808s",
            "node-1",
            "node-\u202e1",
            "gpu-0",
            "train",
            "Pod",
            *SPECIAL_FILES,
        ]
    ),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["at", "duration", "count", "objects", "file", "kind", "name", "spec"])
            | st.text(max_size=4),
            inner,
            max_size=3,
        )
    ),
    max_leaves=6,
)
SNIPPETS = [
    "\n- at: 0s\n  objects: &o [*o]\n",
    "\n- at: 0s\n  objects: " + "[" * 3000 + "]" * 3000 + "\n",
    "\n- at: .nan\n",
    "\n- at: 0s\n  count: 1e9\n  objects: []\n",
    "\n- at: 0s\n  file: fifo\n",
    '\n{"at": 0, "file": "loop"}\n',
    "\n\ufeff- at: 0s\n",
    "\r\n",
    "\x00",
    "\x1b[31m",
    "\n" + "x" * 70_000 + "\n",
    "{" * 2000,
    "\n--- \n",
    "\n- !!python/object:os.system {}\n",
]


@st.composite
def traces(draw: st.DrawFn) -> tuple[str, str]:
    """(file name, text): a working trace with one field replaced, as YAML, JSON or JSON
    Lines, maybe with a hostile snippet spliced in somewhere."""
    entries = json.loads(json.dumps(GOOD))
    entry = draw(st.sampled_from(entries))
    key = draw(st.sampled_from(sorted(entry)))
    choice = draw(st.integers(0, 3))
    if choice == 0:
        entry[key] = draw(values)
    elif choice == 1:
        entry[key if key != "at" else "file"] = draw(st.sampled_from(SPECIAL_FILES))
        entry.pop("objects" if "file" in entry and "objects" in entry else "", None)
    elif choice == 2 and isinstance(entry[key], (dict, list)):
        target = entry[key]
        if isinstance(target, list):
            target.append(draw(values))
        else:
            target[draw(st.sampled_from(sorted(target)))] = draw(values)
    suffix = draw(st.sampled_from([".yaml", ".json", ".jsonl"]))
    if suffix == ".yaml":
        text = yaml.safe_dump(entries, allow_unicode=True)
    elif suffix == ".json":
        text = json.dumps(entries, allow_nan=True)
    else:
        text = "".join(json.dumps(e, allow_nan=True) + "\n" for e in entries)
    if draw(st.booleans()):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(SNIPPETS)) + text[at:]
    return f"trace{suffix}", text


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The trace's directory with the files entries name, beside a file outside it."""
    root = tmp_path_factory.mktemp("replay-fuzz")
    (root / "escape.yaml").write_text(yaml.safe_dump({"kind": "Pod"}))
    work = root / "work"
    work.mkdir()
    job = json.loads(json.dumps(JOB))
    job["metadata"]["name"] = "from-file"
    (work / "jobs.yaml").write_text(yaml.safe_dump(job))
    (work / "empty.yaml").write_text("")
    (work / "bomb.yaml").write_text(BOMB)
    (work / "adir").mkdir()
    os.mkfifo(work / "fifo")
    (work / "outside-link").symlink_to(root / "escape.yaml")
    (work / "loop").symlink_to(work / "loop2")
    (work / "loop2").symlink_to(work / "loop")
    return work


def _tree(root: Path) -> dict[str, float]:
    """Every path beside and under the trace (the names, and the files' times): the trace
    itself and the series asked for aside."""
    return {
        str(path): 0.0 if path.is_dir() else path.lstat().st_mtime
        for path in root.parent.rglob("*")
        if path.name not in ("trace.yaml", "trace.json", "trace.jsonl", "series.csv")
    }


class _Hang(Exception):
    pass


@pytest.fixture
def alarm() -> Iterator[None]:
    def ring(signum: int, frame: Any) -> None:
        raise _Hang(f"kubedra replay ran past {RUN_LIMIT_S} s")

    previous = signal.signal(signal.SIGALRM, ring)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _replay(args: list[str]) -> Any:
    app = typer.Typer()
    app.command("version")(lambda: None)
    replay_cmd.register(app)
    signal.alarm(RUN_LIMIT_S)
    try:
        return CliRunner().invoke(app, ["replay", *args])
    finally:
        signal.alarm(0)


FLAGS = st.lists(
    st.sampled_from(
        [
            ["-o", "json"],
            ["-o", "yaml"],
            ["--until", "3h"],
            ["--until", "0s"],
            ["--max-pods", "1"],
            ["--max-pods", "3"],
            ["--step", "15m"],
            ["--series", "SERIES"],
            ["--keep-finished"],
        ]
    ),
    max_size=3,
)


@FUZZ
@given(trace=traces(), flags=FLAGS)
def test_hostile_traces_replay_or_exit_with_one_error(
    workdir: Path, alarm: None, trace: tuple[str, str], flags: list[list[str]]
) -> None:
    name, text = trace
    path = workdir / name
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    series = workdir / "series.csv"
    series.unlink(missing_ok=True)
    args = [str(CLUSTER), "--trace", str(path)]
    if not any(flag[0] == "--max-pods" for flag in flags):
        # The work is bounded by the pods a replay may make, as the first round bounded it; a
        # queue of hundreds of pods on these 4 GPUs is slow (every freed device retries every
        # waiting pod, as upstream's queueing hints do), not stuck.
        args += ["--max-pods", "64"]
    for flag in flags:
        args += [str(series) if part == "SERIES" else part for part in flag]
    before = _tree(workdir)
    result = _replay(args)
    assert not isinstance(result.exception, _Hang), result.exception
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        repr(result.exception),
        result.output[-2000:],
    )
    assert "Traceback" not in result.output
    assert result.exit_code in (0, 1, 2), result.output[-2000:]
    event(f"exit {result.exit_code}")
    if result.exit_code == 1:
        first = result.stderr.splitlines()[0]
        event(first.removeprefix(f"error: {path}: ")[:28])
        assert first.startswith(f"error: {path}") or first.startswith("error: --"), first
        assert "\x1b" not in result.stderr
    assert _tree(workdir) == before
    if result.exit_code != 0 or not any(f[0] == "--series" for f in flags):
        assert not series.exists()
