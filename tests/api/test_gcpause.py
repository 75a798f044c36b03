"""paused_gc: no collection inside the block, nothing left for the young generation after it,
cycles still collected, and a program's own frozen objects left frozen."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from kubedra.api.gcpause import paused_gc


class _Node:
    """A weak-referenceable object that can sit in a reference cycle."""

    def __init__(self) -> None:
        self.other: _Node | None = None


@pytest.fixture
def collector() -> Iterator[None]:
    """Each test starts with the collector on and nothing frozen, and leaves it so."""
    was_enabled = gc.isenabled()
    gc.enable()
    gc.unfreeze()
    try:
        yield
    finally:
        gc.unfreeze()
        if not was_enabled:
            gc.disable()


def test_collector_paused_inside_and_restored(collector: None) -> None:
    with paused_gc():
        assert not gc.isenabled()
        with paused_gc():  # nested: stays off until the outer block ends
            pass
        assert not gc.isenabled()
    assert gc.isenabled()


def test_objects_made_inside_skip_the_young_generation(collector: None) -> None:
    gc.collect()
    runs: list[int] = []

    def record(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            runs.append(info["generation"])

    gc.callbacks.append(record)
    try:
        with paused_gc():
            kept = [{"n": [i]} for i in range(50_000)]
        after = [[i] for i in range(100)]
    finally:
        gc.callbacks.remove(record)
    # Promoted to the oldest generation: no young collection scans them after the block.
    assert runs == []
    assert any(obj is kept for obj in gc.get_objects(generation=2))
    assert len(kept) == 50_000 and len(after) == 100


def test_cycles_made_inside_are_still_collected(collector: None) -> None:
    with paused_gc():
        a, b = _Node(), _Node()
        a.other, b.other = b, a
        ref = weakref.ref(a)
        del a, b
    assert ref() is not None  # a cycle: reference counting alone cannot free it
    gc.collect()
    assert ref() is None


def test_objects_the_program_froze_stay_frozen(collector: None) -> None:
    frozen = [[i] for i in range(1000)]
    gc.freeze()
    count = gc.get_freeze_count()
    assert count >= 1000
    with paused_gc():
        made = [[i] for i in range(1000)]
    assert gc.get_freeze_count() == count
    assert len(frozen) == len(made) == 1000
