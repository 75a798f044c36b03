"""What ``kubedra validate`` prints: the text report for people and the JSON one for machines."""

from __future__ import annotations

from typing import Any

import typer

from kubedra.api.checking import Report, Verdict, render_invalid
from kubedra.api.io import LoadError


def print_text(report: Report) -> None:
    for entry in report.entries:
        if isinstance(entry, LoadError):
            typer.echo(str(entry))
            continue
        strict = entry.strict_error
        if strict is not None:
            typer.echo(str(strict))
        if entry.errors:
            typer.echo(render_invalid(entry))
            typer.echo(f"  in {entry.loaded.location()}")
    typer.echo(_summary(report))


def _summary(report: Report) -> str:
    objects, invalid = len(report.verdicts), len(report.invalid)
    files = f"{report.files} file" + ("" if report.files == 1 else "s")
    summary = f"{objects} object{'' if objects == 1 else 's'} in {files}: {objects - invalid} valid"
    summary += f", {invalid} invalid"
    if report.load_errors:
        count = len(report.load_errors)
        summary += f", {count} unreadable document{'' if count == 1 else 's'}"
    return summary


def _error_json(error: Any) -> dict[str, Any]:
    error_type = getattr(error, "type", None)
    return {
        "type": str(error_type),
        "reason": getattr(error_type, "reason", None),
        "field": getattr(error, "field", None),
        "value": getattr(error, "value", None),
        "detail": getattr(error, "detail", None),
        "message": str(error),
    }


def _object_json(verdict: Verdict) -> dict[str, Any]:
    loaded = verdict.loaded
    metadata = verdict.defaulted.get("metadata") or {}
    entry: dict[str, Any] = {
        "source": loaded.source,
        "document": loaded.document,
        "item": loaded.item,
        "apiVersion": loaded.api_version,
        "kind": loaded.kind,
        "namespace": metadata.get("namespace"),
        "name": metadata.get("name"),
        "valid": verdict.ok,
        "errors": [_error_json(error) for error in verdict.errors],
        "unknownFields": list(loaded.strict_errors),
    }
    if verdict.errors:
        entry["message"] = render_invalid(verdict)
    return entry


def _load_error_json(error: LoadError) -> dict[str, Any]:
    return {
        "source": error.source,
        "document": error.document,
        "item": error.item,
        "message": error.message,
    }


def as_json(report: Report) -> dict[str, Any]:
    return {
        "valid": report.ok,
        "summary": {
            "files": report.files,
            "objects": len(report.verdicts),
            "invalid": len(report.invalid),
            "errors": len(report.load_errors),
        },
        "objects": [_object_json(verdict) for verdict in report.verdicts],
        "errors": [_load_error_json(error) for error in report.load_errors],
    }
