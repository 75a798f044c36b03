"""A trace as files: DIR/cluster.yaml and DIR/trace.yaml, written only inside DIR.

cluster.yaml is a multi-document stream (block style, as ``kubectl get -o yaml`` prints).
trace.yaml is a YAML list with one flow-style entry per line: short lines without YAML
1.1-only scalars are what kubedra's fast YAML reader (kubedra.api.io) takes, and writing the
same objects always gives the same bytes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kubedra.api.gcpause import paused_gc
from kubedra.api.io import dump_yaml
from kubedra.api.io.yaml_emit import flow_list
from kubedra.traces.errors import TraceInputError

CLUSTER_FILE = "cluster.yaml"
TRACE_FILE = "trace.yaml"


@dataclass
class Trace:
    """What a trace directory holds, and what building it found (for the command's report)."""

    cluster: list[dict[str, Any]]
    entries: list[dict[str, Any]]
    header: list[str] = field(default_factory=list)
    """Comment lines at the top of both files: where the trace came from."""
    summary: dict[str, Any] = field(default_factory=dict)


def _comments(lines: list[str]) -> str:
    return "".join(f"# {line}\n" if line else "#\n" for line in lines)


def cluster_text(trace: Trace) -> str:
    return _comments(trace.header) + dump_yaml(trace.cluster)


def trace_text(trace: Trace) -> str:
    return _comments(trace.header) + flow_list(trace.entries)


def write_trace(trace: Trace, directory: Path, *, force: bool = False) -> list[Path]:
    """Write cluster.yaml and trace.yaml into ``directory`` (created with its parents when
    missing) and return their paths. Existing files are replaced only with ``force``; each file
    is written beside its target and renamed over it, so a link there is replaced, never
    followed, and a failed write leaves the old file. Raises :class:`TraceInputError`."""
    targets = [directory / CLUSTER_FILE, directory / TRACE_FILE]
    _check_directory(directory, targets, force)
    with paused_gc():
        texts = [cluster_text(trace), trace_text(trace)]
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for target, text in zip(targets, texts, strict=True):
            _replace(target, text)
    except OSError as error:
        raise TraceInputError(f"{directory}: cannot write: {error.strerror or error}") from None
    return targets


def _check_directory(directory: Path, targets: list[Path], force: bool) -> None:
    if directory.exists() and not directory.is_dir():
        raise TraceInputError(f"{directory}: exists and is not a directory")
    present = [target for target in targets if target.is_symlink() or target.exists()]
    for target in present:
        if target.is_dir() and not target.is_symlink():
            raise TraceInputError(f"{target}: is a directory; remove it or choose another -o")
    if present and not force:
        names = " and ".join(target.name for target in present)
        raise TraceInputError(
            f"{directory} already holds {names}: --force overwrites "
            f"{'them' if len(present) > 1 else 'it'}"
        )


def _replace(target: Path, text: str) -> None:
    # A new file (mode "x": never an existing one, never through a link), with the usual
    # permissions of the user's umask, renamed over the target.
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    handle = temporary.open("x", encoding="utf-8", newline="\n")
    try:
        with handle:
            handle.write(text)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
