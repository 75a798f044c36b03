"""Every shared allocate and schedule case must pass (the README's comparison rules)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubedra.conformance.compare import compare_allocate, compare_schedule, diff
from kubedra.conformance.runner import evaluate_case

MODES = ("allocate", "schedule")


def _cases(shared_dir: Path, mode: str) -> list[Path]:
    return sorted((shared_dir / "conformance" / mode).glob("*.json"))


@pytest.mark.parametrize("mode", MODES)
def test_shared_cases_pass(shared_dir: Path, mode: str) -> None:
    files = _cases(shared_dir, mode)
    assert files, f"no {mode} cases found"
    failures = []
    for path in files:
        case = json.loads(path.read_text())
        result = evaluate_case(case)
        compare = compare_allocate if mode == "allocate" else compare_schedule
        problems = compare(case["expected"], result)
        if problems:
            failures.append(f"{path.name}: {problems}\n{diff(case['expected'], result)[:2000]}")
    assert not failures, f"{len(failures)} of {len(files)} failed:\n" + "\n".join(failures[:5])
