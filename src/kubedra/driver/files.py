"""Atomic file writes: readers of a cluster directory, a CDI directory or a checkpoint must
never see half a file, so every write goes to a hidden temporary file that is then renamed.

A process killed between creating and renaming leaves its temporary file behind; the owners of
each directory call :func:`remove_stale_temp_files` at start, which only touches names of the
pattern below (``.<target name>.<8 random characters>.tmp``, as ``tempfile.mkstemp`` makes).
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import time
from pathlib import Path

# mkstemp's random part: 8 characters of [a-z0-9_].
TEMP_FILE_RE = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp")


class OutsideRootError(OSError):
    """A path would lead (through a symbolic link) out of the directory it must stay in."""


def ensure_inside(path: Path, root: Path) -> None:
    """Raise :class:`OutsideRootError` unless ``path`` (with every existing symbolic link of
    its parents resolved) lies inside ``root``; checked before anything is created."""
    real_root = root.resolve()
    real_parent = path.parent.resolve()
    if real_parent != real_root and not real_parent.is_relative_to(real_root):
        raise OutsideRootError(f"{path} leads outside {root} (to {real_parent})")


def remove_stale_temp_files(
    directory: Path, *, min_age: float = 0.0, recursive: bool = False, prefix: str = ""
) -> list[Path]:
    """Remove kubedra's leftover temporary files (only regular files whose name matches
    :data:`TEMP_FILE_RE` and starts with ``.`` + ``prefix``, older than ``min_age`` seconds).

    ``min_age`` protects writes in flight in directories that other processes share."""
    if not directory.is_dir():
        return []
    candidates = directory.rglob(".*.tmp") if recursive else directory.glob(".*.tmp")
    now = time.time()
    removed = []
    for path in candidates:
        if not TEMP_FILE_RE.fullmatch(path.name) or not path.name.startswith("." + prefix):
            continue
        try:
            ensure_inside(path, directory)
        except OutsideRootError:
            continue
        try:
            info = path.lstat()
            if not path.is_file() or path.is_symlink() or now - info.st_mtime < min_age:
                continue
            path.unlink()
        except FileNotFoundError:
            continue
        removed.append(path)
    return removed


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
