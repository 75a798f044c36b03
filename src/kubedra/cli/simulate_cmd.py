"""``kubedra simulate``: run the DRA control plane on manifests and show what Kubernetes does.

Exit status: 0 when every pod is placed, 2 when some pod stays Pending, 1 for bad input
(unreadable or invalid manifests, a bad timeline, an unknown example).
"""

from __future__ import annotations

import enum
import sys
import time
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from kubedra.cli.options import FeatureGatesOption, feature_gates

if TYPE_CHECKING:
    from rich.console import Console

    from kubedra.cluster.simulation import Simulation

EXIT_PLACED = 0
EXIT_BAD_INPUT = 1
EXIT_PENDING = 2
_PROGRESS_AFTER_S = 0.5


class Output(enum.StrEnum):
    TEXT = "text"
    WIDE = "wide"
    YAML = "yaml"
    JSON = "json"


class GangMode(enum.StrEnum):
    UPSTREAM = "upstream"
    BACKTRACK = "backtrack"


class Policy(enum.StrEnum):
    DEFAULT = "default"
    FIRST_FIT = "first-fit"


def example_names() -> list[str]:
    folder = resources.files("kubedra.cluster") / "examples"
    return sorted(
        p.name.removesuffix(".yaml") for p in folder.iterdir() if p.name.endswith(".yaml")
    )


def _example_text(name: str) -> str | None:
    path = resources.files("kubedra.cluster") / "examples" / f"{name}.yaml"
    return path.read_text() if path.is_file() else None


def simulate(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Manifest files or directories (recursive); - for stdin."),
    ] = None,
    files: Annotated[
        list[Path] | None, typer.Option("--filename", "-f", help="A manifest file (repeatable).")
    ] = None,
    example: Annotated[
        str | None, typer.Option("--example", help="A built-in scenario, e.g. gpu-demo.")
    ] = None,
    output: Annotated[
        Output, typer.Option("--output", "-o", help="text, wide, yaml or json.")
    ] = Output.TEXT,
    namespace: Annotated[
        str, typer.Option("--namespace", "-n", help="Namespace for objects that name none.")
    ] = "default",
    scheduler: Annotated[
        Policy, typer.Option("--scheduler", help="default (kube-scheduler) or first-fit.")
    ] = Policy.DEFAULT,
    seed: Annotated[
        int | None,
        typer.Option("--seed", help="Random pick among tied nodes and random names, seeded."),
    ] = None,
    events: Annotated[
        Path | None, typer.Option("--events", help="A timeline of later changes (YAML).")
    ] = None,
    gates: FeatureGatesOption = None,
    gang: Annotated[
        GangMode,
        typer.Option("--gang", help="upstream (greedy, all-or-nothing) or backtrack (search)."),
    ] = GangMode.UPSTREAM,
    gang_steps: Annotated[
        int, typer.Option("--gang-steps", min=1, help="Node choices --gang backtrack may try.")
    ] = 10_000,
) -> None:
    """Simulate the scheduler, the ResourceClaim controller and the kubelets to a fixed point.

    Shows pods and their nodes, claims and their devices (with the attributes and capacity
    that made them match) and why Pending pods wait. Exits 0 when all pods are placed,
    2 when some stay Pending, 1 for bad input.
    """
    from rich.console import Console

    from kubedra.api.io import LoadedObject, load_paths, load_text
    from kubedra.cluster.simulation import Simulation
    from kubedra.cluster.timeline import TimelineError, load_timeline

    err = Console(stderr=True, highlight=False, soft_wrap=True)
    sources = [*(paths or []), *(files or [])]
    if example is None and not sources:
        err.print("error: give manifests (PATH..., -f FILE, -) or --example NAME")
        raise typer.Exit(EXIT_BAD_INPUT)
    loaded_entries: list[Any] = []
    if example is not None:
        text = _example_text(example)
        if text is None:
            err.print(f"error: no example {example!r}; built-in: {', '.join(example_names())}")
            raise typer.Exit(EXIT_BAD_INPUT)
        loaded_entries += load_text(text, f"example {example}").entries
    if sources:
        loaded_entries += load_paths(sources).entries
    objects = [e for e in loaded_entries if isinstance(e, LoadedObject)]
    load_errors = [e for e in loaded_entries if not isinstance(e, LoadedObject)]
    for error in load_errors:
        err.print(str(error), markup=False)
    steps = []
    if events is not None:
        try:
            steps = load_timeline(events)
        except TimelineError as error:
            err.print(f"error: {error}")
            raise typer.Exit(EXIT_BAD_INPUT) from None
    if load_errors:
        raise typer.Exit(EXIT_BAD_INPUT)

    features = feature_gates(None, gates).allocator_features()
    sim = Simulation(namespace=namespace, policy=scheduler.value, seed=seed, features=features)
    config = getattr(sim.scheduler, "config", None)
    if config is not None:
        config.gang = gang.value
        config.gang_steps = gang_steps
    problems = sim.load([o.wire for o in objects], [o.location() for o in objects])
    for problem in problems:
        err.print(f"{problem.message}\n  in {problem.source}")
    if problems:
        raise typer.Exit(EXIT_BAD_INPUT)

    out = _console(output)
    first_until = None
    if steps:
        from datetime import timedelta

        first_until = sim.clock.now() + timedelta(seconds=steps[0].after)
    _run_with_progress(sim, out, first_until)
    texty = output in (Output.TEXT, Output.WIDE)
    if texty:
        _print_summary(sim, out, wide=output is Output.WIDE)
    from kubedra.cluster.changes import describe
    from kubedra.cluster.clock import START
    from kubedra.cluster.store import StoreError

    for step in steps:

        def action(s: Simulation, step: Any = step) -> None:
            s.clock.advance(step.after)
            step.action(s)

        try:
            result = sim.apply(action, step.description)
        except (StoreError, TimelineError) as error:
            err.print(f"error: step {step.index + 1} ({step.description}): {error}")
            raise typer.Exit(EXIT_BAD_INPUT) from None
        if texty:
            at = ((result.time or sim.clock.now()) - START).total_seconds()
            out.print(f"\n[bold]Step {step.index + 1}[/] (t=+{at:g}s): {step.description}")
            for line in describe(result.events) or ["nothing changed"]:
                out.print(f"  {line}", markup=False)
            moved = (sim.clock.now() - START).total_seconds()
            if moved != at:
                out.print(f"  (the clock moved on to t=+{moved:g}s)")
    if steps and texty:
        out.print("\n[bold]After the timeline[/]")
        _print_summary(sim, out, wide=output is Output.WIDE)
    if output is Output.YAML:
        from kubedra.api.io import dump_yaml

        sys.stdout.write(dump_yaml(sim.objects()))
    elif output is Output.JSON:
        from kubedra.api.io import dump_json

        sys.stdout.write(dump_json(sim.objects()))
    raise typer.Exit(EXIT_PENDING if _pending(sim) else EXIT_PLACED)


def _console(output: Output) -> Console:
    from rich.console import Console

    if sys.stdout.isatty():
        return Console(highlight=False)
    return Console(highlight=False, width=240, soft_wrap=False)


def _run_with_progress(sim: Simulation, out: Console, until: Any) -> None:
    """Run; a progress bar appears (on a terminal only) when the run takes a moment."""
    if not sys.stderr.isatty():
        sim.run(until=until)
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    started = time.monotonic()
    total = max(sim.store.count("Pod"), 1)
    state: dict[str, Any] = {}

    def on_cycle() -> None:
        progress = state.get("progress")
        if progress is None:
            if time.monotonic() - started < _PROGRESS_AFTER_S:
                return
            progress = Progress(
                TextColumn("scheduling"), BarColumn(), MofNCompleteColumn(), transient=True
            )
            progress.start()
            state["progress"] = progress
            state["task"] = progress.add_task("pods", total=total)
        progress.update(state["task"], completed=min(len(sim.scheduler.decisions), total))

    try:
        sim.run(on_cycle, until)
    finally:
        if "progress" in state:
            state["progress"].stop()


def _pending(sim: Simulation) -> list[dict[str, Any]]:
    return [
        pod
        for pod in sim.store.list("Pod")
        if not pod["spec"].get("nodeName")
        and (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
    ]


def _reason(sim: Simulation, pod: dict[str, Any]) -> str:
    message = ""
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "PodScheduled" and condition.get("status") == "False":
            message = str(condition.get("message") or condition.get("reason") or "")
    meta = pod["metadata"]
    decision = getattr(sim.scheduler, "last_decision", {}).get(
        f"{meta['namespace']}/{meta['name']}"
    )
    if decision is not None and getattr(decision, "result", None) == "WaitingForBinding":
        waiting = f"waiting in PreBind for the devices' binding conditions (node {decision.node})"
        return f"{waiting}; before: {message}" if message else waiting
    return message or "waiting to be scheduled"


def _print_summary(sim: Simulation, out: Console, wide: bool) -> None:
    from rich.table import Table

    from kubedra.cluster.podclaims import pod_claim_names
    from kubedra.cluster.report import MatchedValues, request_reports

    pods = sim.store.list("Pod")
    nodes = sim.store.list("Node")
    pending = _pending(sim)
    out.print(
        f"[bold]{len(pods)} pod(s) on {len(nodes)} node(s)[/]: "
        f"{len(pods) - len(pending)} placed, {len(pending)} pending"
    )
    table = Table(box=None, header_style="bold", pad_edge=False)
    for column in ["POD", "NODE", "STATUS", "CLAIMS", *(["PRIORITY", "QOS"] if wide else [])]:
        table.add_column(column)
    for pod in pods[:200] if not wide else pods:
        meta, status = pod["metadata"], pod.get("status") or {}
        claims = ", ".join(name for name, _ in pod_claim_names(pod)) or "-"
        row = [
            f"{meta['namespace']}/{meta['name']}",
            pod["spec"].get("nodeName") or "-",
            status.get("phase", "Pending"),
            claims,
        ]
        if wide:
            row += [str(pod["spec"].get("priority", 0)), status.get("qosClass", "")]
        table.add_row(*row)
    out.print(table)
    if len(pods) > 200 and not wide:
        out.print(f"... and {len(pods) - 200} more pods (-o wide shows all)")

    claims_table = Table(box=None, header_style="bold", pad_edge=False, title_justify="left")
    matched = MatchedValues(sim.store)
    columns = ["CLAIM", "REQUEST", "DEVICE", "MATCHED ON", "RESERVED FOR"]
    if wide:
        columns.append("NODE SELECTOR")
    for column in columns:
        claims_table.add_column(column)
    shown = 0
    for claim in sim.store.list("ResourceClaim"):
        meta, status = claim["metadata"], claim.get("status") or {}
        allocation = status.get("allocation") or {}
        results = (allocation.get("devices") or {}).get("results") or []
        reserved = ", ".join(r.get("name", "") for r in status.get("reservedFor") or []) or "-"
        if not results:
            results = [{"request": "-", "device": None}]
        for result in results:
            device = (
                f"{result.get('driver')}/{result.get('pool')}/{result.get('device')}"
                if result.get("device")
                else "(not allocated)"
            )
            why = matched.describe(claim, result) if result.get("device") else ""
            row = [
                f"{meta['namespace']}/{meta['name']}",
                str(result.get("request")),
                device,
                why or "-",
                reserved,
            ]
            if wide:
                row.append(_node_selector(allocation))
            if shown < 200 or wide:
                claims_table.add_row(*row)
            shown += 1
    if shown:
        out.print()
        out.print(claims_table)
        if shown > 200 and not wide:
            out.print(f"... and {shown - 200} more claim devices (-o wide shows all)")

    for report in request_reports(sim.store):
        out.print()
        selectors = " && ".join(report.selectors) or "(no request selectors)"
        out.print(
            f"[bold]Devices for {report.claim} request {report.request}[/] "
            f"(class {report.device_class}):",
        )
        out.print(f"  selector: {selectors}", markup=False)
        device_table = Table(box=None, header_style="bold", pad_edge=False)
        names = list(report.devices[0].values) if report.devices else []
        for column in ["  DEVICE", "NODE", *names, "MATCH"]:
            device_table.add_column(column)
        for device_row in report.devices:
            verdict = "yes" if device_row.matches else f"no ({device_row.reason})"
            if device_row.allocated:
                verdict += " -> allocated"
            device_table.add_row(
                f"  {device_row.device}",
                device_row.node,
                *[device_row.values[n] for n in names],
                verdict,
            )
        out.print(device_table)

    if pending:
        out.print()
        out.print("[bold]Pending[/]")
        for pod in pending:
            meta = pod["metadata"]
            out.print(f"  {meta['namespace']}/{meta['name']}: {_reason(sim, pod)}", markup=False)
    for event in sim.controller_events:
        out.print(f"  {event.type} {event.reason} {event.object}: {event.message}", markup=False)


def _node_selector(allocation: dict[str, Any]) -> str:
    terms = (allocation.get("nodeSelector") or {}).get("nodeSelectorTerms") or []
    parts = []
    for term in terms:
        for expr in [*(term.get("matchFields") or []), *(term.get("matchExpressions") or [])]:
            parts.append(
                f"{expr.get('key')} {expr.get('operator')} {','.join(expr.get('values') or [])}"
            )
    return "; ".join(parts) or "-"


def register(app: typer.Typer) -> None:
    app.command(name="simulate")(simulate)
