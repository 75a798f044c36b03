"""What ``kubedra validate`` prints: the text report for people, JSON/YAML for machines, names."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import typer

from kubedra.api.checking import Report, Verdict, render_invalid
from kubedra.api.io import LoadError, UnmodeledObject
from kubedra.api.io.decoding import object_name
from kubedra.features import FeatureGates, describe_feature_usage, feature_warnings


@dataclass(frozen=True)
class FeatureReport:
    """The DRA features the valid input uses, in one release, and the warnings about them."""

    release: str
    usage: list[str]
    warnings: list[str]


def feature_report(report: Report, gates: FeatureGates) -> FeatureReport:
    objects = [verdict.defaulted for verdict in report.verdicts if not verdict.errors]
    return FeatureReport(
        gates.release,
        describe_feature_usage(objects, gates.release, gates),
        feature_warnings(objects, gates.release, gates),
    )


def _skipped_line(entry: UnmodeledObject) -> str:
    return (
        f"{entry.location()}: skipped {object_name(entry.content)} ({entry.api_version}): "
        "kubedra does not model this kind"
    )


def print_text(report: Report, features: FeatureReport, *, wide: bool = False) -> None:
    for entry in report.entries:
        if isinstance(entry, LoadError):
            typer.echo(str(entry))
        elif isinstance(entry, UnmodeledObject):
            typer.echo(_skipped_line(entry))
        elif entry.errors:
            typer.echo(render_invalid(entry))
            typer.echo(f"  in {entry.loaded.location()}")
        elif wide:
            typer.echo(f"{object_name(entry.defaulted)} is valid ({entry.loaded.location()})")
    for line in features.usage:
        typer.echo(line)
    for warning in features.warnings:
        typer.echo(f"Warning: {warning}", err=True)
    typer.echo(_summary(report))


def resource_name(obj: dict[str, Any]) -> str:
    """``kind.group/name`` as ``kubectl -o name`` prints it (``pod/name`` for the core group)."""
    kind = str(obj.get("kind", "")).lower()
    api_version = str(obj.get("apiVersion", ""))
    group = api_version.rpartition("/")[0]
    metadata = obj.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    name = metadata.get("name") or metadata.get("generateName") or ""
    return f"{kind}.{group}/{name}" if group else f"{kind}/{name}"


def print_names(report: Report) -> None:
    """Valid objects' names on standard output; problems on standard error."""
    for entry in report.entries:
        if isinstance(entry, LoadError):
            typer.echo(str(entry), err=True)
        elif isinstance(entry, UnmodeledObject):
            typer.echo(_skipped_line(entry), err=True)
        elif entry.errors:
            typer.echo(render_invalid(entry), err=True)
        else:
            typer.echo(resource_name(entry.defaulted))


def _summary(report: Report) -> str:
    objects, invalid = len(report.verdicts), len(report.invalid)
    files = f"{report.files} file" + ("" if report.files == 1 else "s")
    summary = f"{objects} object{'' if objects == 1 else 's'} in {files}: {objects - invalid} valid"
    summary += f", {invalid} invalid"
    if report.skipped:
        summary += f", {len(report.skipped)} skipped"
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


def _skipped_json(entry: UnmodeledObject) -> dict[str, Any]:
    metadata = entry.content.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    return {
        "source": entry.source,
        "document": entry.document,
        "item": entry.item,
        "apiVersion": entry.api_version,
        "kind": entry.kind,
        "namespace": metadata.get("namespace"),
        "name": metadata.get("name"),
    }


def as_json(report: Report, features: FeatureReport | None = None) -> dict[str, Any]:
    document: dict[str, Any] = {
        "valid": report.ok,
        "summary": {
            "files": report.files,
            "objects": len(report.verdicts),
            "invalid": len(report.invalid),
            "skipped": len(report.skipped),
            "errors": len(report.load_errors),
        },
        "objects": [_object_json(verdict) for verdict in report.verdicts],
        "skipped": [_skipped_json(entry) for entry in report.skipped],
        "errors": [_load_error_json(error) for error in report.load_errors],
    }
    if features is not None:
        document["kubernetesVersion"] = features.release
        document["features"] = features.usage
        document["warnings"] = features.warnings
    return document
