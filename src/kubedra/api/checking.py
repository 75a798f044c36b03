"""The ``kubedra validate`` pipeline as a library: load, convert, default, validate.

Kept apart from the command so that other tools (and tests) get the same verdicts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kubedra.api.defaults import apply_defaults
from kubedra.api.gcpause import paused_gc
from kubedra.api.io import LoadedObject, LoadError, LoadResult, UnmodeledObject, load_paths
from kubedra.api.io.decoding import object_name
from kubedra.api.validation import FieldError, format_invalid, validate_object
from kubedra.api.workloads import check_workload, is_workload


@dataclass(frozen=True)
class Verdict:
    """One loaded object, defaulted, with its validation errors (empty when valid)."""

    loaded: LoadedObject
    defaulted: dict[str, Any]
    errors: list[FieldError]

    @property
    def strict_error(self) -> LoadError | None:
        """Unknown fields found while decoding (reported with the validation errors)."""
        return self.loaded.strict_error()

    @property
    def ok(self) -> bool:
        return not self.errors and self.strict_error is None


@dataclass
class Report:
    """Verdicts and errors in input order."""

    entries: list[Verdict | LoadError | UnmodeledObject] = field(default_factory=list)
    files: int = 0

    @property
    def skipped(self) -> list[UnmodeledObject]:
        """Objects of kinds kubedra does not model; they do not change the verdict."""
        return [entry for entry in self.entries if isinstance(entry, UnmodeledObject)]

    @property
    def verdicts(self) -> list[Verdict]:
        return [entry for entry in self.entries if isinstance(entry, Verdict)]

    @property
    def load_errors(self) -> list[LoadError]:
        return [entry for entry in self.entries if isinstance(entry, LoadError)]

    @property
    def invalid(self) -> list[Verdict]:
        """Objects with validation errors or unknown fields."""
        return [verdict for verdict in self.verdicts if not verdict.ok]

    @property
    def ok(self) -> bool:
        return not self.load_errors and not self.invalid


def check_paths(
    paths: Iterable[str | Path],
    namespace: str = "default",
    *,
    enforce_namespace: bool = False,
    kubernetes_version: str | None = None,
) -> Report:
    """Load every object under ``paths``, default it and run the validation rules on it; the
    options as for :func:`kubedra.api.io.load_paths`."""
    loaded = load_paths(
        paths,
        namespace,
        enforce_namespace=enforce_namespace,
        kubernetes_version=kubernetes_version,
    )
    return check_loaded(loaded)


def check_loaded(loaded: LoadResult) -> Report:
    """Default and validate what :func:`kubedra.api.io.load_paths` (or ``load_text``) read."""
    with paused_gc():
        return _check(loaded)


def _check(loaded: LoadResult) -> Report:
    report = Report(files=loaded.files)
    for entry in loaded.entries:
        if isinstance(entry, LoadError):
            report.entries.append(entry)
        elif isinstance(entry, UnmodeledObject):
            report.entries.append(_workload_verdict(entry) if is_workload(entry.content) else entry)
        else:
            report.entries.append(_verdict(entry))
    return report


def _workload_verdict(obj: UnmodeledObject) -> Verdict | LoadError:
    """A workload's verdict is its pod template's (errors at the workload's field paths)."""
    content = obj.content
    try:
        check = check_workload(content)
    except Exception as error:  # a rule bug must not hide the other objects' verdicts
        message = f"internal error while validating: {type(error).__name__}: {error}"
        return LoadError(obj.source, obj.document, message, obj.item)
    if check.decode_error is not None:
        return LoadError(obj.source, obj.document, check.decode_error, obj.item)
    loaded = LoadedObject(obj.source, obj.document, obj.item, obj.api_version, obj.kind, content)
    return Verdict(loaded, content, check.errors)


def _verdict(obj: LoadedObject) -> Verdict | LoadError:
    try:
        _visit(obj.wire)
        defaulted = apply_defaults(obj.wire)
        errors = validate_object(defaulted)
    except Exception as error:  # a rule bug must not hide the other objects' verdicts
        message = (
            f"{object_name(obj.wire)} is nested too deeply"
            if isinstance(error, RecursionError)
            else f"internal error while validating: {type(error).__name__}: {error}"
        )
        return LoadError(obj.source, obj.document, message, obj.item)
    return Verdict(obj, defaulted, errors)


def _visit(value: Any) -> None:
    """Walk every nested dict and list: an object too deep for Python's recursion raises
    RecursionError here, reported as one error. (Defaulting used to find that out by copying
    the whole object; it now copies only what it changes.)"""
    if isinstance(value, dict):
        for item in value.values():
            _visit(item)
    elif isinstance(value, list):
        for item in value:
            _visit(item)


def render_invalid(verdict: Verdict) -> str:
    """The apiserver's message for an invalid object."""
    return format_invalid(verdict.defaulted, verdict.errors)
