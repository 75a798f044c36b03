"""``kubedra simulate``: run the DRA control plane on manifests and show what Kubernetes does.

Exit status: 0 when every pod is placed, 2 when some pod stays Pending, 1 for bad input
(unreadable or invalid manifests, a bad timeline, an unknown example).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from kubedra.api.limits import DEFAULT_MAX_NODES, DEFAULT_MAX_PODS
from kubedra.cli import options, sim_flags
from kubedra.cli.options import Output
from kubedra.cli.sim_flags import GangMode, Policy, PreemptionMode

if TYPE_CHECKING:
    from rich.console import Console

    from kubedra.cli.sim_input import SimInput
    from kubedra.cluster.simulation import Simulation

EXIT_PLACED = 0
EXIT_BAD_INPUT = 1
EXIT_PENDING = 2
_PROGRESS_AFTER_S = 0.5
DEFAULT_ROWS = 200
"""Rows of the pod and claim tables in text output unless --limit says otherwise."""


def simulate(
    paths: options.Paths = None,
    filename: options.Filename = None,
    recursive: options.Recursive = False,
    example: Annotated[
        str | None, typer.Option("--example", help="A built-in scenario, e.g. gpu-demo.")
    ] = None,
    output: options.OutputOption = Output.TEXT,
    namespace: options.Namespace = None,
    kubeconfig: options.Kubeconfig = None,
    context: options.Context = None,
    kubernetes_version: options.KubernetesVersion = None,
    feature_gates: options.FeatureGatesOption = None,
    max_pods: options.MaxPods = DEFAULT_MAX_PODS,
    max_nodes: options.MaxNodes = DEFAULT_MAX_NODES,
    scheduler: sim_flags.SchedulerOption = Policy.DEFAULT,
    seed: sim_flags.SeedOption = None,
    events: Annotated[
        Path | None, typer.Option("--events", help="A timeline of later changes (YAML).")
    ] = None,
    what_if: Annotated[
        Path | None,
        typer.Option("--what-if", help="Steps (YAML) to apply after it, each shown as a diff."),
    ] = None,
    placement: options.PlacementPolicy = None,
    device_policy: options.DevicePolicy = None,
    node_score: options.NodeScore = None,
    gang: sim_flags.GangOption = GangMode.UPSTREAM,
    preemption: sim_flags.PreemptionOption = PreemptionMode.UPSTREAM,
    preemption_sets: sim_flags.PreemptionSetsOption = sim_flags.DEFAULT_PREEMPTION_SETS,
    gang_steps: sim_flags.GangStepsOption = sim_flags.DEFAULT_GANG_STEPS,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            min=0,
            help=f"Rows of the pod and claim tables (0: all; default: {DEFAULT_ROWS} for -o "
            "text, all for -o wide).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Simulate the scheduler, the ResourceClaim controller and the kubelets to a fixed point.

    Shows pods and their nodes, claims and their devices (with the attributes and capacity
    that made them match) and why Pending pods wait. --events applies later changes and shows
    what the controllers did; --what-if applies steps (after --events) and shows per step
    which pods moved, were evicted or became Pending and which claims changed. Workloads
    (Deployments, Jobs, StatefulSets, DaemonSets, ReplicaSets) become the pods their
    controllers would create; other kinds kubedra does not model are listed as skipped.
    --kubeconfig/--context start from a live cluster's snapshot (read-only), to which files
    may add objects. The DRA
    features the input uses are named with their maturity in --kubernetes-version.

    The pod and claim tables stop after 200 rows (... and N more pods); --limit N changes
    that, --limit 0 shows every row.

    Exits 0 when all pods are placed, 2 when some stay Pending, 1 for bad input.
    """
    from rich.console import Console

    from kubedra.cli.sim_input import InputFlags, gather_shown, stop_if_unreadable
    from kubedra.cluster.steps import load_steps
    from kubedra.cluster.timeline import TimelineError

    err = Console(stderr=True, highlight=False, soft_wrap=True)

    def echo(line: str) -> None:
        err.print(line, markup=False)

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
    read = gather_shown(flags, echo, EXIT_BAD_INPUT)
    steps: list[Any] = []
    what_if_steps: list[Any] = []
    try:
        if events is not None:
            steps = load_steps(events, max_nodes)
        if what_if is not None:
            what_if_steps = load_steps(what_if, max_nodes)
    except TimelineError as error:
        err.print(f"error: {error}", markup=False)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    stop_if_unreadable(read, echo, EXIT_BAD_INPUT)
    if output not in (Output.TEXT, Output.WIDE):  # keep standard output machine-readable
        for line in read.skipped:
            err.print(line, markup=False)

    from kubedra.planning.cluster import PlanInputError

    def fail(message: str) -> None:
        err.print(f"error: {message}", markup=False)
        raise typer.Exit(EXIT_BAD_INPUT)

    scheduling = sim_flags.SchedulerFlags(
        scheduler,
        seed,
        device_policy,
        node_score,
        gang,
        preemption,
        preemption_sets,
        gang_steps,
        placement,
    )
    sim = scheduling.simulation(namespace or "default", read.features, fail, read.admission)
    problems = sim.load(read.objects, read.sources)
    for problem in problems:
        err.print(f"{problem.message}\n  in {problem.source}", markup=False)
    if problems:
        raise typer.Exit(EXIT_BAD_INPUT)

    out = _console(output)
    first_until = None
    every_step = [*steps, *what_if_steps]
    if every_step:
        from datetime import timedelta

        first_until = sim.clock.now() + timedelta(seconds=every_step[0].after)
    _run_with_progress(sim, out, first_until)
    texty = output in (Output.TEXT, Output.WIDE)
    rows = _rows(limit, wide=output is Output.WIDE)
    if texty:
        _print_summary(sim, out, output is Output.WIDE, rows)
        _print_input_notes(read, out)
    from kubedra.cluster.changes import describe
    from kubedra.cluster.clock import START
    from kubedra.cluster.store import StoreError

    for i, step in enumerate(steps):

        def action(s: Simulation, step: Any = step) -> None:
            s.clock.advance(step.after)
            step.action(s)

        # the clock stops when the next step (of --events, else of --what-if) is due
        run_for = every_step[i + 1].after if i + 1 < len(every_step) else None
        try:
            result = sim.apply(action, step.description, run_for)
        except (StoreError, TimelineError, PlanInputError) as error:
            err.print(f"error: step {step.index + 1} ({step.description}): {error}", markup=False)
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
        _print_summary(sim, out, output is Output.WIDE, rows)
    if what_if_steps:
        _what_if(sim, what_if_steps, out, err, texty, output is Output.WIDE, rows)
    if output is Output.YAML:
        from kubedra.api.io import dump_yaml

        sys.stdout.write(dump_yaml(sim.objects()))
    elif output is Output.JSON:
        from kubedra.api.io import dump_json

        sys.stdout.write(dump_json(sim.objects()))
    elif output is Output.NAME:
        from kubedra.cli.validate_report import resource_name

        for obj in sim.objects():
            out.print(resource_name(obj), markup=False)
    raise typer.Exit(EXIT_PENDING if _pending(sim) else EXIT_PLACED)


def _what_if(
    sim: Simulation,
    steps: list[Any],
    out: Console,
    err: Console,
    texty: bool,
    wide: bool,
    rows: int | None,
) -> None:
    """Apply the --what-if steps with plan what-if's engine and print its per-step diffs."""
    from kubedra.cluster.timeline import TimelineError
    from kubedra.planning.cluster import PlanInputError
    from kubedra.planning.whatif import report_lines
    from kubedra.planning.whatif import what_if as apply_steps

    try:
        diffs = apply_steps(sim, steps)
    except (TimelineError, PlanInputError) as error:
        err.print(f"error: {error}", markup=False)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    if not texty:
        return
    out.print("\n[bold]What if[/]")
    for line in report_lines(diffs):
        out.print(line, markup=False)
    out.print("\n[bold]After the what-if steps[/]")
    _print_summary(sim, out, wide, rows)


def _print_input_notes(read: SimInput, out: Console) -> None:
    """Skipped kinds, expanded workloads and the DRA features used, after the summary."""
    lines = [*read.expanded, *read.skipped, *read.usage]
    if lines:
        out.print()
    for line in lines:
        out.print(line, markup=False)


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
    from rich.console import Console
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
                TextColumn("scheduling"),
                BarColumn(),
                MofNCompleteColumn(),
                console=Console(stderr=True),  # standard output carries -o yaml|json
                transient=True,
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
    if message:
        return message
    # PreEnqueue keeps a pod whose claims are missing out of the queue, so no attempt wrote a
    # condition; say what it waits for, as `kubedra explain pod` does.
    dra = getattr(sim.scheduler, "dra", None)
    gate = dra.pre_enqueue(pod) if dra is not None else None
    return f"not scheduled yet: {gate}" if gate else "waiting to be scheduled"


def _rows(limit: int | None, wide: bool) -> int | None:
    """How many rows the tables show (None: all): --limit, else 200 (all with -o wide)."""
    if limit is None:
        return None if wide else DEFAULT_ROWS
    return limit or None


def _print_summary(sim: Simulation, out: Console, wide: bool, rows: int | None) -> None:
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
    for pod in pods[:rows]:
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
    if rows is not None and len(pods) > rows:
        out.print(f"... and {len(pods) - rows} more pods (--limit 0 shows all)")

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
            if rows is None or shown < rows:
                claims_table.add_row(*row)
            shown += 1
    if shown:
        out.print()
        out.print(claims_table)
        if rows is not None and shown > rows:
            out.print(f"... and {shown - rows} more claim devices (--limit 0 shows all)")

    for report in request_reports(sim.store):
        out.print()
        selectors = " && ".join(report.selectors) or "(no request selectors)"
        out.print(
            f"[bold]Devices for {report.claim} request {report.request}[/] "
            f"(class {report.device_class}):",
        )
        if report.problem:
            out.print(f"  no devices: {report.problem}", markup=False)
            continue
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
    app.command(
        name="simulate", context_settings=options.CONTEXT_SETTINGS, epilog=options.POLICY_HELP
    )(simulate)
