"""``kubedra replay --compare`` / ``--policy a,b`` and ``--sweep``: several replays side by
side, sweep files checked, cells in this process, in worker processes and on Ray alike."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from kubedra.cli import replay_cmd

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "inflate"
INFLATE = ["--inflate", "--until-demand", "1"]


def kubedra(*args: str) -> Any:
    app = typer.Typer()
    app.command("version")(lambda: None)
    replay_cmd.register(app)
    return CliRunner().invoke(app, ["replay", *args])


def on_example(*args: str) -> Any:
    return kubedra(str(EXAMPLE), "--trace", str(EXAMPLE / "tasks.trace"), *args)


def test_a_policy_list_compares_them_in_one_table() -> None:
    """The examples/inflate figures (see test_inflate): best-fit leaves 0.2 unallocated and
    stranded, FGD none; a column per policy."""
    result = on_example(*INFLATE, "--policy", "best-fit,fgd", "--workers", "1")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"Compared 2 configuration(s) on {EXAMPLE / 'tasks.trace'}"
    rows = {line[:24].strip(): line[24:].split() for line in lines[3:]}
    assert lines[2].split() == ["best-fit", "fgd"]
    assert rows["pods placed"] == ["5", "6"]
    assert rows["unallocated at 100%"] == ["0.20", "0.00"]
    assert rows["stranded at the end"] == ["0,", "share=0.2", "0"]


def test_configuration_files_and_json_records(tmp_path: Path) -> None:
    result = on_example(
        *INFLATE,
        "--compare",
        f"{EXAMPLE / 'best-fit.config'},{EXAMPLE / 'fgd.config'}",
        "--workers",
        "1",
        "-o",
        "json",
        "--table",
        str(tmp_path / "table.csv"),
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert [(c["config"], c["args"]) for c in doc["cells"]] == [
        ("best-fit", ["--policy", "best-fit"]),
        ("fgd", ["--policy", "fgd"]),
    ]
    assert [c["summary"]["unallocatedDevices"] for c in doc["cells"]] == [0.2, 0.0]
    with (tmp_path / "table.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["config"], r["placed"], r["atDemand[1].unallocatedDevices"]) for r in rows] == [
        ("best-fit", "5", "0.2"),
        ("fgd", "6", "0.0"),
    ]


def test_a_comparison_of_replays_over_time() -> None:
    """Without --inflate the columns are replays over time: waits, placed, preemptions."""
    result = kubedra(
        str(REPO / "examples" / "replay"),
        "--trace",
        str(REPO / "examples" / "replay" / "day.trace"),
        "--policy",
        "first-fit,best-fit",
        "--workers",
        "1",
    )
    assert result.exit_code == 0, result.output
    rows = {line[:32].strip(): line[32:].split() for line in result.stdout.splitlines()[3:]}
    assert rows["placed"] == ["11", "11"]
    assert rows["wait max"] == ["4h", "4h"]
    assert rows["preemptions"] == ["0", "0"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("name: x\nargs: [--polcy, fgd]\n", "args: No such option: --polcy"),
        ("name: x\nargs: [--plot, /tmp/x]\n", "args: --plot: not a configuration's flag"),
        ("name: x\nargs: [--policy, fgd]\ncolour: red\n", "unknown field 'colour'"),
        ("name: x\nargs: --policy fgd\n", "args: a list of replay flags"),
    ],
)
def test_bad_configuration_files(tmp_path: Path, content: str, message: str) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(content)
    result = on_example(*INFLATE, "--compare", str(config))
    assert result.exit_code == 1
    assert f"error: {config}: " in result.output and message in result.output
    assert "Traceback" not in result.output


def test_an_unknown_policy_in_the_list() -> None:
    result = on_example(*INFLATE, "--policy", "best-fit,tetris")
    assert result.exit_code == 1
    assert "error: unknown policy 'tetris'" in result.output


def sweep_dir(tmp_path: Path, extra: str = "") -> Path:
    directory = tmp_path / "sweep"
    shutil.copytree(EXAMPLE, directory)
    (directory / "policies.sweep").write_text((EXAMPLE / "policies.sweep").read_text() + extra)
    return directory


def sweep_json(directory: Path, *args: str) -> tuple[int, Any, str]:
    result = kubedra("--sweep", str(directory / "policies.sweep"), *INFLATE, "-o", "json", *args)
    doc = json.loads(result.stdout) if result.stdout.strip() else None
    return result.exit_code, doc, result.output


def test_sweep_cells_are_the_same_with_one_or_two_workers(tmp_path: Path) -> None:
    """Every (run, config, seed) of examples/inflate/policies.sweep, in this process and in
    two worker processes: the same records, in the same order."""
    directory = sweep_dir(tmp_path)
    code_one, one, _ = sweep_json(directory, "--workers", "1")
    code_two, two, output = sweep_json(directory, "--workers", "2", "--plot", str(tmp_path / "p"))
    assert (code_one, code_two) == (0, 0), output
    assert one == two
    cells = [(c["run"], c["config"], c["seed"]) for c in one["cells"]]
    assert cells == [
        ("shares", config, seed) for config in ("best-fit", "fgd", "random") for seed in (1, 2)
    ]
    unallocated = {
        (c["config"], c["seed"]): c["summary"]["unallocatedDevices"] for c in one["cells"]
    }
    assert unallocated[("best-fit", 1)] == 0.2 and unallocated[("fgd", 2)] == 0.0
    assert sorted(p.name for p in (tmp_path / "p").iterdir()) == [
        "unallocated-tail.png",
        "unallocated-tail.svg",
        "unallocated.png",
        "unallocated.svg",
    ]


def test_a_failed_cell_keeps_the_others(tmp_path: Path) -> None:
    """A second run whose trace is broken: its cells fail with the trace's error, the first
    run's cells are reported, and the exit status is 3."""
    directory = sweep_dir(tmp_path)
    (directory / "broken.trace").write_text("- {at: soon, objects: []}\n")
    text = (
        (directory / "policies.sweep")
        .read_text()
        .replace("runs:\n", "runs:\n- {name: broken, cluster: cluster.yaml, trace: broken.trace}\n")
    )
    (directory / "policies.sweep").write_text(text)
    code, doc, _ = sweep_json(directory, "--workers", "1")
    assert code == 3
    errors = [c.get("error") for c in doc["cells"]]
    assert len(errors) == 12 and errors[6:] == [None] * 6
    assert all("broken.trace: entry 1.at: not a duration" in e for e in errors[:6])


@pytest.mark.parametrize(
    ("replace", "message"),
    [
        (("seeds: [1, 2]", "seeds: [1, 2]\nrepeat: 3"), "unknown field 'repeat'"),
        (("trace: tasks.trace", "trace: missing.trace"), "runs[0].trace: missing.trace: no such"),
        (("trace: tasks.trace", "trace: ../x.trace"), "runs[0].trace: ../x.trace: outside the"),
        (("trace: tasks.trace", "trace: /etc/passwd"), "runs[0].trace: /etc/passwd: must be rel"),
        (("[--policy, fgd]", "[--policy, fgd, --gnag, x]"), "configs[1].args: No such option"),
        (("[--policy, fgd]", "[--policy, fgd, --seed, 3]"), "configs[1].args: --seed: the sweep"),
        (("[--policy, fgd]", "[--policy, tetris]"), "configs[1].args: unknown policy 'tetris'"),
        (("[--policy, fgd]", "[--trace, tasks.trace]"), "configs[1].args: --trace: not a config"),
        (("name: fgd", "name: best-fit"), "configs[1].name: 'best-fit' repeats"),
        (("seeds: [1, 2]", "seeds: [1, -2]"), "seeds[1]: -2 is not a whole number"),
    ],
)
def test_bad_sweep_files(tmp_path: Path, replace: tuple[str, str], message: str) -> None:
    directory = sweep_dir(tmp_path)
    path = directory / "policies.sweep"
    path.write_text(path.read_text().replace(*replace))
    result = kubedra("--sweep", str(path), *INFLATE)
    assert result.exit_code == 1, result.output
    assert f"error: {path}: " in result.output and message in result.output
    assert "Traceback" not in result.output


def test_sweep_flags_that_do_not_go_together(tmp_path: Path) -> None:
    directory = sweep_dir(tmp_path)
    result = kubedra(str(EXAMPLE), "--sweep", str(directory / "policies.sweep"))
    assert "error: --sweep names its runs and configurations" in result.output
    result = on_example(*INFLATE, "--policy", "fgd,best-fit", "--ray")
    assert "error: --ray is for --sweep" in result.output


def test_ray_gives_the_local_records(tmp_path: Path) -> None:
    """Every cell a Ray task: on a local Ray that kubedra starts (the sweep directory shipped
    as the job's working_dir, every task running in a copy of it), and on a local Ray started
    before (``ray.init(num_cpus=2)``, the directory read where it is): the same records as in
    this process."""
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'kubedra[ray]')")
    directory = sweep_dir(tmp_path)
    path = directory / "policies.sweep"  # two cells: Ray's start is what costs
    path.write_text(
        path.read_text().replace("- {name: best-fit", "# ").replace("- {name: ran", "# ")
    )
    code, local, output = sweep_json(directory, "--workers", "1")
    assert code == 0, output
    code, shipped, output = sweep_json(directory, "--ray")
    assert code == 0, output
    assert not ray.is_initialized()  # kubedra started it, kubedra stopped it
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        code, on_ray, output = sweep_json(directory, "--ray")
        assert ray.is_initialized()  # someone else's Ray is left running
    finally:
        ray.shutdown()
    assert code == 0, output
    assert shipped == local
    assert on_ray == local
