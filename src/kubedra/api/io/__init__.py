"""Loading Kubernetes manifests and writing them back.

:func:`load_paths` reads files and directories (YAML and JSON, multi-document streams,
``List`` and ``*List`` objects as ``kubectl get -o yaml`` prints them), fills in the request
namespace as the apiserver does, converts older ``resource.k8s.io`` versions to ``v1`` and
checks field types for the chosen Kubernetes release. It never raises for bad input: each
unreadable file, syntax error, unknown kind or mistyped object is one :class:`LoadError`. An
object whose only problem is unknown fields still loads (without them), so that its validation
errors can be reported too; :attr:`LoadResult.errors` includes its strict decoding error.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from kubedra.api.gcpause import paused_gc
from kubedra.api.io.decoding import (
    SUPPORTED_KINDS,
    DecodeError,
    DecodeOptions,
    LoadedObject,
    UnmodeledObject,
    decode,
    decode_document,
)
from kubedra.api.io.reading import (
    MAX_FILE_BYTES,
    MAX_OBJECT_BYTES,
    LoadError,
    RawDocument,
    manifest_files,
    oversized_text,
    parse_json,
    parse_yaml,
    read_documents,
    read_text,
)
from kubedra.api.io.writing import dump_json, dump_yaml, to_clean_wire
from kubedra.api.releases import DEFAULT, parse_version


@dataclass
class LoadResult:
    """What was read, in input order: objects that loaded and errors that stopped the others."""

    entries: list[LoadedObject | UnmodeledObject | LoadError] = field(default_factory=list)
    files: int = 0

    @property
    def objects(self) -> list[LoadedObject]:
        """Objects that decoded, including those whose unknown fields were dropped."""
        return [entry for entry in self.entries if isinstance(entry, LoadedObject)]

    @property
    def unmodeled(self) -> list[UnmodeledObject]:
        """Objects of kinds without a model (workloads, Services, ...), kept as read."""
        return [entry for entry in self.entries if isinstance(entry, UnmodeledObject)]

    @property
    def errors(self) -> list[LoadError]:
        """Every problem in input order, strict decoding errors of loaded objects included."""
        found: list[LoadError] = []
        for entry in self.entries:
            if isinstance(entry, UnmodeledObject):
                continue
            problem = entry if isinstance(entry, LoadError) else entry.strict_error()
            if problem is not None:
                found.append(problem)
        return found


def _options(namespace: str, enforce: bool, kubernetes_version: str | None) -> DecodeOptions:
    release = parse_version(kubernetes_version) if kubernetes_version is not None else DEFAULT
    return DecodeOptions(namespace=namespace, enforce_namespace=enforce, release=release)


def load_paths(
    paths: Iterable[str | Path],
    namespace: str = "default",
    *,
    enforce_namespace: bool = False,
    kubernetes_version: str | None = None,
) -> LoadResult:
    """Load every object in the given files and directories (``-`` reads standard input).

    ``namespace`` is the request namespace: namespaced objects without one get it, as the
    apiserver fills it in; cluster-scoped objects have a stray namespace cleared. With
    ``enforce_namespace`` (``kubectl -n`` given explicitly) an object in another namespace is
    an error; without it, objects keep their own. ``kubernetes_version`` (default: the newest
    supported) selects which release's fields decode; an unsupported version raises
    :class:`kubedra.api.releases.UnsupportedVersionError`.
    """
    options = _options(namespace, enforce_namespace, kubernetes_version)
    with paused_gc():
        return _load_paths(paths, options)


def _load_paths(paths: Iterable[str | Path], options: DecodeOptions) -> LoadResult:
    result = LoadResult()
    for file in manifest_files(paths):
        if isinstance(file, LoadError):
            result.entries.append(file)
            continue
        result.files += 1
        _decode_all(read_documents(file), options, result)
    return result


def _decode_all(
    documents: Iterable[RawDocument | LoadError], options: DecodeOptions, result: LoadResult
) -> None:
    for document in documents:
        if isinstance(document, LoadError):
            result.entries.append(document)
        else:
            result.entries.extend(decode_document(document, options))


def load_text(
    text: str,
    source: str = "<text>",
    *,
    json_input: bool = False,
    namespace: str = "default",
    enforce_namespace: bool = False,
    kubernetes_version: str | None = None,
) -> LoadResult:
    """Load the objects of a YAML (or JSON) text, as if read from a file named ``source``;
    the options as for :func:`load_paths`."""
    options = _options(namespace, enforce_namespace, kubernetes_version)
    result = LoadResult(files=1)
    with paused_gc():
        problem = oversized_text(text, source)
        if problem is not None:
            result.entries.append(problem)
            return result
        documents = parse_json(text, source) if json_input else parse_yaml(text, source)
        _decode_all(documents, options, result)
    return result


__all__ = [
    "MAX_FILE_BYTES",
    "MAX_OBJECT_BYTES",
    "SUPPORTED_KINDS",
    "DecodeError",
    "DecodeOptions",
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
    "parse_json",
    "parse_yaml",
    "read_text",
    "to_clean_wire",
]
