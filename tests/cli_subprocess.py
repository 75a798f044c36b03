"""Running ``python -m kubedra`` in a fresh interpreter that imports this checkout's sources.

Shared by the CLI tests that need a real process (exit codes, stdin, standard streams apart).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SRC = REPO / "src"


def kubedra_env() -> dict[str, str]:
    """This process's environment with PYTHONPATH pointing at the checkout's sources only."""
    return os.environ | {"PYTHONPATH": str(SRC)}


def run_kubedra(
    *args: str,
    stdin: str | None = None,
    cwd: Path | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """``kubedra ARGS`` with its output captured as text; never raises on a non-zero exit."""
    return subprocess.run(
        [sys.executable, "-m", "kubedra", *args],
        capture_output=True,
        text=True,
        env=kubedra_env(),
        input=stdin,
        cwd=cwd,
        timeout=timeout,
    )


def stop_process(process: subprocess.Popen[str]) -> None:
    """Terminate a served ``kubedra`` (killing it after 10 s) and close its piped stderr."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stderr:
        process.stderr.close()
