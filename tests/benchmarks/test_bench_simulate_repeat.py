"""``bench_simulate.py --repeat``: medians of several processes, and the host's speed beside
them (a synthetic cluster, so no shared corpus is needed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

import bench_simulate  # noqa: E402
import host_speed  # noqa: E402


def _row(rate: float, placed: int = 10, rss: float = 50.0) -> dict[str, float]:
    return {
        "pods": 10,
        "placed": placed,
        "seconds": 1.0,
        "podsPerSecond": rate,
        "podsPerCpuSecond": rate,
        "setupSeconds": 0.1,
        "peakRssMiB": rss,
    }


def test_medians_take_the_middle_rate_and_the_largest_rss() -> None:
    row = bench_simulate._medians([_row(100.0, rss=40), _row(300.0, rss=70), _row(200.0)])
    assert row["podsPerCpuSecond"] == 200.0
    assert row["podsPerSecond"] == 200.0
    assert row["peakRssMiB"] == 70


def test_medians_refuse_runs_that_placed_differently() -> None:
    with pytest.raises(SystemExit, match=r"placed counts differ between runs: \[9, 10\]"):
        bench_simulate._medians([_row(100.0), _row(100.0, placed=9)])


def test_reference_work_is_measured_in_cpu_seconds() -> None:
    seconds = host_speed.reference_seconds(runs=1)
    assert 0 < seconds < 30
    assert "reference work" in host_speed.describe_host(runs=1)


def test_repeat_must_be_positive() -> None:
    proc = subprocess.run(
        [sys.executable, str(REPO / "benchmarks/bench_simulate.py"), "--repeat", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert "argument --repeat: must be at least 1, not 0" in proc.stderr
    assert "Traceback" not in proc.stderr
