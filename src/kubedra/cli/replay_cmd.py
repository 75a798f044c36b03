"""``kubedra replay CLUSTER... --trace TRACE``: a workload over time on the simulated cluster.

Exit status: 0 when the replay ran (whatever became of the pods), 1 for bad input (an
unreadable cluster or trace, a bad flag value, matplotlib missing for ``--plot``).
"""

from __future__ import annotations

import enum
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from kubedra.api.limits import DEFAULT_MAX_PODS
from kubedra.cli import options, sim_flags
from kubedra.cli.sim_flags import GangMode, Policy, PreemptionMode

EXIT_DONE = 0
EXIT_BAD_INPUT = 1
_PROGRESS_EVERY_S = 0.2


class ReplayOutput(enum.StrEnum):
    TEXT = "text"
    JSON = "json"
    YAML = "yaml"


def replay(
    paths: options.Paths = None,
    trace: Annotated[
        Path | None,
        typer.Option(
            "--trace",
            help="The trace: YAML list or JSON Lines of arrivals and timeline actions.",
            show_default=False,
        ),
    ] = None,
    filename: options.Filename = None,
    recursive: options.Recursive = False,
    namespace: options.Namespace = None,
    kubernetes_version: options.KubernetesVersion = None,
    feature_gates: options.FeatureGatesOption = None,
    until: Annotated[
        str | None,
        typer.Option("--until", help="Stop the clock there (e.g. 12h, 7d).", show_default=False),
    ] = None,
    step: Annotated[
        str | None,
        typer.Option(
            "--step",
            help="Sample the series every DURATION (default: at every change).",
            show_default=False,
        ),
    ] = None,
    output: Annotated[
        ReplayOutput, typer.Option("--output", "-o", help="text (default), json or yaml.")
    ] = ReplayOutput.TEXT,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot", help="Write charts (PNG and SVG) into DIR (matplotlib).", show_default=False
        ),
    ] = None,
    series: Annotated[
        Path | None,
        typer.Option("--series", help="Write the time series to FILE.csv.", show_default=False),
    ] = None,
    max_pods: options.MaxPods = DEFAULT_MAX_PODS,
    keep_finished: Annotated[
        bool,
        typer.Option("--keep-finished", help="Keep finished pods in the cluster (memory)."),
    ] = False,
    scheduler: sim_flags.SchedulerOption = Policy.DEFAULT,
    seed: sim_flags.SeedOption = None,
    placement: options.PlacementPolicy = None,
    device_policy: options.DevicePolicy = None,
    node_score: options.NodeScore = None,
    gang: sim_flags.GangOption = GangMode.UPSTREAM,
    preemption: sim_flags.PreemptionOption = PreemptionMode.UPSTREAM,
    preemption_sets: sim_flags.PreemptionSetsOption = sim_flags.DEFAULT_PREEMPTION_SETS,
    gang_steps: sim_flags.GangStepsOption = sim_flags.DEFAULT_GANG_STEPS,
) -> None:
    """Replay a trace over time on the simulated cluster: pods arrive, run their duration
    once bound and finish, releasing their devices; timeline actions (cordon, drain, taint,
    ...) happen at their time. The clock jumps from event to event.

    Prints per pod its arrival, binding, node, end and wait, and a summary: waits
    (p50/p90/p99/max, per DeviceClass and priority), makespan, device-hours allocated and
    available per DeviceClass, pool and GPU model, stranded capacity. -o json|yaml prints
    everything including the time series; --series writes the series as CSV, --plot charts.

    Exits 0 when the replay ran, 1 for bad input.
    """
    from rich.console import Console

    from kubedra.cli.sim_input import InputFlags, gather_shown, stop_if_unreadable
    from kubedra.cluster.timeline import TimelineError, parse_duration
    from kubedra.replay import Replay, SampleLimitError, TraceError, load_trace

    err = Console(stderr=True, highlight=False, soft_wrap=True)

    def echo(line: str) -> None:
        err.print(line, markup=False)

    def fail(message: str) -> None:
        echo(f"error: {message}")
        raise typer.Exit(EXIT_BAD_INPUT)

    if trace is None:
        fail("give the trace: --trace TRACE.yaml (see docs/reference/trace-format.md)")
        return
    try:
        until_s = parse_duration(until, "--until") if until is not None else None
        step_s = parse_duration(step, "--step") if step is not None else None
    except TimelineError as error:
        fail(str(error))
        return
    if step_s is not None and step_s <= 0:
        fail("--step: must be more than 0")
    if plot is not None:
        from kubedra.replay.plot import PlotError, check_available

        try:
            check_available()
        except PlotError as error:
            fail(str(error))
    flags = InputFlags(
        paths,
        filename,
        recursive,
        None,
        None,
        None,
        namespace,
        kubernetes_version,
        feature_gates,
        max_pods=max_pods,
    )
    read = gather_shown(flags, echo, EXIT_BAD_INPUT)
    try:
        loaded = load_trace(trace, namespace or "default", read.gates.release, max_pods)
    except TraceError as error:
        echo(f"error: {error}")
        stop_if_unreadable(read, echo, EXIT_BAD_INPUT)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    stop_if_unreadable(read, echo, EXIT_BAD_INPUT)
    for line in read.skipped:
        echo(line)
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
        echo(f"{problem.message}\n  in {problem.source}")
    if problems:
        raise typer.Exit(EXIT_BAD_INPUT)

    horizon = until_s if until_s is not None else loaded.span
    progress = _progress(horizon) if sys.stderr.isatty() else None
    try:
        run = Replay(
            sim,
            loaded,
            until=until_s,
            step=step_s,
            keep_finished=keep_finished,
            on_progress=progress.update if progress is not None else None,
        )
        del loaded  # the replay lets each entry's objects go once they are created
        state = run.run()
    except SampleLimitError as error:
        fail(str(error))
        return
    finally:
        if progress is not None:
            progress.stop()
    _write_outputs(state, output, series, plot, echo, fail)
    raise typer.Exit(EXIT_DONE)


def _write_outputs(
    state: Any,
    output: ReplayOutput,
    series: Path | None,
    plot: Path | None,
    echo: Any,
    fail: Any,
) -> None:
    from kubedra.replay import report

    if series is not None:
        try:
            state.series.write_csv(series)
        except OSError as error:
            fail(f"--series {series}: {error.strerror or error}")
        echo(f"wrote {series} ({len(state.series)} samples)")
    if plot is not None:
        from kubedra.replay.plot import PlotError
        from kubedra.replay.plot import plot as draw

        try:
            written = draw(state, plot)
        except PlotError as error:
            fail(str(error))
            return
        echo(f"wrote {len(written)} charts to {plot}: {', '.join(p.name for p in written)}")
    if output is ReplayOutput.JSON:
        import json

        sys.stdout.write(json.dumps(report.document(state), indent=2) + "\n")
    elif output is ReplayOutput.YAML:
        from kubedra.api.io import yaml_emit

        sys.stdout.write(yaml_emit.dump(report.document(state)))
    else:
        for line in report.text(state):
            typer.echo(line)


class _Progress:
    """A progress bar on standard error: simulated time reached, pods done, pods/s."""

    def __init__(self, span: float) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn

        self._bar = Progress(
            TextColumn("replaying"),
            BarColumn(),
            TextColumn("{task.fields[clock]}"),
            TextColumn("{task.fields[pods]}"),
            console=Console(stderr=True),  # standard output stays the report alone
            transient=True,
        )
        self._task = self._bar.add_task("replay", total=max(span, 1.0), clock="", pods="")
        self._started = time.monotonic()
        self._last = 0.0
        self._bar.start()

    def update(self, now: float, done: int, arrived: int) -> None:
        wall = time.monotonic()
        if wall - self._last < _PROGRESS_EVERY_S:
            return
        self._last = wall
        from kubedra.replay.report import human

        rate = done / max(wall - self._started, 1e-9)
        self._bar.update(
            self._task,
            completed=now,
            clock=f"t={human(now)}",
            pods=f"{done}/{arrived} pods done, {rate:.0f} pods/s",
        )

    def stop(self) -> None:
        self._bar.stop()


def _progress(span: float) -> _Progress:
    return _Progress(span)


def register(app: typer.Typer) -> None:
    app.command(
        name="replay", context_settings=options.CONTEXT_SETTINGS, epilog=options.POLICY_HELP
    )(replay)
