"""Atomic file writes: readers of a cluster directory, a CDI directory or a checkpoint must
never see half a file, so every write goes to a hidden temporary file that is then renamed."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, data: str | bytes, mode: int = 0o644, *, durable: bool = True) -> None:
    """Replace ``path`` with ``data`` in one rename; creates the parent directories.

    ``durable`` also flushes the data to disk before the rename (checkpoints, CDI specs); the
    rename alone is enough for readers never to see a partial file."""
    payload = data.encode() if isinstance(data, str) else data
    path.parent.mkdir(parents=True, exist_ok=True)
    # A leading dot and a .tmp suffix keep the temporary file out of every "*.yaml"/"*.json" scan.
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise


def remove_file(path: Path) -> bool:
    """Remove ``path``; returns False when it did not exist."""
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    return True
