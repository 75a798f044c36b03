"""Shape tables and cycle windows against the plain lists they stand for.

A cycle reads its feasible nodes, score columns and rejection counts from a window over the
table instead of copying them into lists; every answer here is checked against the list a
direct loop over the table's entries gives.
"""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from kubedra.scheduler.evaluations import COUNT_BY_SCAN, Evaluation, ShapeTable, Window
from kubedra.scheduler.status import unschedulable

# More distinct reasons than COUNT_BY_SCAN, so that both ways of counting run.
REASONS = [(f"reason {i}",) for i in range(COUNT_BY_SCAN + 4)] + [("a", "b")]


def _table(outcomes: list[int | None]) -> ShapeTable:
    """A table whose entry i passes (None) or is rejected with REASONS[outcome]."""
    names = [f"node-{i}" for i in range(len(outcomes))]
    table = ShapeTable(names, 0, 0, 0, 0)
    for index, outcome in enumerate(outcomes):
        status = None if outcome is None else unschedulable("P", *REASONS[outcome])
        table.store(index, Evaluation(status, (0, 0, index, 1, 0, 0), None, ()))
    return table


@st.composite
def windows(draw: st.DrawFn) -> tuple[list[int | None], list[tuple[int, int]], int]:
    """Outcomes per node, consecutive ranges covering part of them, and how many reasons."""
    distinct = draw(st.sampled_from([1, 3, COUNT_BY_SCAN, len(REASONS)]))
    outcome = st.one_of(st.none(), st.integers(0, distinct - 1))
    outcomes = draw(st.lists(outcome, min_size=1, max_size=60))
    cuts = sorted(draw(st.sets(st.integers(0, len(outcomes)), max_size=5)) | {0})
    ranges = [(a, b) for a, b in pairwise(cuts) if a < b]
    return outcomes, ranges, distinct


@settings(max_examples=400, derandomize=True, deadline=None, database=None)
@given(windows())
def test_a_window_answers_what_the_listed_entries_would(
    case: tuple[list[int | None], list[tuple[int, int]], int],
) -> None:
    outcomes, ranges, _ = case
    table = _table(outcomes)
    nodes = [object() for _ in outcomes]
    window = Window(table, nodes)
    for start, end in ranges:
        window.add(start, end, table.ok[start:end])
    positions = [i for a, b in ranges for i in range(a, b) if outcomes[i] is None]
    rejected = [i for a, b in ranges for i in range(a, b) if outcomes[i] is not None]

    assert window.feasible == len(positions)
    assert window.rejected() == len(rejected)
    assert window.column(table.names) == [table.names[i] for i in positions]
    assert window.column(table.simple) == [table.simple[i] for i in positions]
    assert [window.position(i) for i in range(len(positions))] == positions
    for i, position in enumerate(positions):
        node, evaluation = window.pick(i)
        assert node is nodes[position] and evaluation is table.evals[position]
    listed = [
        (start + offset)
        for start, end, flags in window.rejected_parts()
        for offset, flag in enumerate(flags)
        if flag
    ]
    assert listed == rejected

    # Counted per reasons in the order of their first rejected node, as a Counter over the
    # rejected entries' reasons would.
    counts: dict[tuple[str, ...], int] = {}
    for start, end, passing in window.parts:
        if passing is not None:
            table.count_rejections(start, end, counts)
    expected = Counter(table.evals[i].status.reasons for i in rejected)  # type: ignore[union-attr]
    assert list(counts.items()) == list(expected.items())


def test_an_entry_stored_again_is_counted_with_its_new_reasons() -> None:
    table = _table([0, 1, None, 0])
    table.store(0, Evaluation(unschedulable("P", *REASONS[2]), (0,) * 6, None, ()))
    table.store(3, Evaluation(None, (0,) * 6, None, ()))
    counts: dict[tuple[str, ...], int] = {}
    table.count_rejections(0, 4, counts)
    assert list(counts.items()) == [(REASONS[2], 1), (REASONS[1], 1)]
