"""``kubedra replay --compare FILE...`` / ``--policy a,b,c`` and ``--sweep FILE``: several
replays side by side.

A comparison replays the command line's cluster and trace under each configuration (a
``--compare`` file's ``{name, args}``, or one ``--policy`` of a list; both given: every
configuration under every policy) and prints one table with a column per configuration. A
sweep runs every (run, config, seed) of a sweep file and prints a row per cell. Flags given
beside them (``--inflate``, ``--seed``, ...) apply to every cell, before the configuration's
own. Cells run in this process (``--workers 1``), in worker processes (``--workers N``, default
the CPUs) or, for a sweep, as Ray tasks (``--ray``): kubedra.replay.executor.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import typer

from kubedra.cli.replay_cells import (
    NOT_IN_CELLS,
    check_cell_args,
    check_config_args,
    flag_names,
    given_on_command_line,
    run_cell,
)
from kubedra.cli.replay_run import ReplayRequest, check
from kubedra.replay.executor import CellResult, ExecutorError, default_workers, run_cells
from kubedra.replay.sweep import Cell, ConfigSpec, SweepError, load_configs, load_sweep

__all__ = ["NOT_IN_CELLS", "Settings", "command_line_args", "run_compare", "run_sweep"]

EXIT_DONE = 0
EXIT_BAD_INPUT = 1
EXIT_CELL_FAILED = 3


@dataclass(frozen=True)
class Settings:
    """The flags of the whole comparison or sweep."""

    output: str
    plot: Path | None
    table: Path | None
    workers: int | None
    ray: bool
    ray_address: str | None
    echo: Callable[[str], None]
    fail: Callable[[str], NoReturn]


def command_line_args(ctx: typer.Context, exclude: frozenset[str] | set[str]) -> list[str]:
    """The replay flags given on the command line (not their defaults), as flags again, but
    for the parameters named in ``exclude``: what every cell takes."""
    out: list[str] = []
    for param in ctx.command.params:
        name = param.name
        if name is None or name in exclude or not given_on_command_line(ctx, name):
            continue
        value = ctx.params[name]
        if param.param_type_name == "argument":
            out += [str(v) for v in value or ()]
        elif getattr(param, "is_flag", False):
            if value:
                out.append(param.opts[0])
            elif getattr(param, "secondary_opts", None):
                out.append(param.secondary_opts[0])
        elif param.multiple:
            for item in value or ():
                out += [param.opts[0], str(item)]
        else:
            out += [param.opts[0], str(getattr(value, "value", value))]
    return out


def run_compare(
    files: Sequence[Path],
    policies: Sequence[str],
    base: list[str],
    request: ReplayRequest,
    settings: Settings,
) -> int:
    """Replay the command line's cluster and trace under each configuration."""
    fail = settings.fail
    try:
        check(request)
    except ValueError as error:
        fail(str(error))
    if any(str(p) == "-" for p in (*request.paths, *request.filenames)):
        fail("--compare reads the input once per configuration: give files, not -")
    configs: list[ConfigSpec] = []
    for given in files:
        for part in str(given).split(","):
            if not part:
                continue
            try:
                configs += load_configs(Path(part), check_config_args)
            except SweepError as error:
                fail(str(error))
    if policies:
        from kubedra.scheduler.policies import REGISTRY, PolicyError

        for name in policies:
            try:
                REGISTRY.get(name)
            except PolicyError as error:
                fail(str(error))
        if configs:
            configs = [
                ConfigSpec(f"{c.name}/{p}", (*c.args, "--policy", p))
                for c in configs
                for p in policies
            ]
        else:
            configs = [ConfigSpec(p, ("--policy", p)) for p in policies]
    names = [c.name for c in configs]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        fail(f"--compare: configuration name(s) {', '.join(repeated)} repeat: name them apart")
    run = str(request.trace)
    cells = [
        Cell(i, run, c.name, None, c.args, (*base, *c.args), ".") for i, c in enumerate(configs)
    ]
    for cell in cells:
        problem = check_cell_args(cell.args)
        if problem is not None:
            fail(f"configuration {cell.config}: {problem}")
    results = _execute(cells, settings)
    records = [_record(r) for r in results]
    if settings.output == "text":
        from kubedra.replay.compare import comparison

        seed = request.scheduling.seed
        typer.echo(
            f"Compared {len(cells)} configuration(s) on {run}"
            + (f" (seed {seed})" if seed is not None else "")
        )
        typer.echo("")
        for line in comparison([_column(r, r.cell.config) for r in results]):
            typer.echo(line)
    else:
        _print({"trace": run, "cells": records}, settings.output)
    _write_files(results, records, settings)
    return EXIT_CELL_FAILED if any(r.error for r in results) else EXIT_DONE


def run_sweep(path: Path, common: list[str], settings: Settings) -> int:
    """Run every cell of the sweep file at ``path``."""
    fail = settings.fail
    forbidden = {p for p in _given_names(common)} & {"paths", "trace"}
    if forbidden:
        fail(f"--sweep: {', '.join(flag_names(forbidden))} come from the sweep file's runs")
    try:
        sweep = load_sweep(path, lambda args: _check_sweep_args(args, common))
    except SweepError as error:
        fail(str(error))
    cells = sweep.cells(common)
    if settings.ray:
        import importlib.util

        if importlib.util.find_spec("ray") is None:
            from kubedra.replay.executor import RAY_HINT

            fail(f"--ray needs Ray, which is not installed: {RAY_HINT}")
    results = _execute(cells, settings)
    records = [_record(r) for r in results]
    if settings.output == "text":
        from kubedra.replay.compare import sweep_rows

        typer.echo(
            f"Swept {sweep.source}: {len(sweep.runs)} run(s) x {len(sweep.configs)} "
            f"config(s) x {len(sweep.seeds)} seed(s) = {len(cells)} cell(s), "
            f"{sum(1 for r in results if r.error)} failed"
        )
        typer.echo("")
        rows = [
            (r.cell.run, r.cell.config, _seed(r.cell.seed), _column(r, r.cell.label()))
            for r in results
        ]
        for line in sweep_rows(rows):
            typer.echo(line)
    else:
        _print({"sweep": sweep.source, "cells": records}, settings.output)
    _write_files(results, records, settings)
    return EXIT_CELL_FAILED if any(r.error for r in results) else EXIT_DONE


def _check_sweep_args(args: Sequence[str], common: Sequence[str]) -> str | None:
    """A sweep config's args: alone (no paths, --trace or outputs), then as a whole cell
    (with the first run's paths and the common flags) for their values."""
    paths_end = args.index("--trace") + 2
    own = list(args[paths_end:])
    problem = check_config_args(own)
    if problem is not None:
        return problem
    return check_cell_args([*args[:paths_end], *common, *own])


def _given_names(args: Sequence[str]) -> set[str]:
    from kubedra.cli.replay_cells import parse_args

    try:
        return parse_args(args)[1]
    except ValueError:
        return set()


def _execute(cells: list[Cell], settings: Settings) -> list[CellResult]:
    progress = _CellProgress(len(cells), settings.echo)
    try:
        return run_cells(
            cells,
            run_cell,
            workers=settings.workers or default_workers(),
            ray_address=settings.ray_address,
            use_ray=settings.ray,
            on_done=progress.done,
        )
    except ExecutorError as error:
        settings.fail(str(error))
    finally:
        progress.stop()


def _record(result: CellResult) -> dict[str, Any]:
    cell = result.cell
    record: dict[str, Any] = {
        "run": cell.run,
        "config": cell.config,
        "seed": cell.seed,
        "args": list(cell.config_args),
    }
    if result.error is not None:
        record["error"] = result.error
    else:
        assert result.result is not None
        record["summary"] = result.result["summary"]
    return record


def _column(result: CellResult, label: str) -> Any:
    from kubedra.replay.compare import Column

    summary = result.result["summary"] if result.result is not None else None
    return Column(label, summary, result.error)


def _seed(seed: int | None) -> str:
    return "-" if seed is None else str(seed)


def _print(document: Any, output: str) -> None:
    if output == "json":
        import json

        sys.stdout.write(json.dumps(document, indent=2) + "\n")
    else:
        from kubedra.api.io import yaml_emit

        sys.stdout.write(yaml_emit.dump(document))


def _write_files(
    results: Sequence[CellResult], records: Sequence[dict[str, Any]], settings: Settings
) -> None:
    echo, fail = settings.echo, settings.fail
    if settings.table is not None:
        from kubedra.replay.compare import write_table

        try:
            write_table(records, settings.table)
        except OSError as error:
            fail(f"--table {settings.table}: {error.strerror or error}")
        echo(f"wrote {settings.table} ({len(records)} rows)")
    if settings.plot is not None:
        from kubedra.replay.plot import PlotError
        from kubedra.replay.plot_compare import Line, file_stem, plot_lines

        runs: dict[str, list[Line]] = {}
        for result in results:
            if result.result is None:
                continue
            cell = result.cell
            label = cell.config if cell.seed is None else f"{cell.config} (seed {cell.seed})"
            line = Line(label, result.result["curves"], group=cell.config)
            runs.setdefault(cell.run, []).append(line)
        written: list[Path] = []
        try:
            for run, lines in runs.items():
                prefix = f"{file_stem(run)}-" if len(runs) > 1 else ""
                written += plot_lines(lines, settings.plot, prefix)
        except PlotError as error:
            fail(str(error))
        echo(
            f"wrote {len(written)} charts to {settings.plot}: " + ", ".join(p.name for p in written)
        )


class _CellProgress:
    """A line on standard error per finished cell, and a progress bar on a terminal."""

    def __init__(self, total: int, echo: Callable[[str], None]) -> None:
        self.total = total
        self.finished = 0
        self.failed = 0
        self.echo = echo
        self._bar: Any = None
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

            self._bar = Progress(
                TextColumn("cells"),
                BarColumn(),
                TextColumn("{task.completed}/{task.total} done, {task.fields[failed]} failed"),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self._task = self._bar.add_task("cells", total=total, failed=0)
            self._bar.start()

    def done(self, result: CellResult) -> None:
        self.finished += 1
        if result.error is not None:
            self.failed += 1
            what = f"failed: {result.error}"
        else:
            what = "done"
        cpu = f", CPU {result.cpu_seconds:.1f} s" if result.cpu_seconds is not None else ""
        line = (
            f"[{self.finished}/{self.total}] {result.cell.label()}: {what} "
            f"({result.seconds:.1f} s{cpu})"
        )
        if self._bar is not None:
            self._bar.console.print(line, markup=False, highlight=False)
            self._bar.update(self._task, completed=self.finished, failed=self.failed)
        else:
            self.echo(line)

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
