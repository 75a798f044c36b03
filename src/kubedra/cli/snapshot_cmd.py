"""``kubedra snapshot``: save what a live cluster's DRA scheduling depends on, read-only."""

from __future__ import annotations

import json

import typer

from kubedra.cli import options
from kubedra.cli.options import Output


def snapshot(
    kubeconfig: options.Kubeconfig = None,
    context: options.Context = None,
    namespace: options.Namespace = None,
    all_namespaces: options.AllNamespaces = False,
    output: options.OutputOption = Output.YAML,
) -> None:
    """Read a live cluster and print it as one List: kubedra validate (and simulate) read it.

    Reads DeviceClasses, ResourceSlices, ResourceClaims, ResourceClaimTemplates,
    DeviceTaintRules, Pods, Nodes, Namespaces and PriorityClasses; resource.k8s.io in whichever
    version the server serves, converted to v1. Never writes to the cluster.

    Namespaced kinds come from every namespace unless -n names one. Kinds you may not list are
    reported on standard error and left out. Example: kubedra snapshot -o yaml > cluster.yaml
    """
    if output not in (Output.YAML, Output.JSON, Output.NAME):
        raise typer.BadParameter("snapshot prints yaml, json or name", param_hint="'-o'")
    from kubedra.live import LiveError, read_cluster

    try:
        result = read_cluster(
            str(kubeconfig) if kubeconfig else None,
            context,
            None if all_namespaces else namespace,
        )
    except LiveError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(1) from None
    for skipped in result.skipped:
        typer.echo(f"Warning: skipped {skipped}", err=True)
    if output is Output.JSON:
        typer.echo(json.dumps(result.as_list(), indent=2))
    elif output is Output.NAME:
        from kubedra.cli.validate_report import resource_name

        for obj in result.objects:
            typer.echo(resource_name(obj))
    else:
        from kubedra.api.io import yaml_emit

        typer.echo(yaml_emit.dump(result.as_list()), nl=False)


def register(app: typer.Typer) -> None:
    app.command(name="snapshot", context_settings=options.CONTEXT_SETTINGS)(snapshot)
