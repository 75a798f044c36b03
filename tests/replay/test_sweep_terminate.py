"""A sweep stopped with SIGTERM takes its worker processes with it: before, the parent died at
once and each worker went on with its cell (minutes of CPU nobody would read)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).parent

SWEEP = f"""
import sys
sys.path.insert(0, {str(HERE)!r})
from sleepy_cells import sleep_cell
from kubedra.replay.executor import run_cells
from kubedra.replay.sweep import Cell

cells = [Cell(i, "run", "config", None, (), (), ".") for i in range(2)]
run_cells(cells, sleep_cell, workers=2)
"""


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


def _wait(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def test_sigterm_stops_the_workers_of_a_sweep(tmp_path: Path) -> None:
    env = {**os.environ, "KUBEDRA_TEST_PIDS": str(tmp_path)}
    sweep = subprocess.Popen([sys.executable, "-c", SWEEP], env=env)
    try:
        assert _wait(lambda: len(list(tmp_path.iterdir())) == 2, 120), "the cells never started"
        workers = [int(p.name) for p in tmp_path.iterdir()]
        assert all(_alive(pid) for pid in workers)
        sweep.send_signal(signal.SIGTERM)
        assert sweep.wait(timeout=60) == 128 + signal.SIGTERM
        assert _wait(lambda: not any(_alive(pid) for pid in workers), 10), (
            f"workers still running after the sweep ended: {workers}"
        )
    finally:
        if sweep.poll() is None:
            sweep.kill()
        for path in tmp_path.iterdir():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(path.name), signal.SIGKILL)
