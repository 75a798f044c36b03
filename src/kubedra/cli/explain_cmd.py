"""``kubedra explain pod NAME [-n NS] PATH... | -f FILE | --kubeconfig K``: why a pod is
Pending, or why it went there."""

from __future__ import annotations

import enum
import json
from typing import Annotated

import typer

from kubedra.api.limits import DEFAULT_MAX_PODS
from kubedra.cli import options
from kubedra.cli.options import Output
from kubedra.cli.sim_flags import PreemptionMode, PreemptionOption


class Policy(enum.StrEnum):
    DEFAULT = "default"
    FIRST_FIT = "first-fit"


explain_app = typer.Typer(
    help="Explain scheduling decisions of a simulated cluster.",
    context_settings=options.CONTEXT_SETTINGS,
    rich_markup_mode=None,  # plain help, as the app's (kubedra.cli.main)
)


@explain_app.command("pod", context_settings=options.CONTEXT_SETTINGS)
def explain_pod_cmd(
    name: Annotated[str, typer.Argument(help="The pod's name.")],
    paths: options.Paths = None,
    filename: options.Filename = None,
    recursive: options.Recursive = False,
    example: Annotated[
        str | None, typer.Option("--example", help="A built-in scenario, e.g. gpu-demo.")
    ] = None,
    namespace: Annotated[
        str, typer.Option("--namespace", "-n", help="The pod's namespace (and the default one).")
    ] = "default",
    output: options.OutputOption = Output.TEXT,
    kubeconfig: options.Kubeconfig = None,
    context: options.Context = None,
    kubernetes_version: options.KubernetesVersion = None,
    feature_gates: options.FeatureGatesOption = None,
    max_pods: options.MaxPods = DEFAULT_MAX_PODS,
    scheduler: Annotated[
        Policy, typer.Option("--scheduler", help="default (kube-scheduler) or first-fit.")
    ] = Policy.DEFAULT,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Pick among tied nodes at random, reproducibly.")
    ] = None,
    preemption: PreemptionOption = PreemptionMode.UPSTREAM,
) -> None:
    """Simulate the manifests (or a live cluster's snapshot), then explain where pod NAME went
    and why, or why it is Pending.

    Workloads become their controllers' pods, as in kubedra simulate; the DRA features the
    input uses are named with their maturity in --kubernetes-version.

    Exits 0 when the pod was found, 1 for unreadable input or an unknown pod.
    """
    from kubedra.cli.sim_input import InputFlags, gather_shown, stop_if_unreadable
    from kubedra.scheduler import SchedulerConfig, new_simulation
    from kubedra.scheduler.explain import explain_pod

    flags = InputFlags(
        paths,
        filename,
        recursive,
        example,
        kubeconfig,
        context,
        namespace,
        kubernetes_version,
        feature_gates,
        max_pods=max_pods,
    )
    read = gather_shown(flags, _err, 1)
    stop_if_unreadable(read, _err, 1)
    sim = new_simulation(
        SchedulerConfig(preemption=preemption.value),
        namespace=namespace,
        policy=scheduler.value,
        seed=seed,
        features=read.features,
        admission=read.admission,
    )
    problems = sim.load(read.objects, read.sources)
    for problem in problems:
        typer.echo(f"{problem.source}: {problem.message}", err=True)
    sim.run()
    result = explain_pod(sim.scheduler, namespace, name)  # type: ignore[arg-type]
    result["features"] = read.usage
    result["skipped"] = read.skipped
    if output is Output.JSON:
        typer.echo(json.dumps(result, indent=2, default=str))
    elif output is Output.YAML:
        from kubedra.api.io import yaml_emit

        typer.echo(yaml_emit.dump(json.loads(json.dumps(result, default=str))), nl=False)
    elif output is Output.NAME:
        if result["found"]:
            typer.echo(f"pod/{name}")
    else:
        for line in [*result["summary"], *read.skipped, *read.usage]:
            typer.echo(line)
    raise typer.Exit(0 if result["found"] else 1)


def _err(line: str) -> None:
    typer.echo(line, err=True)


def register(app: typer.Typer) -> None:
    app.add_typer(explain_app, name="explain")
