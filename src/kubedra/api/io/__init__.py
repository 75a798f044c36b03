"""Loading Kubernetes manifests and writing them back.

:func:`load_paths` reads files and directories (YAML and JSON, multi-document streams,
``List`` and ``*List`` objects as ``kubectl get -o yaml`` prints them), converts older
``resource.k8s.io`` versions to ``v1`` and checks field types. It never raises for bad input:
each unreadable file, syntax error, unknown kind or mistyped object is one :class:`LoadError`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from kubedra.api.gcpause import paused_gc
from kubedra.api.io.decoding import (
    SUPPORTED_KINDS,
    DecodeError,
    LoadedObject,
    UnmodeledObject,
    decode,
    decode_document,
)
from kubedra.api.io.reading import (
    LoadError,
    RawDocument,
    manifest_files,
    parse_json,
    parse_yaml,
    read_documents,
)
from kubedra.api.io.writing import dump_json, dump_yaml, to_clean_wire


@dataclass
class LoadResult:
    """What was read, in input order: objects that loaded and errors that stopped the others."""

    entries: list[LoadedObject | UnmodeledObject | LoadError] = field(default_factory=list)
    files: int = 0

    @property
    def objects(self) -> list[LoadedObject]:
        return [entry for entry in self.entries if isinstance(entry, LoadedObject)]

    @property
    def unmodeled(self) -> list[UnmodeledObject]:
        """Objects of kinds without a model (workloads, Services, ...), kept as read."""
        return [entry for entry in self.entries if isinstance(entry, UnmodeledObject)]

    @property
    def errors(self) -> list[LoadError]:
        return [entry for entry in self.entries if isinstance(entry, LoadError)]


def load_paths(paths: Iterable[str | Path]) -> LoadResult:
    """Load every object in the given files and directories (``-`` reads standard input)."""
    with paused_gc():
        return _load_paths(paths)


def _load_paths(paths: Iterable[str | Path]) -> LoadResult:
    result = LoadResult()
    for file in manifest_files(paths):
        if isinstance(file, LoadError):
            result.entries.append(file)
            continue
        result.files += 1
        for document in read_documents(file):
            if isinstance(document, LoadError):
                result.entries.append(document)
            else:
                result.entries.extend(decode_document(document))
    return result


def load_text(text: str, source: str = "<text>", *, json_input: bool = False) -> LoadResult:
    """Load the objects of a YAML (or JSON) text, as if read from a file named ``source``."""
    result = LoadResult(files=1)
    with paused_gc():
        documents = parse_json(text, source) if json_input else parse_yaml(text, source)
        for document in documents:
            if isinstance(document, LoadError):
                result.entries.append(document)
            else:
                result.entries.extend(decode_document(document))
    return result


__all__ = [
    "SUPPORTED_KINDS",
    "DecodeError",
    "LoadError",
    "LoadResult",
    "LoadedObject",
    "RawDocument",
    "UnmodeledObject",
    "decode",
    "dump_json",
    "dump_yaml",
    "load_paths",
    "load_text",
    "to_clean_wire",
]
