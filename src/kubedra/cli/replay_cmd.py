"""``kubedra replay CLUSTER... --trace TRACE``: a workload over time on the simulated cluster.

Also the paper's experiment (``--inflate --until-demand R``), side-by-side comparisons
(``--compare FILE``, ``--policy a,b,c``) and sweeps (``--sweep FILE``, in worker processes or
on Ray); those run every configuration as one cell through kubedra.cli.replay_cells.

Exit status: 0 when the replay ran (whatever became of the pods), 1 for bad input (an
unreadable cluster or trace, a bad flag value, matplotlib missing for ``--plot``). A
comparison or sweep exits 3 when a cell failed (the others are still reported).
"""

from __future__ import annotations

import enum
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from kubedra.api.limits import DEFAULT_MAX_PODS
from kubedra.cli import options, sim_flags
from kubedra.cli.replay_run import ReplayRequest
from kubedra.cli.sim_flags import GangMode, Policy, PreemptionMode

EXIT_DONE = 0
EXIT_BAD_INPUT = 1
EXIT_CELL_FAILED = 3
_PROGRESS_EVERY_S = 0.2


class ReplayOutput(enum.StrEnum):
    TEXT = "text"
    JSON = "json"
    YAML = "yaml"


class RequestSink:
    """Given as the click context's ``obj``, it receives the request instead of running it:
    how kubedra.cli.replay_cells parses a cell's flags with this very command."""

    def __init__(self) -> None:
        self.request: ReplayRequest | None = None


def replay(
    ctx: typer.Context,
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
    inflate: Annotated[
        bool,
        typer.Option(
            "--inflate",
            help="The paper's experiment: tasks arrive in trace order, are placed at once or "
            "fail, and never end, until --until-demand of the devices is asked for.",
        ),
    ] = False,
    until_demand: Annotated[
        float | None,
        typer.Option(
            "--until-demand",
            help="With --inflate: stop before the arrived demand passes R x the devices "
            "(default 1.3).",
            metavar="R",
            show_default=False,
        ),
    ] = None,
    shuffle: Annotated[
        bool,
        typer.Option("--shuffle", help="With --inflate: tasks arrive in a random order (--seed)."),
    ] = False,
    compare: Annotated[
        list[Path] | None,
        typer.Option(
            "--compare",
            help="Run the trace under each configuration FILE ({name, args}) side by side; "
            "repeatable, or comma-separated.",
            metavar="FILE",
            show_default=False,
        ),
    ] = None,
    sweep: Annotated[
        Path | None,
        typer.Option(
            "--sweep",
            help="Run every cell of a sweep FILE ({runs, configs, seeds}).",
            metavar="FILE",
            show_default=False,
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            help="--compare/--sweep: cells at once, in worker processes (default: the CPUs).",
            show_default=False,
        ),
    ] = None,
    ray: Annotated[
        bool,
        typer.Option(
            "--ray",
            help="--sweep: every cell a Ray task, on the Ray cluster at --ray-address (else "
            "RAY_ADDRESS, else a new local Ray). pip install 'kubedra[ray]'.",
        ),
    ] = False,
    ray_address: Annotated[
        str | None,
        typer.Option(
            "--ray-address",
            help="With --ray: the cluster, as ray.init takes it (auto, ray://HEAD:10001, ...).",
            metavar="ADDRESS",
            show_default=False,
        ),
    ] = None,
    table: Annotated[
        Path | None,
        typer.Option(
            "--table",
            help="--compare/--sweep: write one row per cell to FILE (.csv or .json).",
            metavar="FILE",
            show_default=False,
        ),
    ] = None,
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

    --inflate runs the paper's experiment instead (tasks never end; the devices allocated
    and unallocated as the arrived demand grows). --compare FILE... or --policy a,b,c runs
    the trace under several configurations side by side; --sweep FILE runs a matrix of
    traces, configurations and seeds, in worker processes or on Ray (--ray).

    Exits 0 when the replay ran, 1 for bad input, 3 when a cell of a comparison or sweep
    failed.
    """
    policies = [p.strip() for p in (placement or "").split(",")] if placement else []
    scheduling = sim_flags.SchedulerFlags(
        scheduler,
        seed,
        device_policy,
        node_score,
        gang,
        preemption,
        preemption_sets,
        gang_steps,
        placement if len(policies) <= 1 else None,
    )
    request = ReplayRequest(
        tuple(paths or ()),
        tuple(filename or ()),
        recursive,
        namespace,
        kubernetes_version,
        feature_gates,
        trace,
        until,
        step,
        keep_finished,
        scheduling,
        inflate,
        until_demand,
        shuffle,
        max_pods,
    )
    if isinstance(ctx.obj, RequestSink):
        ctx.obj.request = request
        return
    from rich.console import Console

    err = Console(stderr=True, highlight=False, soft_wrap=True)

    def echo(line: str) -> None:
        err.print(line, markup=False)

    def fail(message: str) -> NoReturn:
        echo(f"error: {message}")
        raise typer.Exit(EXIT_BAD_INPUT)

    if plot is not None:
        from kubedra.replay.plot import PlotError, check_available

        try:
            check_available()
        except PlotError as error:
            fail(str(error))
    many = sweep is not None or bool(compare) or len(policies) > 1
    if not many:
        for flag, given in (
            ("--workers", workers is not None),
            ("--ray", ray),
            ("--ray-address", ray_address is not None),
            ("--table", table is not None),
        ):
            if given:
                fail(f"{flag} is for --compare, --policy a,b,... and --sweep")
        _single(request, output, series, plot, echo, fail)
        return
    from kubedra.cli import replay_compare

    if series is not None:
        fail("--series is for one replay, not --compare or --sweep (see --table)")
    if ray_address is not None and not ray:
        fail("--ray-address needs --ray")
    settings = replay_compare.Settings(
        output.value, plot, table, workers, ray, ray_address, echo, fail
    )
    if sweep is not None:
        if paths or filename or trace is not None or compare or len(policies) > 1:
            fail(
                "--sweep names its runs and configurations: give no cluster paths, -f, "
                "--trace, --compare or policy list beside it"
            )
        base = replay_compare.command_line_args(ctx, exclude=replay_compare.NOT_IN_CELLS)
        code = replay_compare.run_sweep(sweep, base, settings)
    else:
        if ray:
            fail("--ray is for --sweep (its files travel to the Ray cluster with the sweep file)")
        exclude = replay_compare.NOT_IN_CELLS
        if len(policies) > 1:
            exclude = exclude | {"placement"}  # each column gets its own --policy
        base = replay_compare.command_line_args(ctx, exclude=exclude)
        code = replay_compare.run_compare(list(compare or []), policies, base, request, settings)
    raise typer.Exit(code)


def _single(
    request: ReplayRequest,
    output: ReplayOutput,
    series: Path | None,
    plot: Path | None,
    echo: Any,
    fail: Any,
) -> NoReturn:
    from kubedra.cli.replay_run import run_request

    progress = _Progress() if sys.stderr.isatty() else None
    state = run_request(request, echo, fail, EXIT_BAD_INPUT, progress)
    if request.inflate:
        _write_inflate(state, output, series, plot, echo, fail)
    else:
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
    """A replay's outputs: its series as CSV, its charts, then the report."""
    from kubedra.replay import report
    from kubedra.replay.plot import plot as draw

    _write(state, output, series, plot, echo, fail, state.series.write_csv, draw, report)


def _write_inflate(
    state: Any,
    output: ReplayOutput,
    series: Path | None,
    plot: Path | None,
    echo: Any,
    fail: Any,
) -> None:
    """The paper's experiment's outputs: the same files, its own series, chart and report."""
    from kubedra.replay import inflate_report
    from kubedra.replay.plot_compare import Line, plot_lines

    def draw(state: Any, directory: Path) -> list[Path]:
        return plot_lines([Line("this run", inflate_report.curves(state))], directory)

    def write_csv(path: Path) -> None:
        inflate_report.write_csv(state, path)

    _write(state, output, series, plot, echo, fail, write_csv, draw, inflate_report)


def _write(
    state: Any,
    output: ReplayOutput,
    series: Path | None,
    plot: Path | None,
    echo: Any,
    fail: Any,
    write_csv: Callable[[Path], None],
    draw: Callable[[Any, Path], list[Path]],
    report: Any,
) -> None:
    """``report`` is the module that has ``document(state)`` and ``text(state)``."""
    if series is not None:
        try:
            write_csv(series)
        except OSError as error:
            fail(f"--series {series}: {error.strerror or error}")
        echo(f"wrote {series} ({len(state.series)} samples)")
    if plot is not None:
        from kubedra.replay.plot import PlotError

        try:
            written = draw(state, plot)
        except PlotError as error:
            fail(str(error))
            return
        echo(f"wrote {len(written)} charts to {plot}: {', '.join(p.name for p in written)}")
    _print(report.document(state) if output is not ReplayOutput.TEXT else None, output)
    if output is ReplayOutput.TEXT:
        for line in report.text(state):
            typer.echo(line)


def _print(document: Any, output: ReplayOutput) -> None:
    if output is ReplayOutput.JSON:
        import json

        sys.stdout.write(json.dumps(document, indent=2) + "\n")
    elif output is ReplayOutput.YAML:
        from kubedra.api.io import yaml_emit

        sys.stdout.write(yaml_emit.dump(document))


class _Progress:
    """A progress bar on standard error: simulated time (or arrived demand) reached, pods
    done, pods/s."""

    def __init__(self) -> None:
        self._bar: Any = None

    def start(self, span: float, kind: str) -> Any:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn

        self._kind = kind
        self._bar = Progress(
            TextColumn("replaying" if kind == "time" else "inflating"),
            BarColumn(),
            TextColumn("{task.fields[clock]}"),
            TextColumn("{task.fields[pods]}"),
            console=Console(stderr=True),  # standard output stays the report alone
            transient=True,
        )
        self._task = self._bar.add_task("replay", total=max(span, 1e-9), clock="", pods="")
        self._started = time.monotonic()
        self._last = 0.0
        self._bar.start()
        return self.update

    def update(self, now: float, done: int, other: int) -> None:
        wall = time.monotonic()
        if wall - self._last < _PROGRESS_EVERY_S:
            return
        self._last = wall
        rate = done / max(wall - self._started, 1e-9)
        if self._kind == "time":
            from kubedra.replay.report import human

            clock = f"t={human(now)}"
            pods = f"{done}/{other} pods done, {rate:.0f} pods/s"
        else:
            clock = f"demand {100 * now:.1f}%"
            pods = f"{done} tasks, {other} pods failed, {rate:.0f} tasks/s"
        self._bar.update(self._task, completed=now, clock=clock, pods=pods)

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


def register(app: typer.Typer) -> None:
    app.command(
        name="replay", context_settings=options.CONTEXT_SETTINGS, epilog=options.POLICY_HELP
    )(replay)
