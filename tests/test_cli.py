"""The command-line entry point."""

from __future__ import annotations

import subprocess
import sys

from kubedra import __version__


def test_version_command_prints_package_version() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "kubedra", "version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == __version__
