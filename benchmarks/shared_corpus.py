"""Where the benchmarks find the shared corpus (``../shared``), and what they say without it.

The workloads, expected placements and upstream reference figures live in ``shared/``, a
directory beside the checkout that the repository does not contain. A script that needs it
stops with a message naming what it needs, where it looked and what works instead, and exit
status 2 (never a traceback, never a silent success).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

REPO = Path(__file__).resolve().parent.parent
BENCHMARKS = REPO.parent / "shared" / "benchmarks"
"""The default ``--dir`` of the workload benchmarks."""

EXIT_MISSING = 2


def missing(script: str, needed: str, instead: str = "") -> NoReturn:
    """Print why ``script`` cannot run (and what works instead) and exit with 2."""
    message = f"{script}: {needed}"
    if instead:
        message += f"\n{instead}"
    print(message, file=sys.stderr)
    raise SystemExit(EXIT_MISSING)


def workload_names(directory: Path) -> list[str]:
    """The workloads in ``directory/workloads`` (empty when there is none)."""
    return sorted(path.stem for path in (directory / "workloads").glob("*.json"))


def require_workloads(
    script: str, directory: Path, names: list[str] | None, instead: str = ""
) -> list[str]:
    """The workload names to run (``names``, else all); exits when the corpus is absent or a
    name is not one of its workloads."""
    known = workload_names(directory)
    if not known:
        missing(
            script,
            f"needs the shared benchmark workloads, {directory / 'workloads'}/*.json, which "
            "the repository does not contain (../shared beside the checkout, or --dir DIR)",
            instead,
        )
    unknown = [name for name in names or [] if name not in known]
    if unknown:
        missing(
            script, f"no workload {', '.join(unknown)} in {directory}; known: {', '.join(known)}"
        )
    return list(names or known)


def require_file(script: str, path: Path, what: str) -> Path:
    """``path``, or exit naming ``what`` is missing there."""
    if not path.is_file():
        missing(script, f"needs {what}, {path}, which the repository does not contain")
    return path
