"""``benchmarks/instructions.py``: instruction counts under valgrind, and a clear error
without it. The counting tests need valgrind: CI installs it (.ci/run) and fails without it;
elsewhere they skip, saying how to install it."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

from instructions import InstructionsUnavailable, count_instructions  # noqa: E402


@pytest.fixture
def valgrind() -> None:
    if shutil.which("valgrind") is None:
        if os.environ.get("CI"):
            pytest.fail("valgrind is not installed: CI must install it (.ci/run)")
        pytest.skip("valgrind is not installed (apt-get install valgrind)")


@pytest.mark.usefixtures("valgrind")
def test_more_work_counts_more_instructions() -> None:
    idle = count_instructions([sys.executable, "-c", "pass"])
    busy = count_instructions([sys.executable, "-c", "sum(range(3 * 10**6))"])
    assert idle > 1_000_000
    # A loop of 3 million additions costs tens of instructions each in CPython.
    assert busy - idle > 30_000_000


@pytest.mark.usefixtures("valgrind")
def test_a_failing_command_is_an_error_not_a_count() -> None:
    with pytest.raises(InstructionsUnavailable, match=r"valgrind run failed \(1\)"):
        count_instructions([sys.executable, "-c", "raise SystemExit(1)"])


def test_without_valgrind_the_error_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(InstructionsUnavailable, match="valgrind is not installed"):
        count_instructions([sys.executable, "-c", "pass"])
