"""``kubedra replay``: outputs, files, flags and bad input (in process, with Typer's runner)."""

from __future__ import annotations

import csv
import json
import struct
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml
from typer.testing import CliRunner

from kubedra.cli import replay_cmd

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "replay"
DAY = EXAMPLE / "day.trace"


def kubedra(*args: str) -> Any:
    app = typer.Typer()
    app.command("version")(lambda: None)
    replay_cmd.register(app)
    return CliRunner().invoke(app, ["replay", *args])


def test_text_report_of_the_example() -> None:
    result = kubedra(str(EXAMPLE), "--trace", str(DAY))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == (
        f"Replayed {DAY} on 2 node(s) until t=1d (86400 s): 11 pod(s) arrived, 11 placed, "
        "0 never placed, 10 finished"
    )
    assert "  class gpu.example.com: 59.00 / 96.00 (61%)" in lines
    rows = {line.split()[0]: line.split() for line in lines if line.startswith("default/")}
    assert rows["default/big"][1:6] == ["4h", "8h", "node-1", "14h", "4h"]
    assert rows["default/notebook"][4:6] == ["gone", "18h"]


def test_json_has_the_summary_pods_and_series() -> None:
    result = kubedra(str(EXAMPLE), "--trace", str(DAY), "-o", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    summary = doc["summary"]
    assert {k: summary[k] for k in ("pods", "placed", "neverPlaced", "makespanSeconds")} == {
        "pods": 11,
        "placed": 11,
        "neverPlaced": 0,
        "makespanSeconds": 86400,
    }
    assert set(summary["waitSeconds"]) >= {"p50", "p90", "p99", "max"}
    big = next(p for p in doc["pods"] if p["name"] == "big")
    assert {k: big[k] for k in ("namespace", "arrival", "bound", "node", "finished")} == {
        "namespace": "default",
        "arrival": 14400,
        "bound": 28800,
        "node": "node-1",
        "finished": 50400,
    }
    assert (big["waitSeconds"], big["preemptions"]) == (14400, 0)
    series = doc["series"]
    assert series["time"][0] == 0 and series["time"][-1] == 86400
    assert len(series["pending"]) == len(series["running"]) == len(series["time"])
    assert doc["entries"][5] == {
        "entry": 6,
        "at": 64800,
        "action": "drain node-2",
        "pods": 0,
        "placed": 0,
        "finished": 0,
        "preemptions": 0,
        "evictions": 0,
        "restarts": 0,
    }


def test_yaml_is_the_same_document() -> None:
    as_json = json.loads(kubedra(str(EXAMPLE), "--trace", str(DAY), "-o", "json").stdout)
    as_yaml = yaml.safe_load(kubedra(str(EXAMPLE), "--trace", str(DAY), "-o", "yaml").stdout)
    assert as_yaml == as_json


def test_until_stops_the_clock_and_step_samples_on_a_grid(tmp_path: Path) -> None:
    csv_file = tmp_path / "s.csv"
    args = ["--until", "12h", "--step", "2h", "--series", str(csv_file), "-o", "json"]
    result = kubedra(str(EXAMPLE), "--trace", str(DAY), *args)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["summary"]["endSeconds"] == 43200
    assert doc["series"]["time"] == [h * 3600 for h in range(0, 13, 2)]
    late = [p for p in doc["pods"] if p["name"].startswith("late")]
    assert late == []  # they arrive at 20h
    with csv_file.open() as handle:
        rows = list(csv.reader(handle))
    assert rows[0][:5] == [
        "time_seconds",
        "pending_pods",
        "running_pods",
        "free_devices",
        "stranded_devices",
    ]
    assert "allocated_devices:gpu.example.com" in rows[0]
    # 4h-6h: big waits (pending 1); train and notebook run and eval-1 until 5h.
    assert rows[1:5] == [
        ["0", "0", "2", "1", "0", "3"],
        ["7200", "1", "3", "0", "0", "4"],
        ["14400", "1", "3", "0", "0", "4"],
        ["21600", "1", "2", "1", "1", "3"],
    ]
    assert "wrote" in result.stderr


def png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", header[16:24])
    return width, height


def test_plots_are_png_and_svg_at_1280_pixels(tmp_path: Path) -> None:
    out = tmp_path / "plots"
    result = kubedra(str(EXAMPLE), "--trace", str(DAY), "--plot", str(out))
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "devices.png",
        "devices.svg",
        "queue.png",
        "queue.svg",
        "wait-cdf.png",
        "wait-cdf.svg",
    ]
    assert png_size(out / "queue.png") == (1280, 720)
    svg = (out / "wait-cdf.svg").read_text()
    assert "fraction of placed pods" in svg and "wait (h)" in svg  # labelled axes, units


def test_plot_without_matplotlib_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import kubedra.replay.plot as plot

    monkeypatch.setattr(plot.importlib.util, "find_spec", lambda name: None)
    result = kubedra(str(EXAMPLE), "--trace", str(DAY), "--plot", "/tmp/never-written")
    assert result.exit_code == 1
    assert "pip install 'kubedra[plot]'" in result.stderr
    assert not Path("/tmp/never-written").exists()


@pytest.mark.parametrize(
    ("trace", "message"),
    [
        ("- at: 0s\n  duration: soon\n  file: x.yaml\n", "entry 1.duration: not a duration"),
        ("- at: -1\n  cordon: node-1\n", "entry 1.at: must not be negative"),
        ("- at: 1h\n  cordon: node-1\n  colour: red\n", "entry 1: unknown field 'colour'"),
        ("- at: 1h\n  file: ../../etc/passwd\n", "entry 1.file: ../../etc/passwd: outside"),
        ("- at: [1\n", "YAML syntax error"),
    ],
)
def test_bad_traces_exit_1_naming_the_entry(tmp_path: Path, trace: str, message: str) -> None:
    path = tmp_path / "trace.yaml"
    path.write_text(trace)
    result = kubedra(str(EXAMPLE), "--trace", str(path))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {path}")
    assert message in result.stderr
    assert "Traceback" not in result.output
    assert isinstance(result.exception, SystemExit)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "error: give the trace: --trace"),
        (["--trace", str(DAY), "--until", "soon"], "error: --until: not a duration"),
        (["--trace", str(DAY), "--step", "0s"], "error: --step: must be more than 0"),
        (["--trace", "/nonexistent/t.yaml"], "cannot read"),
        (["--trace", str(DAY), "--device-policy", "worst-fit"], "error: "),
    ],
)
def test_bad_flags_exit_1(args: list[str], message: str) -> None:
    result = kubedra(str(EXAMPLE), *args)
    assert result.exit_code == 1, result.output
    assert message in result.stderr


def test_refused_objects_are_reported_and_the_replay_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "twice"},
        "spec": {"containers": [{"name": "c", "image": "x"}]},
    }
    path.write_text(json.dumps([{"at": 0, "objects": [pod]}, {"at": "1h", "objects": [pod]}]))
    result = kubedra(str(EXAMPLE), "--trace", str(path), "-o", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["problems"] == [
        {"time": 3600, "entry": 2, "message": 'default/twice: pods "twice" already exists'}
    ]
    assert doc["summary"]["pods"] == 1
