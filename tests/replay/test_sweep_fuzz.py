"""Hostile sweep files and configuration files (issue 23, "Also"): whatever a generated file
holds, reading it gives a checked sweep (or configurations) or a SweepError that names the
file and the field, never another exception; ``kubedra replay --sweep``/``--compare`` on it
exits 0 or 3 with its records, or 1/2 with a message, never a traceback.

The inputs: generated YAML values, and a working sweep or configuration with one field
replaced by a hostile value (paths escaping the directory, through ``..``, absolute or by a
symbolic link, link loops, missing files, names starting with ``-``, NUL bytes, over-long
names; unknown fields; flags the command refuses or that are not a cell's (``--help``,
``--plot``, ``--seed``), values it cannot count (``--until-demand inf``), bad feature gates;
huge or odd seeds). Derandomized; about 250 inputs in CI (``HYPOTHESIS_PROFILE=fuzz`` runs ten
times as many, see tests/conftest.py).
"""

from __future__ import annotations

import copy
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_compare_sweep import EXAMPLE, kubedra

from kubedra.cli.replay_cells import check_cell_args, check_config_args
from kubedra.replay.sweep import MAX_CELLS, SweepError, load_configs, load_sweep

FUZZ = settings(deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
SCALE = max(1, settings.default.max_examples // 100)
INFLATE = ["--inflate", "--until-demand", "1", "--workers", "1"]

PATHS = st.sampled_from(
    [  # the hostile first: hypothesis draws the first entries of a list more often
        "a\x00b",
        "loop",
        "x" * 300,
        "out-link",
        "sub/../../outside/secret.trace",
        "../outside/secret.trace",
        "/etc/passwd",
        "-o",
        "dir",
        "",
        ".",
        "~/x",
        "missing.trace",
        "dir/" + "y" * 300,
        "in-link",
        "sub/../tasks.trace",
        "cluster.yaml",
        "tasks.trace",
    ]
) | st.text(max_size=6)
FLAGS = st.sampled_from(
    [
        "--policy",
        "fgd",
        "tetris",
        "--seed",
        "1",
        "--trace",
        "tasks.trace",
        "-f",
        "../outside/secret.trace",
        "--filename=/etc/passwd",
        "--help",
        "-h",
        "--until-demand",
        "inf",
        "nan",
        "1e300",
        "-1",
        "--max-pods",
        "0",
        "--feature-gates",
        "Foo=bar",
        "DRAConsumableCapacity=true",
        "--kubernetes-version",
        "1.99",
        "--gang",
        "--plot",
        "/tmp/x",
        "--workers",
        "--ray",
        "--sweep",
        "--compare",
        "fgd.config",
        "--inflate",
        "--shuffle",
        "--until",
        "1h",
        "--step",
        "0s",
        "-o",
        "json",
        "--preemption",
        "--scheduler",
    ]
) | st.text(max_size=6)
SEEDS = st.one_of(
    st.lists(
        st.integers(min_value=-(2**70), max_value=2**70) | st.sampled_from([0, 1, 2**63, 2**64]),
        max_size=4,
    ),
    st.lists(st.booleans() | st.floats() | st.text(max_size=3) | st.none(), max_size=3),
    st.none(),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(),
    st.text(max_size=6),
    PATHS,
    FLAGS,
)
keys = st.sampled_from(["runs", "configs", "seeds", "name", "cluster", "trace", "args"]) | st.text(
    max_size=4
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=10,
)
GOOD_SWEEP: dict[str, Any] = {
    "runs": [{"name": "shares", "cluster": "cluster.yaml", "trace": "tasks.trace"}],
    "configs": [
        {"name": "best-fit", "args": ["--policy", "best-fit"]},
        {"name": "fgd", "args": ["--policy", "fgd"]},
    ],
    "seeds": [1],
}
GOOD_CONFIG: dict[str, Any] = {"name": "fgd", "args": ["--policy", "fgd"]}
FIELD = re.compile(r"(runs|configs|seeds|name|args|unknown field|mapping|list|YAML|line \d+)")


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example's inputs, with links in and out of the directory, a loop, a directory and
    a file named like a flag; ``outside/`` beside it is what must never be read."""
    root = tmp_path_factory.mktemp("hostile")
    outside = root / "outside"
    outside.mkdir()
    shutil.copy(EXAMPLE / "tasks.trace", outside / "secret.trace")
    directory = root / "sweep"
    shutil.copytree(EXAMPLE, directory)
    (directory / "sub").mkdir()
    (directory / "dir").mkdir()
    (directory / "in-link").symlink_to("tasks.trace")
    (directory / "out-link").symlink_to(outside / "secret.trace")
    (directory / "loop").symlink_to("loop")
    shutil.copy(EXAMPLE / "tasks.trace", directory / "-o")
    return directory


@st.composite
def mutated(draw: st.DrawFn, good: dict[str, Any]) -> Any:
    """``good`` with one field somewhere replaced by a hostile value (or added, unknown)."""
    document = copy.deepcopy(good)
    target: Any = document
    while True:
        if isinstance(target, dict):
            key: Any = draw(st.sampled_from([*sorted(target), "extra"]))
        else:
            key = draw(st.integers(0, len(target) - 1))
        child = target[key] if isinstance(target, list) or key in target else None
        if isinstance(child, dict | list) and child and draw(st.booleans()):
            target = child
            continue
        name = str(key)
        if name in ("cluster", "trace"):
            target[key] = draw(PATHS | st.lists(PATHS, max_size=3))
        elif name == "args":
            target[key] = draw(st.lists(FLAGS, max_size=5))
        elif name == "seeds":
            target[key] = draw(SEEDS)
        elif isinstance(target, list) and isinstance(child, str):
            target[key] = draw(FLAGS | PATHS)
        else:
            target[key] = draw(values)
        return document


@st.composite
def assembled(draw: st.DrawFn) -> dict[str, Any]:
    """A sweep built from hostile parts: every run's paths, every config's flags and the
    seeds drawn from the lists above, sometimes with an unknown field."""
    document: dict[str, Any] = {
        "runs": draw(
            st.lists(
                st.fixed_dictionaries(
                    {"cluster": PATHS | st.lists(PATHS, max_size=2), "trace": PATHS},
                    optional={"name": st.text(max_size=3)},
                ),
                min_size=1,
                max_size=2,
            )
        ),
        "configs": draw(
            st.lists(
                st.fixed_dictionaries(
                    {"args": st.lists(FLAGS, max_size=4)},
                    optional={"name": st.text(max_size=3)},
                ),
                min_size=1,
                max_size=2,
            )
        ),
        "seeds": draw(SEEDS),
    }
    if draw(st.booleans()):
        document[draw(keys)] = draw(values)
    return document


def write(path: Path, document: Any) -> Path:
    path.write_text(yaml.safe_dump(document, allow_unicode=True))
    return path


def assert_names_the_field(error: SweepError, path: Path) -> None:
    message = str(error)
    assert message.startswith(str(path)), message
    assert FIELD.search(message), message


def assert_inside(sweep_paths: list[str], base: Path) -> None:
    for value in sweep_paths:
        resolved = (base / value).resolve()
        assert resolved == base or base in resolved.parents, value


@FUZZ
@given(st.one_of(values, mutated(GOOD_SWEEP), assembled()))
def test_sweep_files_load_or_name_the_field(base: Path, document: Any) -> None:
    path = write(base / "fuzz.sweep", document)
    try:
        sweep = load_sweep(path, check_cell_args)
    except SweepError as error:
        assert_names_the_field(error, path)
        return
    assert_inside([p for run in sweep.runs for p in (*run.cluster, run.trace)], base)
    for cell in sweep.cells():
        assert check_cell_args(cell.args) is None


@FUZZ
@given(st.one_of(values, mutated(GOOD_CONFIG), st.lists(mutated(GOOD_CONFIG), max_size=3)))
def test_configuration_files_load_or_name_the_field(base: Path, document: Any) -> None:
    path = write(base / "fuzz.config", document)
    try:
        configs = load_configs(path, check_config_args)
    except SweepError as error:
        assert_names_the_field(error, path)
        return
    assert configs and all(check_config_args(c.args) is None for c in configs)


def assert_clean_exit(result: Any, cells: int | None) -> None:
    """Exit 1 or 2 with a message, or 0/3 with one record per cell; no traceback."""
    assert "Traceback" not in result.output
    assert result.exit_code in (0, 1, 2, 3), (result.exit_code, result.output)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    if result.exit_code in (1, 2):
        assert "rror: " in result.output, result.output
    else:
        records = json.loads(result.stdout)["cells"]
        assert cells is None or len(records) == cells
        assert all(("summary" in r) != ("error" in r) for r in records)


@settings(FUZZ, max_examples=25 * SCALE)
@given(mutated(GOOD_SWEEP) | assembled())
def test_the_command_on_hostile_sweeps(base: Path, document: Any) -> None:
    path = write(base / "cli.sweep", document)
    result = kubedra("--sweep", str(path), *INFLATE, "-o", "json")
    assert_clean_exit(result, None)


@settings(FUZZ, max_examples=25 * SCALE)
@given(st.one_of(mutated(GOOD_CONFIG), values))
def test_the_command_on_hostile_configurations(base: Path, document: Any) -> None:
    path = write(base / "cli.config", document)
    result = kubedra(
        str(base / "cluster.yaml"),
        "--trace",
        str(base / "tasks.trace"),
        "--compare",
        str(path),
        *INFLATE,
        "-o",
        "json",
    )
    assert_clean_exit(result, None)


def test_a_sweep_of_too_many_cells_is_refused_before_it_is_made(base: Path) -> None:
    """Ten seeds per config is nothing; 2 configs x 50,001 seeds is more than MAX_CELLS."""
    document = copy.deepcopy(GOOD_SWEEP)
    document["seeds"] = list(range(MAX_CELLS // 2 + 1))
    path = write(base / "huge.sweep", document)
    with pytest.raises(SweepError, match=r"= 100002 cells, more than 100000: split the sweep"):
        load_sweep(path)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--help"], "configs[0].args: --help: not a replay flag of a cell"),
        (["--until-demand", "inf"], "--until-demand inf: must be above 0 and at most 100"),
        (["--until-demand", "1e300"], "--until-demand 1e+300: must be above 0 and at most 100"),
        (["--feature-gates", "Foo=bar"], "configs[0].args: --feature-gates Foo=bar: "),
        (["--kubernetes-version", "1.99"], "configs[0].args: --kubernetes-version 1.99: "),
    ],
)
def test_findings_of_the_fuzz_run(base: Path, args: list[str], message: str) -> None:
    """What the fuzz harness found: each printed a help page and ran nothing (``--help``),
    failed inside the cell with an OverflowError (``inf``) or a bare "bad input" (gates)."""
    document = copy.deepcopy(GOOD_SWEEP)
    document["configs"] = [{"name": "a", "args": args}]
    path = write(base / "finding.sweep", document)
    result = kubedra("--sweep", str(path), *INFLATE)
    assert result.exit_code == 1, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_a_path_named_like_a_flag_is_a_path(base: Path) -> None:
    """A trace file named ``-o`` stays a path in the cell's flags (``./-o``)."""
    document = copy.deepcopy(GOOD_SWEEP)
    document["runs"][0]["trace"] = "-o"
    path = write(base / "dash.sweep", document)
    sweep = load_sweep(path, check_cell_args)
    assert sweep.runs[0].trace == "./-o"
    result = kubedra("--sweep", str(path), *INFLATE, "-o", "json")
    assert result.exit_code == 0, result.output
    assert [c["summary"]["unallocatedDevices"] for c in json.loads(result.stdout)["cells"]] == [
        0.2,
        0.0,
    ]


def test_until_demand_inf_on_the_command_line() -> None:
    result = kubedra(
        str(EXAMPLE), "--trace", str(EXAMPLE / "tasks.trace"), "--inflate", "--until-demand", "inf"
    )
    assert result.exit_code == 1
    assert "error: --until-demand inf: must be above 0 and at most 100" in result.output


@pytest.mark.parametrize(
    ("trace", "message"),
    [
        ("a\x00b", "runs[0].trace: 'a\\x00b': a path has no NUL character"),
        ("loop", "runs[0].trace: loop: Symlink loop"),
        ("x" * 300, "runs[0].trace: " + "x" * 300 + ": File name too long"),
        ("out-link", "runs[0].trace: out-link: outside the sweep file's directory"),
    ],
)
def test_paths_that_cannot_be_resolved(base: Path, trace: str, message: str) -> None:
    """Found by the fuzz run: a NUL byte (ValueError), a link loop (RuntimeError) and a name
    too long (OSError) escaped from the path checks."""
    document = copy.deepcopy(GOOD_SWEEP)
    document["runs"][0]["trace"] = trace
    path = write(base / "paths.sweep", document)
    with pytest.raises(SweepError) as raised:
        load_sweep(path)
    assert message in str(raised.value)
