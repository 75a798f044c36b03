"""``kubedra explain pod NAME [-n NS] PATH...``: why a pod is Pending, or why it went there."""

from __future__ import annotations

import enum
import json
from pathlib import Path
from typing import Annotated

import typer

from kubedra.cli.options import FeatureGatesOption, feature_gates


class OutputFormat(enum.StrEnum):
    TEXT = "text"
    JSON = "json"


class Policy(enum.StrEnum):
    DEFAULT = "default"
    FIRST_FIT = "first-fit"


explain_app = typer.Typer(help="Explain scheduling decisions of a simulated cluster.")


@explain_app.command("pod")
def explain_pod_cmd(
    name: Annotated[str, typer.Argument(help="The pod's name.")],
    paths: Annotated[
        list[Path],
        typer.Argument(help="Manifests of the cluster and its workloads (files, directories, -)."),
    ],
    namespace: Annotated[
        str, typer.Option("--namespace", "-n", help="The pod's namespace (and the default one).")
    ] = "default",
    output: Annotated[
        OutputFormat, typer.Option("--output", "-o", help="text for people, json for machines.")
    ] = OutputFormat.TEXT,
    scheduler: Annotated[
        Policy, typer.Option("--scheduler", help="default (kube-scheduler) or first-fit.")
    ] = Policy.DEFAULT,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Pick among tied nodes at random, reproducibly.")
    ] = None,
    gates: FeatureGatesOption = None,
) -> None:
    """Simulate the manifests, then explain where pod NAME went and why, or why it is Pending.

    Exits 0 when the pod was found, 1 for unreadable input or an unknown pod.
    """
    from kubedra.api.io import load_paths
    from kubedra.cluster.simulation import Simulation
    from kubedra.scheduler.explain import explain_pod

    loaded = load_paths(paths)
    for err in loaded.errors:
        typer.echo(f"{err.location()}: {err.message}", err=True)
    if loaded.errors:
        raise typer.Exit(1)
    features = feature_gates(None, gates).allocator_features()
    sim = Simulation(namespace=namespace, policy=scheduler.value, seed=seed, features=features)
    problems = sim.load([o.wire for o in loaded.objects], [o.location() for o in loaded.objects])
    for problem in problems:
        typer.echo(f"{problem.source}: {problem.message}", err=True)
    sim.run()
    result = explain_pod(sim.scheduler, namespace, name)  # type: ignore[arg-type]
    if output is OutputFormat.JSON:
        typer.echo(json.dumps(result, indent=2, default=str))
    else:
        for line in result["summary"]:
            typer.echo(line)
    raise typer.Exit(0 if result["found"] else 1)


def register(app: typer.Typer) -> None:
    app.add_typer(explain_app, name="explain")
