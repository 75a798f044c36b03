"""``kubedra conformance eval|run``: evaluate and check conformance case files."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from kubedra.conformance.compare import (
    compare_allocate,
    compare_cel_pair,
    compare_schedule,
    diff,
)
from kubedra.conformance.errors import CaseError

conformance_app = typer.Typer(
    name="conformance",
    help="Evaluate DRA conformance cases (allocate, schedule, cel) and compare with expected.",
    no_args_is_help=True,
    rich_markup_mode=None,  # plain help, as kubedra.cli.main's app
)

# Bad input surfaces as one of these (CaseError and the allocator's errors are ValueErrors).
_BAD_INPUT = (ValueError, KeyError, TypeError)


def _evaluate(case: dict[str, Any]) -> dict[str, Any]:
    """Evaluate lazily: importing the allocator and CEL only when a case is run keeps the
    other ``kubedra`` commands quick to start."""
    from kubedra.conformance.runner import evaluate_case

    return evaluate_case(case)


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise CaseError(f"{path}: cannot read: {err.strerror}") from None
    except json.JSONDecodeError as err:
        raise CaseError(f"{path}: invalid JSON: {err}") from None
    if not isinstance(data, dict):
        raise CaseError(f"{path}: a case file must hold one JSON object")
    return data


def _render(result: Mapping[str, Any]) -> str:
    """``result`` as indented JSON with each entry of a top-level list on a line of its own.

    json's indenting encoder is pure Python: for a schedule case of thousands of pods it took
    a quarter of the whole ``conformance eval``. Each line here comes from its C encoder.
    """
    lines = ["{"]
    last = len(result) - 1
    for i, (key, value) in enumerate(result.items()):
        comma = "," if i < last else ""
        if isinstance(value, list) and value:
            lines.append(f"  {json.dumps(key)}: [")
            end = len(value) - 1
            lines.extend(
                f"    {json.dumps(item)}{',' if j < end else ''}" for j, item in enumerate(value)
            )
            lines.append(f"  ]{comma}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)}{comma}")
    lines.append("}")
    return "\n".join(lines)


def _case_files(paths: list[Path]) -> Iterator[Path]:
    for path in paths:
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*.json") if p.is_file())
        else:
            yield path


@conformance_app.command("eval")
def eval_command(
    case_file: Annotated[Path, typer.Argument(help="A case file (its expected part is ignored).")],
) -> None:
    """Print kubedra's result for the case as JSON, in the shape of the case's expected."""
    try:
        result = _evaluate(_load(case_file))
    except _BAD_INPUT as err:
        typer.echo(f"error: {case_file}: {err}", err=True)
        raise typer.Exit(2) from None
    typer.echo(_render(result))


def _check(case: Mapping[str, Any], result: Mapping[str, Any]) -> list[tuple[str, list[str], str]]:
    """(label, problems, diff) per failing case; a cel file yields one entry per failing pair."""
    name = str(case.get("name") or "?")
    mode = case.get("mode")
    expected = case.get("expected") or {}
    if mode == "allocate":
        problems = compare_allocate(expected, result)
        return [(name, problems, diff(expected, result))] if problems else []
    if mode == "schedule":
        problems = compare_schedule(expected, result)
        if not problems:
            return []
        want = expected.get("placements") or []
        got = result.get("placements") or []
        bad = [
            i
            for i, w in enumerate(want)
            if i >= len(got) or compare_schedule({"placements": [w]}, {"placements": [got[i]]})
        ][:3]
        detail = "\n".join(diff(want[i], got[i] if i < len(got) else None) for i in bad)
        return [(name, problems, detail)]
    failures = []
    pairs = case.get("cases") or []
    results = result.get("cases") or []
    for i, pair in enumerate(pairs):
        got = results[i] if i < len(results) else {}
        problems = compare_cel_pair(pair.get("expected") or {}, got)
        if problems:
            want_cost = (pair.get("expected") or {}).get("cost")
            problems.append(f"cost: upstream {want_cost!r}, kubedra {got.get('cost')!r}")
            label = f"{name}[{i}] {pair.get('input', {}).get('expression', '')!r}"
            failures.append((label, problems, ""))
    return failures


def _cel_costs(case: Mapping[str, Any], result: Mapping[str, Any]) -> tuple[int, int]:
    """(pairs whose cost equals upstream's recorded one, pairs with a recorded cost),
    runtime-error pairs included: cost is informational, so it is counted, not judged."""
    if case.get("mode") != "cel":
        return 0, 0
    same = recorded = 0
    results = result.get("cases") or []
    for i, pair in enumerate(case.get("cases") or []):
        want = (pair.get("expected") or {}).get("cost")
        if want is None:
            continue
        recorded += 1
        got = results[i].get("cost") if i < len(results) else None
        same += got == want
    return same, recorded


def _count(case: Mapping[str, Any]) -> int:
    return len(case.get("cases") or []) if case.get("mode") == "cel" else 1


@conformance_app.command("run")
def run_command(
    paths: Annotated[
        list[Path],
        typer.Argument(help="Case files or directories of case files.", metavar="PATH..."),
    ],
) -> None:
    """Evaluate every case, print each failure with a diff, and end with 'N passed, M failed'."""
    passed = failed = 0
    cost_same = cost_recorded = 0
    for path in _case_files(paths):
        try:
            case = _load(path)
            result = _evaluate(case)
        except _BAD_INPUT as err:
            typer.echo(f"FAIL {path}: {err}")
            failed += 1
            continue
        failures = _check(case, result)
        same, recorded = _cel_costs(case, result)
        cost_same += same
        cost_recorded += recorded
        total = _count(case)
        failed += len(failures)
        passed += total - len(failures)
        for label, problems, detail in failures:
            typer.echo(f"FAIL {label}")
            for problem in problems:
                typer.echo(f"  {problem}")
            if detail:
                typer.echo("\n".join("    " + line for line in detail.splitlines()))
    if cost_recorded:
        typer.echo(
            f"cel cost: {cost_same} of {cost_recorded} pairs equal upstream's recorded cost "
            "(informational)"
        )
    typer.echo(f"{passed} passed, {failed} failed")
    sys.stdout.flush()
    if failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.add_typer(conformance_app)
