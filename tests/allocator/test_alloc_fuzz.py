"""The allocator fuzz harness with a fixed seed and a small budget (see allocator_fuzz.py)."""

from __future__ import annotations

from pathlib import Path

import allocator_fuzz


def test_mutated_cases_give_results_or_clean_errors_in_time(shared_dir: Path) -> None:
    cases = allocator_fuzz.load_cases(shared_dir / "conformance")
    report = allocator_fuzz.run(cases, count=400, seed=0, timeout=1.0)
    assert report.cases == 400
    assert not report.tracebacks, report.tracebacks[0]
    assert not report.slow, report.slow
    assert report.results and report.clean_errors
