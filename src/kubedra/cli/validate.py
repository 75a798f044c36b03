"""``kubedra validate PATH...``: check manifests the way the apiserver would on create."""

from __future__ import annotations

import enum
import json
from pathlib import Path
from typing import Annotated, Any

import typer

from kubedra.api.checking import Report, Verdict, check_paths, render_invalid
from kubedra.api.io import LoadError


class OutputFormat(enum.StrEnum):
    TEXT = "text"
    JSON = "json"


def validate(
    paths: Annotated[
        list[Path],
        typer.Argument(help="Manifest files or directories (searched recursively); - for stdin."),
    ],
    output: Annotated[
        OutputFormat, typer.Option("--output", "-o", help="text for people, json for machines.")
    ] = OutputFormat.TEXT,
) -> None:
    """Validate every object in the given manifests as the apiserver would.

    Older resource.k8s.io versions are converted to v1 and every object is defaulted first.
    Exits 1 when any object is invalid or any file or document cannot be read, else 0.
    """
    report = check_paths(paths)
    if output is OutputFormat.JSON:
        typer.echo(json.dumps(_as_json(report), indent=2, default=str))
    else:
        _print_text(report)
    raise typer.Exit(0 if report.ok else 1)


def _print_text(report: Report) -> None:
    for entry in report.entries:
        if isinstance(entry, LoadError):
            typer.echo(str(entry))
        elif entry.errors:
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
        "valid": not verdict.errors,
        "errors": [_error_json(error) for error in verdict.errors],
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


def _as_json(report: Report) -> dict[str, Any]:
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


def register(app: typer.Typer) -> None:
    app.command(name="validate")(validate)
