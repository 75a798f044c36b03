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
