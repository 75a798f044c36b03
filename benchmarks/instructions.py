"""Count the instructions a command executes, with valgrind (cachegrind, no cache model).

Times on a shared virtual machine move by up to half between minutes; instruction counts do
not (with ``PYTHONHASHSEED`` fixed), so two trees can be compared without alternating runs.
An instruction is not a fixed time (cache misses, branch mispredictions), so a count says
which tree does less work, and by about how much; the rates in the tables stay the measure.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

VALGRIND = ("valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null")
_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


class InstructionsUnavailable(RuntimeError):
    """valgrind is not installed (or did not report a count)."""


def count_instructions(command: list[str]) -> int:
    """Instructions ``command`` executed (all of its process), under a fixed hash seed."""
    if shutil.which("valgrind") is None:
        raise InstructionsUnavailable(
            "valgrind is not installed (Debian: apt-get install valgrind); "
            "instruction counts need it"
        )
    env = os.environ | {"PYTHONHASHSEED": "0"}
    proc = subprocess.run(
        [*VALGRIND, *command], capture_output=True, text=True, check=False, env=env
    )
    found = _REFS.search(proc.stderr)
    if proc.returncode != 0 or found is None:
        tail = proc.stderr.strip().splitlines()[-1:] or ["no output"]
        raise InstructionsUnavailable(f"valgrind run failed ({proc.returncode}): {tail[0]}")
    return int(found.group(1).replace(",", ""))
