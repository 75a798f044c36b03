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
    namespace: Annotated[
        str | None,
        typer.Option(
            "--namespace",
            "-n",
            help="Request namespace, as kubectl -n: namespaced objects without one get it and "
            "an object in another namespace is refused. Default: the object's own, else default.",
        ),
    ] = None,
    kubernetes_version: Annotated[
        str | None,
        typer.Option(
            "--kubernetes-version",
            help="Release whose API fields decode (1.34 to 1.37; default: the newest).",
        ),
    ] = None,
) -> None:
    """Validate every object in the given manifests as the apiserver would.

    Namespaced objects without a namespace get the request namespace, older resource.k8s.io
    versions are converted to v1 and every object is defaulted first. Exits 1 when any object
    is invalid, has unknown fields or any file or document cannot be read, 2 for a bad option,
    else 0.
    """
    # Imported here: the object model and the rules load only when this command runs,
    # so every other command starts fast.
    from kubedra.api.checking import check_paths
    from kubedra.api.releases import UnsupportedVersionError, parse_version
    from kubedra.cli import validate_report

    try:
        version = parse_version(kubernetes_version) if kubernetes_version is not None else None
    except UnsupportedVersionError as error:
        raise typer.BadParameter(str(error), param_hint="--kubernetes-version") from None
    report = check_paths(
        paths,
        namespace if namespace is not None else "default",
        enforce_namespace=namespace is not None,
        kubernetes_version=version,
    )
    if output is OutputFormat.JSON:
        typer.echo(json.dumps(validate_report.as_json(report), indent=2, default=str))
    else:
        validate_report.print_text(report)
    raise typer.Exit(0 if report.ok else 1)


def register(app: typer.Typer) -> None:
    app.command(name="validate")(validate)
