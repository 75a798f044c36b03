"""One replay as ``kubedra replay`` runs it: from the flag values to the result.

``kubedra replay`` runs one request itself; ``--compare`` and ``--sweep`` run one per cell
(kubedra.cli.replay_cells), in this process, in worker processes or as Ray tasks, all
through :func:`run_request`, so that a cell decides exactly what the same flags decide alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from kubedra.api.limits import DEFAULT_MAX_PODS
from kubedra.cli.sim_flags import SchedulerFlags

if TYPE_CHECKING:
    from kubedra.replay import ReplayState
    from kubedra.replay.inflate import InflateState

Echo = Callable[[str], None]
Fail = Callable[[str], NoReturn]

DEFAULT_UNTIL_DEMAND = 1.3
"""--until-demand's default: the paper's runs fill the cluster to 130% of its GPUs."""


@dataclass(frozen=True)
class ReplayRequest:
    """The values of ``kubedra replay``'s flags that say what to replay and how."""

    paths: tuple[Path, ...] = ()
    filenames: tuple[Path, ...] = ()
    recursive: bool = False
    namespace: str | None = None
    kubernetes_version: str | None = None
    feature_gates: str | None = None
    trace: Path | None = None
    until: str | None = None
    step: str | None = None
    keep_finished: bool = False
    scheduling: SchedulerFlags = field(default_factory=SchedulerFlags)
    inflate: bool = False
    until_demand: float | None = None
    shuffle: bool = False
    max_pods: int = DEFAULT_MAX_PODS


@dataclass(frozen=True)
class Timing:
    """--until and --step in seconds."""

    until: float | None
    step: float | None


def check(request: ReplayRequest) -> Timing:
    """The checks that need no input read: raises ValueError with the message to show."""
    from kubedra.cluster.timeline import TimelineError, parse_duration

    if request.trace is None:
        raise ValueError("give the trace: --trace TRACE.yaml (see docs/reference/trace-format.md)")
    try:
        until = parse_duration(request.until, "--until") if request.until is not None else None
        step = parse_duration(request.step, "--step") if request.step is not None else None
    except TimelineError as error:
        raise ValueError(str(error)) from None
    if step is not None and step <= 0:
        raise ValueError("--step: must be more than 0")
    if request.inflate:
        for flag, given in (
            ("--until", request.until is not None),
            ("--step", request.step is not None),
            ("--keep-finished", request.keep_finished),
        ):
            if given:
                raise ValueError(f"{flag} is for a replay over time, not --inflate")
        if request.until_demand is not None:
            from kubedra.replay.inflate import until_demand_problem

            problem = until_demand_problem(request.until_demand)
            if problem is not None:
                raise ValueError(problem)
    else:
        for flag, given in (
            ("--until-demand", request.until_demand is not None),
            ("--shuffle", request.shuffle),
        ):
            if given:
                raise ValueError(f"{flag} needs --inflate")
    from kubedra.scheduler.policies import REGISTRY, PolicyError

    flags = request.scheduling
    try:
        REGISTRY.resolve(flags.placement, flags.device_policy, flags.node_score)
    except PolicyError as error:
        raise ValueError(str(error)) from None
    return Timing(until, step)


def run_request(
    request: ReplayRequest,
    echo: Echo,
    fail: Fail,
    exit_code: int,
    progress: Any = None,
) -> ReplayState | InflateState:
    """Read the cluster and the trace, build the simulated cluster and replay (or inflate);
    bad input goes to ``fail`` (the messages before it to ``echo``), or exits with
    ``exit_code`` (typer.Exit) where the shared input readers do. ``progress`` makes a
    progress bar of the replay's length (see kubedra.cli.replay_cmd)."""
    from kubedra.cli.sim_input import InputFlags, gather_shown, stop_if_unreadable
    from kubedra.replay import Replay, SampleLimitError, TraceError, load_trace
    from kubedra.replay.inflate import InflateError, InflateOptions, Inflation
    from kubedra.replay.shapes import trace_workload

    try:
        timing = check(request)
    except ValueError as error:
        fail(str(error))
    assert request.trace is not None
    flags = InputFlags(
        list(request.paths),
        list(request.filenames),
        request.recursive,
        None,
        None,
        None,
        request.namespace,
        request.kubernetes_version,
        request.feature_gates,
        max_pods=request.max_pods,
    )
    read = gather_shown(flags, echo, exit_code)
    namespace = request.namespace or "default"
    try:
        loaded = load_trace(request.trace, namespace, read.gates.release, request.max_pods)
    except TraceError as error:
        echo(f"error: {error}")
        stop_if_unreadable(read, echo, exit_code)
        raise _exit(exit_code) from None
    stop_if_unreadable(read, echo, exit_code)
    for line in read.skipped:
        echo(line)
    scheduling = request.scheduling
    if scheduling.placement or scheduling.node_score:
        # What FGD plans for: the shapes of the trace's pods (not the pods in the store).
        workload = trace_workload(loaded, read.objects)
        scheduling = replace(scheduling, workload=workload)
    sim = scheduling.simulation(namespace, read.features, fail, read.admission)
    problems = sim.load(read.objects, read.sources)
    for problem in problems:
        echo(f"{problem.message}\n  in {problem.source}")
    if problems:
        raise _exit(exit_code)
    if request.inflate:
        options = InflateOptions(
            until_demand=request.until_demand or DEFAULT_UNTIL_DEMAND,
            seed=scheduling.seed or 0,
            shuffle=request.shuffle,
        )
        try:
            inflation = Inflation(sim, loaded, options)
            if progress is not None:
                inflation.on_progress = progress.start(options.until_demand, "demand")
            return inflation.run()
        except InflateError as error:
            fail(str(error))
        finally:
            if progress is not None:
                progress.stop()
    horizon = timing.until if timing.until is not None else loaded.span
    try:
        run = Replay(
            sim,
            loaded,
            until=timing.until,
            step=timing.step,
            keep_finished=request.keep_finished,
            on_progress=progress.start(horizon, "time") if progress is not None else None,
        )
        del loaded  # the replay lets each entry's objects go once they are created
        return run.run()
    except SampleLimitError as error:
        fail(str(error))
    finally:
        if progress is not None:
            progress.stop()


def _exit(code: int) -> Exception:
    import typer

    return typer.Exit(code)
