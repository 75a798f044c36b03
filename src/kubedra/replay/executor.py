"""Running the cells of a sweep or comparison: in this process, in worker processes, or as
Ray tasks on a Ray cluster; results come back as each cell ends and keep the cells' order.

A cell's work is a function of the cell alone (``CellFunction``, importable by name so that
worker processes and Ray workers find it), and a replay decides the same for the same input
and seed whatever the process, so results are identical however they ran. A cell that fails
(its function raises, its worker dies, Ray loses it) is reported with its error; the others
go on.

Worker processes are spawned (not forked): each starts clean, as a Ray worker does.

With Ray, every cell is a task of one CPU. Where this module starts Ray (``ray.init(address)``;
None: ``RAY_ADDRESS``, else a new local Ray), the job's ``runtime_env`` ships the cells' base
directory (the sweep file's) as its ``working_dir``: on the cluster every task runs in a copy
of it, so the cells' relative paths resolve there; Ray is shut down at the end. An already
initialised Ray is used as it is and left running; its workers must then see the base
directory at the same path (a local Ray, or a shared file system).
"""

from __future__ import annotations

import os
import signal
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from kubedra.replay.sweep import Cell

CellFunction = Callable[[Cell], dict[str, Any]]
"""Runs one cell; returns its result (a dict that pickles), raises when it cannot."""

RAY_HINT = "pip install 'kubedra[ray]'"


class ExecutorError(RuntimeError):
    """The cells cannot be run at all (Ray missing or unreachable)."""


@dataclass(frozen=True)
class CellResult:
    cell: Cell
    result: dict[str, Any] | None
    error: str | None
    seconds: float
    """Wall time of the cell where it ran (not part of any output that must repeat)."""
    cpu_seconds: float | None = None
    """CPU time of the process that ran the cell, while it ran; None where it died."""


Done = Callable[[CellResult], None]


def default_workers() -> int:
    """The CPUs this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def run_cells(
    cells: Sequence[Cell],
    function: CellFunction,
    *,
    workers: int = 1,
    ray_address: str | None = None,
    use_ray: bool = False,
    on_done: Done | None = None,
) -> list[CellResult]:
    """Run every cell; the results in the cells' order. ``on_done`` hears of each as it ends."""
    if use_ray:
        results = _on_ray(cells, function, ray_address, on_done)
    elif workers <= 1 or len(cells) <= 1:
        results = [_here(cell, function, on_done) for cell in cells]
    else:
        results = _in_processes(cells, function, min(workers, len(cells)), on_done)
    return sorted(results, key=lambda r: r.cell.index)


def _timed(cell: Cell, function: CellFunction) -> CellResult:
    started, cpu_started = time.monotonic(), time.process_time()
    result: dict[str, Any] | None = None
    error_text: str | None = None
    try:
        result = function(cell)
    except Exception as error:  # one cell's failure is reported, the others go on
        error_text = _describe(error)
    return CellResult(
        cell,
        result,
        error_text,
        time.monotonic() - started,
        time.process_time() - cpu_started,
    )


def _describe(error: BaseException) -> str:
    message = str(error) or type(error).__name__
    if isinstance(error, AssertionError | KeyError | TypeError | AttributeError | IndexError):
        # A bug rather than bad input: keep where it happened.
        where = traceback.extract_tb(error.__traceback__)[-1:] if error.__traceback__ else []
        place = f" ({where[0].filename}:{where[0].lineno})" if where else ""
        return f"{type(error).__name__}: {message}{place}"
    return message


def _here(cell: Cell, function: CellFunction, on_done: Done | None) -> CellResult:
    result = _timed(cell, function)
    if on_done is not None:
        on_done(result)
    return result


def _in_processes(
    cells: Sequence[Cell], function: CellFunction, workers: int, on_done: Done | None
) -> list[CellResult]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    context = multiprocessing.get_context("spawn")
    results: list[CellResult] = []
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context)
    try:
        with _terminated_by_exception():
            started = time.monotonic()
            futures = {pool.submit(_timed, cell, function): cell for cell in cells}
            for future in as_completed(futures):
                cell = futures[future]
                try:
                    result = future.result()
                except Exception as error:  # the worker died (memory, a signal)
                    result = CellResult(
                        cell, None, f"worker failed: {_describe(error)}", time.monotonic() - started
                    )
                results.append(result)
                if on_done is not None:
                    on_done(result)
    except BaseException:
        # Stopped (SIGTERM, Ctrl-C, an error in on_done): the workers go with the sweep
        # instead of finishing cells nobody will read (shutdown would wait for them).
        _stop_workers(pool)
        raise
    pool.shutdown()
    return results


class SweepTerminated(SystemExit):
    """SIGTERM reached a sweep running worker processes (exit status 143, as the signal's)."""


@contextmanager
def _terminated_by_exception() -> Iterator[None]:
    """SIGTERM raised as an exception while the block runs, so that the caller can stop its
    workers first; only in the main thread, where Python delivers signals."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        raise SweepTerminated(128 + signum)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _stop_workers(pool: Any) -> None:
    """Terminate a ProcessPoolExecutor's worker processes (Python 3.11 has no public call for
    it: ``terminate_workers`` came in 3.14), let the pool go and wait for them to end."""
    workers = dict(getattr(pool, "_processes", None) or {})
    for process in workers.values():
        if process.is_alive():
            process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    for process in workers.values():
        process.join(timeout=5)


def _on_ray(
    cells: Sequence[Cell], function: CellFunction, address: str | None, on_done: Done | None
) -> list[CellResult]:
    try:
        import ray
    except ImportError:
        raise ExecutorError(f"--ray needs Ray, which is not installed: {RAY_HINT}") from None
    bases = {cell.base for cell in cells}
    started_here = False
    if not ray.is_initialized():
        # The job's working_dir: Ray uploads the directory and runs every task in a copy of
        # it (tasks cannot ship local directories of their own).
        env = {"working_dir": bases.pop()} if len(bases) == 1 else None
        try:
            ray.init(address=address or None, runtime_env=env, log_to_driver=False)
        except Exception as error:  # unreachable address, version mismatch, ...
            where = f" {address}" if address else ""
            raise ExecutorError(f"--ray{where}: {error}") from None
        started_here = True
        shipped = env is not None
    else:
        # Someone else's Ray (a local one, or a driver of their own): its workers must see
        # the cells' directory at the same path (this machine, or a shared file system).
        shipped = False
    try:
        task = ray.remote(num_cpus=1)(_timed)
        pending: dict[Any, Cell] = {}
        for cell in cells:
            sent = replace(cell, base=".") if shipped else cell
            pending[task.remote(sent, function)] = cell
        results: list[CellResult] = []
        started = time.monotonic()
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            ref = ready[0]
            cell = pending.pop(ref)
            try:
                result = replace(ray.get(ref), cell=cell)
            except Exception as error:  # a lost worker or node, a failed runtime_env
                result = CellResult(
                    cell, None, f"Ray task failed: {_describe(error)}", time.monotonic() - started
                )
            results.append(result)
            if on_done is not None:
                on_done(result)
        return results
    finally:
        if started_here:
            ray.shutdown()
