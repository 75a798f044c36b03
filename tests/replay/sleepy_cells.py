"""A cell function for tests/replay/test_sweep_terminate.py: it records its worker's pid and
then sleeps far longer than the test waits (importable by name, as worker processes need)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any


def sleep_cell(cell: Any) -> dict[str, Any]:
    Path(os.environ["KUBEDRA_TEST_PIDS"], str(os.getpid())).write_text(str(cell.index))
    time.sleep(300)
    return {}
