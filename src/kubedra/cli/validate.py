"""``kubedra validate PATH...``: check manifests the way the apiserver would on create."""

from __future__ import annotations

import enum
import json
from pathlib import Path
from typing import Annotated

import typer


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
    # Imported here: the object model and the rules load only when this command runs,
    # so every other command starts fast.
    from kubedra.api.checking import check_paths
    from kubedra.cli import validate_report

    report = check_paths(paths)
    if output is OutputFormat.JSON:
        typer.echo(json.dumps(validate_report.as_json(report), indent=2, default=str))
    else:
        validate_report.print_text(report)
    raise typer.Exit(0 if report.ok else 1)


def register(app: typer.Typer) -> None:
    app.command(name="validate")(validate)
