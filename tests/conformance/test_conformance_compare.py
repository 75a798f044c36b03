"""The comparison rules of the conformance README, and the CLI around them."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kubedra.cli.main import _register_commands, app
from kubedra.conformance.compare import (
    allocations_equal,
    compare_allocate,
    compare_cel_pair,
    named_object,
)


def test_share_id_star_matches_any_non_empty_string() -> None:
    expected = [{"devices": {"results": [{"device": "d", "shareID": "*"}]}}]
    assert allocations_equal(
        expected, [{"devices": {"results": [{"device": "d", "shareID": "u"}]}}]
    )
    assert not allocations_equal(expected, [{"devices": {"results": [{"device": "d"}]}}])
    assert not allocations_equal(
        expected, [{"devices": {"results": [{"device": "e", "shareID": "u"}]}}]
    )


def test_errors_compare_by_the_first_named_object() -> None:
    assert named_object("claim team-a/x, request r: boom") == "claim team-a/x"
    assert named_object("class gpu.example.com: selector #1 ...") == "class gpu.example.com"
    assert named_object("invalid resource pools were encountered") is None
    expected = {"ok": False, "unschedulable": False, "error": "claim ns/x: bad"}
    good = {"ok": False, "unschedulable": False, "error": "ResourceClaim ns/x failed"}
    bad = {"ok": False, "unschedulable": False, "error": "claim ns/y: bad"}
    assert compare_allocate(expected, good) == []
    assert compare_allocate(expected, bad)
    node_local = dict(good, errorIsNodeLocal=True)
    assert compare_allocate(expected, node_local)


def test_cel_pairs_compare_error_presence_and_result() -> None:
    expected = {"compileError": None, "runtimeError": "no such key", "result": None}
    assert (
        compare_cel_pair(expected, {"compileError": None, "runtimeError": "x", "result": None})
        == []
    )
    assert compare_cel_pair(expected, {"compileError": None, "runtimeError": None, "result": False})


def _case(tmp_path: Path, expected_device: str) -> Path:
    slice_ = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "s"},
        "spec": {
            "driver": "d.example.com",
            "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
            "allNodes": True,
            "devices": [{"name": "dev-0"}],
        },
    }
    case = {
        "name": "tiny",
        "mode": "allocate",
        "features": {},
        "input": {
            "node": {"metadata": {"name": "n"}},
            "deviceClasses": [{"metadata": {"name": "c"}, "spec": {}}],
            "resourceSlices": [slice_],
            "claims": [
                {
                    "metadata": {"name": "x", "namespace": "ns"},
                    "spec": {
                        "devices": {
                            "requests": [{"name": "r", "exactly": {"deviceClassName": "c"}}]
                        }
                    },
                }
            ],
        },
        "expected": {
            "ok": True,
            "unschedulable": False,
            "error": None,
            "allocations": [
                {
                    "devices": {
                        "results": [
                            {
                                "request": "r",
                                "driver": "d.example.com",
                                "pool": "p",
                                "device": expected_device,
                            }
                        ]
                    }
                }
            ],
        },
    }
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(case))
    return path


def test_cli_eval_and_run(tmp_path: Path) -> None:
    _register_commands()
    runner = CliRunner()
    good = _case(tmp_path, "dev-0")
    out = runner.invoke(app, ["conformance", "eval", str(good)])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["allocations"][0]["devices"]["results"][0]["device"] == "dev-0"
    out = runner.invoke(app, ["conformance", "run", str(good)])
    assert out.exit_code == 0 and out.output.strip().endswith("1 passed, 0 failed")
    bad = _case(tmp_path, "dev-9")
    out = runner.invoke(app, ["conformance", "run", str(bad)])
    assert out.exit_code == 1
    assert "FAIL tiny" in out.output and '-            "device": "dev-9"' in out.output
    assert out.output.strip().endswith("0 passed, 1 failed")


def test_cli_reports_bad_input_without_traceback(tmp_path: Path) -> None:
    _register_commands()
    path = tmp_path / "broken.json"
    path.write_text('{"mode": "allocate", "input": {}}')
    out = CliRunner().invoke(app, ["conformance", "eval", str(path)])
    assert out.exit_code == 2
    assert "input.node" in out.output and "Traceback" not in out.output


def test_cli_eval_prints_one_line_per_list_entry(tmp_path: Path) -> None:
    """Large results stay quick to print: each allocation (placement, cel pair) on one line."""
    out = CliRunner().invoke(app, ["conformance", "eval", str(_case(tmp_path, "dev-0"))])
    assert out.exit_code == 0, out.output
    result = json.loads(out.output)
    lines = out.output.splitlines()
    assert lines[0] == "{" and lines[-1] == "}"
    assert lines[1:5] == [
        '  "ok": true,',
        '  "unschedulable": false,',
        '  "error": null,',
        '  "allocations": [',
    ]
    assert lines[5] == "    " + json.dumps(result["allocations"][0])
    assert lines[6:] == ["  ]", "}"]
