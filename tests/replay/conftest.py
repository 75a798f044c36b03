"""Make the helper modules beside these tests (and the cluster tests' builders) importable."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent / "cluster"))
