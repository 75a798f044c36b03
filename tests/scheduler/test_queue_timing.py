"""The scheduling queue's timed behaviour (replay): error backoff and the 5-minute flush."""

from __future__ import annotations

import pytest

from kubedra.scheduler.queue import SchedulingQueue, first_flush, flush_after


@pytest.mark.parametrize(
    ("timestamp", "expected"),
    [(0, 330), (0.5, 330), (29, 330), (30, 360), (31, 360), (299.9, 600)],
)
def test_first_flush_is_the_first_30s_tick_more_than_5_minutes_later(
    timestamp: float, expected: float
) -> None:
    """Ticks at 0, 30, 60 ... s; a pod qualifies when now - timestamp > 300 (strictly):
    unschedulable at 0 it is not flushed at 300 but at 330; at 30, not at 330 but at 360."""
    assert first_flush(timestamp) == expected


def test_flush_after_a_change_follows_the_330s_rhythm_of_failed_retries() -> None:
    """A pod unschedulable since 0 whose retries fail is retried at 330, 660, 990, ...: the
    first retry after a change at 700 is the one at 990; a change at 330 itself (the
    retry runs first at that moment) waits for 660."""
    assert flush_after(0, 100) == 330
    assert flush_after(0, 330) == 660
    assert flush_after(0, 700) == 990


def test_untimed_queue_never_wakes_and_pops_errors_at_once() -> None:
    queue = SchedulingQueue()
    queue.add("ns/p", 0, None)
    entry = queue.pop(0.0)
    assert entry is not None
    queue.unschedulable("ns/p", set(), 0.0)  # an error: no plugin rejected it
    queue.move({"NodeResourcesFit"}, 0.0)
    assert queue.pop(0.0) is not None  # popped from the backoffQ as soon as the activeQ is empty
    assert queue.next_wakeup() is None


def test_error_backoff_is_not_popped_early() -> None:
    """upstream podErrorBackoffQ: after a first error at 10.2 s the backoff is 1 s; the pod
    leaves at the first whole-second window after 11.2 (its expiry 11.2 is truncated to 11
    and counts as backing off until the clock reaches 12)."""
    queue = SchedulingQueue(timed=True)
    queue.add("ns/p", 0, None)
    assert queue.pop(10.2) is not None
    queue.unschedulable("ns/p", set(), 10.2)
    assert queue.where("ns/p") == "error-backoff"
    assert not queue.has_work(11.9)
    assert queue.next_wakeup() == 12
    assert queue.has_work(12.0)
    assert queue.pop(12.0) is not None
    queue.unschedulable("ns/p", set(), 12.0)  # second error in a row: 2 s
    assert queue.next_wakeup() == 15


def test_flush_retries_only_after_an_unhinted_change() -> None:
    """Unschedulable at 0 with nothing changed: no timed work (a retry would fail the same
    way). An unhinted change at 60 makes the 330 s flush due; the retry puts it in the
    activeQ."""
    queue = SchedulingQueue(timed=True)
    queue.add("ns/p", 0, None)
    assert queue.pop(0.0, stamp=0) is not None
    queue.unschedulable("ns/p", {"DynamicResources"}, 0.0)
    assert queue.next_wakeup() is None
    queue.unhinted_change(1, 60.0)
    assert queue.next_wakeup() == 330
    assert not queue.has_work(329.0)
    assert queue.has_work(330.0)
    assert queue.where("ns/p") == "active"


def test_a_change_during_the_attempt_makes_the_flush_due() -> None:
    queue = SchedulingQueue(timed=True)
    queue.add("ns/p", 0, None)
    assert queue.pop(5.0, stamp=0) is not None
    queue.unhinted_change(1, 5.0)  # e.g. a claim deleted while the pod was being scheduled
    queue.unschedulable("ns/p", {"DynamicResources"}, 5.0)
    assert queue.next_wakeup() == 330
