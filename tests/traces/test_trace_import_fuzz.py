"""``kubedra trace import alibaba-gpu-v2023`` and ``trace generate`` on hostile input (issue 23,
second round): CSVs with fields replaced by hostile values (NaN, negative, huge, fractions,
unicode, very long), columns dropped or added, a BOM, CRLF or Latin-1 bytes, empty files; and
generate's flags set to hostile values, with output directories that are files or links.

Each run writes DIR/cluster.yaml and DIR/trace.yaml and nothing else, which ``kubedra replay``
then takes as they are, or exits 1 or 2 with one ``error:`` line, never a traceback.
Derandomized; about 100 runs of each in CI (``HYPOTHESIS_PROFILE=fuzz`` runs ten times as many).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from traces_fixtures import NODE_HEADER, TASK_HEADER, kubedra

from kubedra.api.io import load_paths
from kubedra.replay import TraceError, load_trace
from kubedra.scheduler import new_simulation
from kubedra.traces import TraceInputError

SCALE = max(1, settings.default.max_examples // 100)
FUZZ = settings(
    max_examples=100 * SCALE,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
NODES = ["node-a,32000,131072,2,T4", "node-b,96000,786432,8,V100M32"]
TASKS = [
    "task-a,4000,8192,1,1000,T4,LS,Running,0,3600,10",
    "task-b,8000,16384,2,1000,,BE,Succeeded,60,,70",
    "task-c,1000,2048,1,250,V100M32|T4,Burstable,Running,120,7200,",
    "task-d,500,512,0,0,,LS,Pending,30,90,",
]
HOSTILE = [
    "",
    " ",
    "nan",
    "NaN",
    "inf",
    "-1",
    "-0",
    "0",
    "1.5",
    "1e3",
    "0x10",
    "+5",
    " 7 ",
    "99999999999999999",
    "999999999999999999",
    "9223372036854775808",
    "9" * 40,
    "1000",
    "1001",
    "128",
    "129",
    "\ufeff1",
    "١٢",
    "A100",
    "T4|",
    "|",
    "G1",
    "x" * 5000,
    '"quoted, with comma"',
    '"unterminated',
    "a\nb",
    "é",
    "\x00",
    "\x1b[2J",
    "task-a",
]


@st.composite
def csv_text(draw: st.DrawFn, header: str, rows: list[str]) -> bytes:
    """The CSV with a few fields replaced, maybe a column dropped or added, in some encoding."""
    columns = header.split(",")
    table = [row.split(",") for row in rows[: draw(st.integers(0, len(rows)))]]
    for _ in range(draw(st.integers(0, 3))):
        if table:
            row = draw(st.sampled_from(table))
            row[draw(st.integers(0, len(columns) - 1))] = draw(st.sampled_from(HOSTILE))
    names = list(columns)
    change = draw(st.sampled_from(["none", "none", "drop", "add", "reorder", "dup"]))
    if change == "drop":
        gone = draw(st.integers(0, len(names) - 1))
        names.pop(gone)
        table = [[v for i, v in enumerate(row) if i != gone] for row in table]
    elif change == "add":
        names.append(draw(st.sampled_from(["extra", "sn", "", "\ufeffname"])))
        table = [[*row, "1"] for row in table]
    elif change == "reorder":
        names.reverse()
        table = [list(reversed(row)) for row in table]
    elif change == "dup" and table:
        table.append(list(table[0]))
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    text = newline.join(",".join(row) for row in [names, *table])
    text += draw(st.sampled_from(["", newline, newline * 3]))
    if draw(st.booleans()):
        text = "\ufeff" + text
    encoding = draw(st.sampled_from(["utf-8", "utf-8", "latin-1"]))
    return text.encode(encoding, "replace")


def _files(root: Path) -> set[str]:
    return {str(path.relative_to(root)) for path in root.rglob("*")}


def _replays(out: Path) -> None:
    """What was written is what kubedra replay takes: the cluster loads, the trace reads."""
    sim = new_simulation()
    documents = out / "cluster.yaml"
    loaded = load_paths([documents])
    assert not loaded.errors, loaded.errors[:1]
    problems = sim.load([obj.wire for obj in loaded.objects])
    assert problems == [], problems[:1]
    try:
        load_trace(out / "trace.yaml")
    except TraceError as error:  # pragma: no cover - the failure is the finding
        pytest.fail(f"import wrote a trace replay refuses: {error}")


def _check(
    result: object, root: Path, before: set[str], out: Path, target: Path | None = None
) -> None:
    """One outcome: ``target`` is where DIR really is (a link to a directory is followed, as
    ``mkdir -p`` and ``cp`` follow it: the user named it)."""
    code, stdout, stderr = result.code, result.stdout, result.stderr  # type: ignore[attr-defined]
    assert "Traceback" not in stdout + stderr
    assert code in (0, 1, 2), stderr
    event(f"exit {code}")
    if code == 1:
        lines = stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), stderr
        assert "\x1b" not in stderr
        event(lines[0].removeprefix(f"error: {root}/")[:24])
    written = _files(root) - before
    where = target or out
    allowed = {str(out.relative_to(root))} | {
        str((where / name).relative_to(root)) for name in ("cluster.yaml", "trace.yaml")
    }
    assert written <= (allowed if code == 0 else {str(out.relative_to(root))}), written


@FUZZ
@given(nodes=csv_text(NODE_HEADER, NODES), tasks=csv_text(TASK_HEADER, TASKS))
def test_hostile_csvs_import_or_exit_with_one_error(
    tmp_path_factory: pytest.TempPathFactory, nodes: bytes, tasks: bytes
) -> None:
    root = tmp_path_factory.mktemp("import")
    (root / "nodes.csv").write_bytes(nodes)
    (root / "pods.csv").write_bytes(tasks)
    out = root / "out"
    before = _files(root)
    result = kubedra(
        "trace", "import", "alibaba-gpu-v2023",
        "--nodes", str(root / "nodes.csv"), "--pods", str(root / "pods.csv"), "-o", str(out),
    )  # fmt: skip
    _check(result, root, before, out)
    if result.code == 0:
        _replays(out)
    shutil.rmtree(root)


GENERATE_FLAGS = {
    "--pods": ["1", "3", "0", "-1", "1000001", "x"],
    "--nodes": ["1", "2", "0", "100001"],
    "--gpus-per-node": ["0", "1", "128", "129", "-1"],
    "--gpu-model": ["A100", "", "x" * 65, 'a"b', "é", "\x1b[2J"],
    "--gpu-memory": ["80Gi", "0", "-1Gi", "1e999", "lots", "1e18"],
    "--node-cpu": ["128", "0", "1e18", "500m", "nan"],
    "--node-memory": ["1Ti", "1Ki", "1e30", "1e999"],
    "--cpu-per-gpu": ["8", "0.0001m", "1e18"],
    "--memory-per-gpu": ["64Gi", "1", "1e999"],
    "--mix": ["cpu=1", "gpu:1=1e308,gpu:2=1e308", "gpu:1=nan", "share:999=1", "gpu:128=1", ""],
    "--duration-median": ["1h", "0s", "1e300d", "999999999", "0.0000001"],
    "--duration-sigma": ["0", "10", "11", "nan", "-inf"],
    "--mean-interarrival": ["5", "0", "999999999", "1w"],
    "--load": ["0.8", "1e-300", "1e308", "nan", "inf", "0"],
    "--seed": ["0", "99999999999999999999999", "-1"],
}
OUTPUTS = ["fresh", "file", "link-to-dir", "link-to-file", "dangling-link", "has-files"]


@FUZZ
@given(
    flags=st.dictionaries(
        st.sampled_from(sorted(GENERATE_FLAGS)),
        st.none(),
        max_size=4,
    ).flatmap(
        lambda keys: st.fixed_dictionaries(
            {key: st.sampled_from(GENERATE_FLAGS[key]) for key in keys}
        )
    ),
    output=st.sampled_from(OUTPUTS),
    force=st.booleans(),
)
def test_hostile_generate_flags_write_a_trace_or_exit_with_one_error(
    tmp_path_factory: pytest.TempPathFactory, flags: dict[str, str], output: str, force: bool
) -> None:
    root = tmp_path_factory.mktemp("generate")
    elsewhere = root / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("keep\n")
    out = root / "out"
    if output == "file":
        out.write_text("a file\n")
    elif output == "link-to-dir":
        out.symlink_to(elsewhere)
    elif output == "link-to-file":
        out.symlink_to(elsewhere / "keep.txt")
    elif output == "dangling-link":
        out.symlink_to(root / "nowhere")
    elif output == "has-files":
        out.mkdir()
        (out / "trace.yaml").write_text("mine\n")
    args = ["trace", "generate", "-o", str(out), "--pods", "3", "--nodes", "2"]
    for flag, value in flags.items():
        args += [flag, value]
    if force:
        args.append("--force")
    before = _files(root)
    result = kubedra(*args)
    _check(result, root, before, out, elsewhere if output == "link-to-dir" else None)
    assert (elsewhere / "keep.txt").read_text() == "keep\n"
    if output == "has-files" and not force:
        assert (out / "trace.yaml").read_text() == "mine\n"
    if result.code == 0:
        try:
            _replays(out)
        except TraceInputError as error:  # pragma: no cover - the failure is the finding
            pytest.fail(str(error))
    shutil.rmtree(root)
