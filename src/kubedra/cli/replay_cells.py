"""One cell of a comparison or sweep: ``kubedra replay`` flags in, the summary and the curves
to plot out.

A cell's flags are parsed by the ``replay`` command itself (so a cell takes exactly the flags
and values the command takes, with its messages for bad ones) and run through
kubedra.cli.replay_run, in the cell's base directory (the sweep file's: relative paths are
relative to it). :func:`run_cell` is what kubedra.replay.executor runs in this process, in a
worker process or as a Ray task; it imports by name on every worker.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn

import typer

from kubedra.cli.replay_run import ReplayRequest
from kubedra.replay.sweep import Cell

NOT_IN_CELLS = frozenset(
    {"compare", "sweep", "workers", "ray", "ray_address", "table", "output", "plot", "series"}
)
"""Flags of the whole comparison or sweep, not of one of its replays."""
NOT_IN_CONFIGS = NOT_IN_CELLS | {"paths", "trace"}
"""Flags a configuration may not give: the command line (or the sweep's run) gives these."""


class CellFailure(Exception):
    """The cell's replay refused its input (the message says why)."""


def _command() -> Any:
    """The ``replay`` command as Typer builds it (its Click command)."""
    import typer.main

    from kubedra.cli import replay_cmd

    app = typer.Typer()
    replay_cmd.register(app)
    return typer.main.get_command(app)


def parse_args(args: Sequence[str]) -> tuple[ReplayRequest, set[str]]:
    """The request ``kubedra replay ARGS`` makes, and the parameters ARGS set (by name);
    raises ValueError with click's message for bad flags."""
    from kubedra.cli.replay_cmd import RequestSink

    for flag in ("--help", "-h"):
        if flag in args:
            # Click would print the help and stop there, leaving the cell with no request.
            raise ValueError(f"{flag}: not a replay flag of a cell")
    command = _command()
    sink = RequestSink()
    try:
        with command.make_context("replay", list(args), obj=sink) as ctx:
            command.invoke(ctx)
            given = {name for name in ctx.params if given_on_command_line(ctx, name)}
    except Exception as error:
        # Click's usage errors (Typer's own copy of Click, in recent Typer) say what is wrong.
        format_message = getattr(error, "format_message", None)
        if format_message is None:
            raise
        raise ValueError(format_message()) from None
    assert sink.request is not None
    return sink.request, given


def given_on_command_line(ctx: Any, name: str) -> bool:
    """Whether parameter ``name`` was given (by flag or environment), not defaulted."""
    source = ctx.get_parameter_source(name)
    return getattr(source, "name", None) in ("COMMANDLINE", "ENVIRONMENT")


def flag_names(names: set[str]) -> list[str]:
    """The flags (``--plot``) of parameters named ``plot``."""
    command = _command()
    out = []
    for param in command.params:
        if param.name in names:
            out.append(param.opts[0] if param.param_type_name == "option" else "PATH...")
    return sorted(out)


def check_config_args(args: Sequence[str]) -> str | None:
    """What is wrong with a configuration's flags (alone), or None."""
    try:
        _, given = parse_args(args)
    except ValueError as error:
        return str(error)
    wrong = given & NOT_IN_CONFIGS
    if wrong:
        return (
            f"{', '.join(flag_names(wrong))}: not a configuration's flag (the command line "
            "or the sweep's runs give paths and --trace; outputs are the whole run's)"
        )
    return None


def check_cell_args(args: Sequence[str]) -> str | None:
    """What is wrong with a cell's flags (paths, --trace, common and config flags), or None."""
    from kubedra.cli.replay_run import check

    try:
        request, _ = parse_args(args)
        check(request)
        _check_gates(request)
    except ValueError as error:
        return str(error)
    return None


def _check_gates(request: ReplayRequest) -> None:
    """--kubernetes-version and --feature-gates as the command reads them: a cell's bad value
    is found before anything runs (the command itself exits 2 on it, printing on its own)."""
    from kubedra.features import DEFAULT as DEFAULT_RELEASE
    from kubedra.features import FeatureGateError, FeatureGates, ReleaseError, parse_version

    try:
        version = request.kubernetes_version
        release = parse_version(version) if version else DEFAULT_RELEASE
    except ReleaseError as error:
        raise ValueError(f"--kubernetes-version {request.kubernetes_version}: {error}") from None
    try:
        FeatureGates.for_release(release, request.feature_gates or None)
    except FeatureGateError as error:
        raise ValueError(f"--feature-gates {request.feature_gates}: {error}") from None


@contextlib.contextmanager
def _directory(path: str) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def run_cell(cell: Cell) -> dict[str, Any]:
    """Replay one cell; ``{"summary": ..., "curves": ...}``; raises CellFailure for bad
    input (with the messages the command would print)."""
    from kubedra.cli.replay_cmd import EXIT_BAD_INPUT
    from kubedra.cli.replay_run import run_request
    from kubedra.replay import inflate_report, report

    messages: list[str] = []

    def fail(message: str) -> NoReturn:
        raise CellFailure(message)

    with _directory(cell.base):
        try:
            request, _ = parse_args(cell.args)
        except ValueError as error:
            raise CellFailure(str(error)) from None
        try:
            state: Any = run_request(request, messages.append, fail, EXIT_BAD_INPUT)
        except typer.Exit:
            raise CellFailure("; ".join(messages) or "bad input") from None
    if request.inflate:
        return {"summary": inflate_report.summary(state), "curves": inflate_report.curves(state)}
    return {"summary": report.summary(state), "curves": report.curves(state)}
