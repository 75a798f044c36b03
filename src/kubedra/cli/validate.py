"""``kubedra validate PATH... | -f FILE|DIR|-``: check manifests as the apiserver would."""

from __future__ import annotations

import json

import typer

from kubedra.cli import options
from kubedra.cli.options import Output


def validate(
    paths: options.Paths = None,
    filename: options.Filename = None,
    recursive: options.Recursive = False,
    namespace: options.Namespace = None,
    all_namespaces: options.AllNamespaces = False,
    output: options.OutputOption = Output.TEXT,
    kubernetes_version: options.KubernetesVersion = None,
    feature_gates: options.FeatureGatesOption = None,
) -> None:
    """Validate every object in the given manifests as the apiserver would.

    Older resource.k8s.io versions are converted to v1 and every object is defaulted first.

    Workloads (Deployments, Jobs, CronJobs, StatefulSets, DaemonSets, ReplicaSets,
    ReplicationControllers) are checked through their pod templates; other kinds kubedra does
    not model are listed as skipped.

    The DRA features the input uses are named with their maturity in the chosen release, with
    a warning when one is off or alpha there. With -A, objects keep their own namespaces
    (-n is ignored).

    Exits 1 when any object is invalid or any file or document cannot be read, else 0.
    """
    gates = options.feature_gates(kubernetes_version, feature_gates)
    inputs, input_errors = options.input_paths(paths, filename, recursive)
    # Imported here: the object model and the rules load only when this command runs,
    # so every other command starts fast.
    from kubedra.api.checking import check_loaded
    from kubedra.api.io import load_paths
    from kubedra.cli import validate_report

    loaded = options.apply_namespace(load_paths(inputs), None if all_namespaces else namespace)
    loaded.entries[:0] = input_errors
    report = check_loaded(loaded)
    features = validate_report.feature_report(report, gates)
    for warning in gates.warnings:
        typer.echo(f"Warning: {warning}", err=True)
    if output is Output.JSON:
        document = validate_report.as_json(report, features)
        typer.echo(json.dumps(document, indent=2, default=str))
    elif output is Output.YAML:
        from kubedra.api.io import yaml_emit

        typer.echo(yaml_emit.dump(validate_report.as_json(report, features)), nl=False)
    elif output is Output.NAME:
        validate_report.print_names(report)
    else:
        validate_report.print_text(report, features, wide=output is Output.WIDE)
    raise typer.Exit(0 if report.ok else 1)


def register(app: typer.Typer) -> None:
    app.command(name="validate", context_settings=options.CONTEXT_SETTINGS)(validate)
