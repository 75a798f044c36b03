"""Every pair of the shared ``cel`` conformance cases must pass (README comparison rules)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kubedra.conformance.cel_mode import evaluate_cel_case

CEL_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "conformance" / "cel"
CASE_FILES = sorted(p.name for p in CEL_DIR.glob("*.json")) if CEL_DIR.is_dir() else []


def _problems(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    problems = []
    for key in ("compileError", "runtimeError"):
        if (expected.get(key) is None) != (actual.get(key) is None):
            problems.append(f"{key}: expected {expected.get(key)!r}, got {actual.get(key)!r}")
    if expected.get("result") != actual.get("result"):
        want, got = expected.get("result"), actual.get("result")
        problems.append(f"result: expected {want!r}, got {got!r}")
    return problems


@pytest.mark.parametrize("name", CASE_FILES)
def test_cel_case_file(shared_dir: Path, name: str) -> None:
    case = json.loads((shared_dir / "conformance" / "cel" / name).read_text())
    stripped = {k: v for k, v in case.items() if k != "cases"}
    stripped["cases"] = [{"input": pair["input"]} for pair in case["cases"]]
    results = evaluate_cel_case(stripped)["cases"]
    assert len(results) == len(case["cases"])
    failures = []
    for index, (pair, actual) in enumerate(zip(case["cases"], results, strict=True)):
        problems = _problems(pair["expected"], actual)
        if problems:
            details = "\n    ".join(problems)
            failures.append(f"#{index} {pair['input']['expression']}\n    {details}")
    passed = len(results) - len(failures)
    print(f"{name}: {passed}/{len(results)} pairs pass")
    assert not failures, f"{len(failures)} of {len(results)} pairs fail:\n" + "\n".join(failures)


def test_runtime_error_pairs_report_upstreams_cost(shared_dir: Path) -> None:
    """cel-go reports the cost spent until an error; most recorded error costs are met."""
    from kubedra.conformance.cel_mode import evaluate_pair

    same = recorded = 0
    for path in sorted((shared_dir / "conformance" / "cel").glob("*.json")):
        for pair in json.loads(path.read_text())["cases"]:
            want = pair["expected"]
            if want.get("runtimeError") is None or want.get("cost") is None:
                continue
            got = evaluate_pair(pair["input"])
            assert got["runtimeError"] is not None
            assert isinstance(got["cost"], int)
            recorded += 1
            same += got["cost"] == want["cost"]
    assert recorded > 200
    assert same >= 216  # 216 of 229 today


def test_conformance_run_reports_cel_costs(shared_dir: Path) -> None:
    from typer.testing import CliRunner

    from kubedra.conformance.cli import conformance_app

    case = shared_dir / "conformance" / "cel" / "errors-limits.json"
    result = CliRunner().invoke(conformance_app, ["run", str(case)])
    lines = result.output.strip().splitlines()
    assert lines[-1].endswith("passed, 0 failed")
    assert lines[-2].startswith("cel cost: ") and "upstream's recorded cost" in lines[-2]


def test_costs_equal_upstreams_recorded_costs(shared_dir: Path) -> None:
    """Costs are informational but pinned: dyn-dispatched calls cost 1 (no overload id in
    cel-go), lists of folded calls are still built (10), conversions of literals are
    planner constants (0)."""
    from kubedra.conformance.cel_mode import evaluate_pair

    same = recorded = 0
    for path in sorted((shared_dir / "conformance" / "cel").glob("*.json")):
        for pair in json.loads(path.read_text())["cases"]:
            want = pair["expected"].get("cost")
            if want is None:
                continue
            recorded += 1
            same += evaluate_pair(pair["input"])["cost"] == want
    assert recorded == 1352
    assert same >= 1325  # the rest: optional chains and type() comparisons
