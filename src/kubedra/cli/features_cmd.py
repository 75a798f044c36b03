"""``kubedra feature-gates``: the DRA feature gates of a release, as kubedra applies them."""

from __future__ import annotations

import json
from typing import Any

import typer

from kubedra.cli import options
from kubedra.cli.options import Output
from kubedra.features import FeatureGates, known_gates, spec_at


def gate_rows(gates: FeatureGates) -> list[dict[str, Any]]:
    """One row per gate the release knows: maturity, default, effective value, lock."""
    rows = []
    for name in known_gates(gates.release):
        spec = spec_at(name, gates.release)
        assert spec is not None
        rows.append(
            {
                "name": name,
                "stage": spec.stage.value,
                "default": spec.default,
                "enabled": gates.enabled(name),
                "locked": spec.locked,
            }
        )
    return rows


def _table(rows: list[dict[str, Any]]) -> str:
    header = ["NAME", "STAGE", "DEFAULT", "ENABLED", "LOCKED"]
    cells = [
        [row["name"], row["stage"]]
        + [str(row[key]).lower() for key in ("default", "enabled", "locked")]
        for row in rows
    ]
    widths = [max(len(line[i]) for line in [header, *cells]) for i in range(len(header))]
    return "\n".join(
        "   ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        for line in [header, *cells]
    )


def feature_gates(
    kubernetes_version: options.KubernetesVersion = None,
    feature_gates: options.FeatureGatesOption = None,
    output: options.OutputOption = Output.TEXT,
) -> None:
    """List the DRA feature gates of a Kubernetes release: maturity, default and the value
    kubedra uses (after --feature-gates)."""
    gates = options.feature_gates(kubernetes_version, feature_gates)
    for warning in gates.warnings:
        typer.echo(f"Warning: {warning}", err=True)
    rows = gate_rows(gates)
    document = {"kubernetesVersion": gates.release, "gates": rows}
    if output is Output.JSON:
        typer.echo(json.dumps(document, indent=2))
    elif output is Output.YAML:
        from kubedra.api.io import yaml_emit

        typer.echo(yaml_emit.dump(document), nl=False)
    elif output is Output.NAME:
        for row in rows:
            typer.echo(row["name"])
    else:
        typer.echo(_table(rows))


def register(app: typer.Typer) -> None:
    app.command(name="feature-gates", context_settings=options.CONTEXT_SETTINGS)(feature_gates)
