"""The scheduling queue: PrioritySort's activeQ, a backoffQ and the unschedulable pods.

Pods are ordered by priority, then by the time they were (re)queued (a sequence number, so
that equal times keep their order). A pod that could not be placed waits among the
unschedulable pods until an event that one of the plugins that rejected it registered for
could make it schedulable (simplified queueing hints); it then goes through the backoffQ
(1s doubling to 10s after each attempt, as upstream). Like upstream with
SchedulerPopFromBackoffQ (beta and on since 1.33), a pod is taken from the backoffQ when the
activeQ is empty, so the simulation needs no clock advance for backoff. Pods that PreEnqueue
rejects (DynamicResources: a claim is missing) are gated until their claims exist.

With ``timed`` (replay, where time passes; snapshots run to a fixed point without moving the
clock for the queue) two more of upstream's timings apply (pkg/scheduler/backend/queue):

- a pod that failed with an error (no plugin rejected it) goes to the error backoff at once
  and leaves it only when its backoff is over (``podErrorBackoffQ`` is never popped early);
  its backoff counts consecutive errors and ends at the next whole second after
  ``timestamp + backoff`` (the 1 s ordering windows of ``flushBackoffQCompleted``);
- ``flushUnschedulableEntitiesLeftover``: every 30 s from the start, a pod that has been
  unschedulable for more than 5 minutes (``podMaxInUnschedulablePodsDuration``) is retried.
  A retry can only change the outcome when something changed that no queueing hint reported
  (an allocated claim deleted, a slice deleted, a PodGroup, Workload, PDB or PriorityClass
  change: the scheduler counts these as ``unhinted`` changes); without one, upstream's retry
  would fail again in the same way, so the retry is only accounted (the pod's next flush moves
  330 s on) and costs no scheduling cycle. A month of idle pending pods costs nothing.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

INITIAL_BACKOFF_SECONDS = 1.0
MAX_BACKOFF_SECONDS = 10.0
MAX_IN_UNSCHEDULABLE_SECONDS = 300.0
"""``podMaxInUnschedulablePodsDuration``: 5 minutes."""
FLUSH_PERIOD_SECONDS = 30.0
"""``flushUnschedulableEntitiesLeftover`` runs every 30 s (``wait.Until``, from the start)."""
ANY_EVENT = "*"
"""Rejector of a pod that failed with an error: every registered event retries it."""


def backoff_seconds(attempts: int) -> float:
    duration = INITIAL_BACKOFF_SECONDS
    for _ in range(1, attempts):
        if duration > MAX_BACKOFF_SECONDS - duration:
            return MAX_BACKOFF_SECONDS
        duration += duration
    return duration


def first_flush(timestamp: float) -> float:
    """The first flush tick at which a pod unschedulable since ``timestamp`` is retried: the
    first multiple of 30 s strictly more than 5 minutes later."""
    ticks = math.floor((timestamp + MAX_IN_UNSCHEDULABLE_SECONDS) / FLUSH_PERIOD_SECONDS) + 1
    return ticks * FLUSH_PERIOD_SECONDS


def flush_after(timestamp: float, moment: float) -> float:
    """The first flush retry strictly after ``moment`` of a pod unschedulable since
    ``timestamp`` whose earlier retries changed nothing: each retry puts the pod back with a
    new timestamp, so the retries come every 330 s after the first."""
    first = first_flush(timestamp)
    if moment < first:
        return first
    period = FLUSH_PERIOD_SECONDS + MAX_IN_UNSCHEDULABLE_SECONDS
    return first + period * (math.floor((moment - first) / period) + 1)


@dataclass
class QueuedPod:
    key: str
    priority: int
    seq: int
    attempts: int = 0
    rejectors: set[str] = field(default_factory=set)
    gate: str | None = None
    ready_at: float = 0.0
    timestamp: float = 0.0
    """When it last came back from an attempt (upstream's ``Timestamp``)."""
    errors: int = 0
    """Consecutive attempts that ended in an error (``ConsecutiveErrorsCount``)."""
    stamp: int = -1
    """The scheduler's count of unhinted changes when its last attempt started."""
    flush_seq: int = 0


class SchedulingQueue:
    """activeQ (heap by priority, then sequence), backoffQ, unschedulable and gated pods."""

    def __init__(self, timed: bool = False) -> None:
        self.timed = timed
        self.pods: dict[str, QueuedPod] = {}
        self._active: list[tuple[int, int, str]] = []
        self._backoff: list[tuple[float, int, str]] = []
        self._error_backoff: list[tuple[float, int, str]] = []
        self._where: dict[str, str] = {}
        self._unschedulable: dict[str, None] = {}
        self._gated: dict[str, None] = {}
        self._in_flight_events: list[tuple[set[str], Callable[[QueuedPod], bool] | None]] = []
        self._in_flight: str | None = None
        self._seq = 0
        # Timed mode: the flush retries that may change something, and the unschedulable pods
        # whose last attempt saw the current count of unhinted changes (their retries would
        # fail as before, until the count moves).
        self._flushes: list[tuple[float, int, str]] = []
        self._clean: dict[str, None] = {}
        self._unhinted = 0
        self._attempt_stamp = -1

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    # --- adding and removing ------------------------------------------------------------------

    def add(self, key: str, priority: int, gate: str | None) -> None:
        entry = self.pods.get(key)
        if entry is not None:
            entry.priority = priority
            return
        entry = QueuedPod(key, priority, self._next_seq())
        self.pods[key] = entry
        if gate is not None:
            entry.gate = gate
            self._where[key] = "gated"
            self._gated[key] = None
        else:
            self._push_active(entry)

    def add_failed(self, key: str, priority: int) -> None:
        """A pod that failed outside a scheduling cycle (in PreBind): counts as one attempt."""
        entry = self.pods.get(key)
        if entry is None:
            entry = self.pods[key] = QueuedPod(key, priority, self._next_seq())
        entry.attempts += 1
        self._where[key] = "in-flight"

    def remove(self, key: str) -> None:
        if self._in_flight == key:
            self._in_flight = None
        self.pods.pop(key, None)
        self._where.pop(key, None)
        self._unschedulable.pop(key, None)
        self._gated.pop(key, None)
        self._clean.pop(key, None)

    def _push_active(self, entry: QueuedPod) -> None:
        self._unschedulable.pop(entry.key, None)
        self._clean.pop(entry.key, None)
        entry.seq = self._next_seq()
        self._where[entry.key] = "active"
        heapq.heappush(self._active, (-entry.priority, entry.seq, entry.key))

    def _push_backoff(self, entry: QueuedPod, now: float) -> None:
        ready = entry.ready_at
        if ready <= now:
            self._push_active(entry)
            return
        self._unschedulable.pop(entry.key, None)
        self._clean.pop(entry.key, None)
        entry.seq = self._next_seq()
        self._where[entry.key] = "backoff"
        heapq.heappush(self._backoff, (ready, entry.seq, entry.key))

    # --- popping ------------------------------------------------------------------------------

    def _flush_backoff(self, now: float) -> None:
        for heap, where in ((self._backoff, "backoff"), (self._error_backoff, "error-backoff")):
            while heap and heap[0][0] <= now:
                _, seq, key = heapq.heappop(heap)
                entry = self.pods.get(key)
                if entry is not None and entry.seq == seq and self._where.get(key) == where:
                    self._push_active(entry)
        if self.timed:
            self._flush_leftover(now)

    def has_work(self, now: float) -> bool:
        self._flush_backoff(now)
        heaps: tuple[tuple[list[Any], str], ...] = (
            (self._active, "active"),
            (self._backoff, "backoff"),
        )
        for heap, where in heaps:
            while heap and not self._valid(heap[0][1], heap[0][2], where):
                heapq.heappop(heap)
            if heap:
                return True
        return False

    def _valid(self, seq: int, key: str, where: str) -> bool:
        entry = self.pods.get(key)
        return entry is not None and entry.seq == seq and self._where.get(key) == where

    def pop(self, now: float, stamp: int = -1) -> QueuedPod | None:
        """The next pod to schedule: activeQ first, else the backoffQ's earliest. ``stamp``
        is the scheduler's count of unhinted changes as the attempt starts."""
        self._flush_backoff(now)
        self._attempt_stamp = stamp
        heaps: tuple[tuple[list[Any], str], ...] = (
            (self._active, "active"),
            (self._backoff, "backoff"),
        )
        for heap, where in heaps:
            while heap:
                item = heapq.heappop(heap)
                if self._valid(item[1], item[2], where):
                    entry = self.pods[item[2]]
                    self._where[entry.key] = "in-flight"
                    self._in_flight_events = []
                    self._in_flight = entry.key
                    entry.attempts += 1
                    return entry
        return None

    # --- after an attempt ---------------------------------------------------------------------

    def done(self, key: str) -> None:
        """The pod was placed (or is waiting in PreBind): it leaves the queue."""
        self.remove(key)

    def unschedulable(self, key: str, rejectors: Iterable[str], now: float) -> None:
        entry = self.pods.get(key)
        if entry is None:
            return
        entry.rejectors = set(rejectors) or {ANY_EVENT}
        entry.timestamp = now
        entry.stamp = self._attempt_stamp
        if self.timed and entry.rejectors == {ANY_EVENT}:
            self._in_flight_events, self._in_flight = [], None
            self._error_backoff_push(entry, now)
            return
        entry.errors = 0
        entry.ready_at = now + backoff_seconds(entry.attempts)
        self._where[key] = "unschedulable"
        self._unschedulable[key] = None
        events, self._in_flight_events = self._in_flight_events, []
        self._in_flight = None
        for plugins, wants in events:
            if self._wanted(entry, plugins, wants):
                self._push_backoff(entry, now)
                return
        if self.timed:
            self._track_flush(entry, now)

    def _error_backoff_push(self, entry: QueuedPod, now: float) -> None:
        """podErrorBackoffQ: retried only when the backoff (by consecutive errors) is over."""
        entry.errors += 1
        entry.ready_at = math.floor(now + backoff_seconds(entry.errors)) + 1.0
        self._unschedulable.pop(entry.key, None)
        self._clean.pop(entry.key, None)
        entry.seq = self._next_seq()
        self._where[entry.key] = "error-backoff"
        heapq.heappush(self._error_backoff, (entry.ready_at, entry.seq, entry.key))

    # --- the periodic flush of unschedulable pods (timed) ----------------------------------

    def _track_flush(self, entry: QueuedPod, now: float) -> None:
        """A pod that just became unschedulable: a flush retry is due only once an unhinted
        change happens after its attempt started."""
        if entry.stamp == self._unhinted:
            self._clean[entry.key] = None
        else:
            self._schedule_flush(entry, now)

    def _schedule_flush(self, entry: QueuedPod, changed_at: float) -> None:
        entry.flush_seq = self._next_seq()
        due = flush_after(entry.timestamp, changed_at)
        heapq.heappush(self._flushes, (due, entry.flush_seq, entry.key))

    def unhinted_change(self, count: int, now: float) -> None:
        """The scheduler's count of unhinted changes moved to ``count`` at ``now``."""
        self._unhinted = count
        if not self.timed:
            return
        clean, self._clean = self._clean, {}
        for key in clean:
            entry = self.pods.get(key)
            if entry is not None and self._where.get(key) == "unschedulable":
                self._schedule_flush(entry, now)

    def _flush_leftover(self, now: float) -> None:
        heap = self._flushes
        while heap and heap[0][0] <= now:
            _, seq, key = heapq.heappop(heap)
            entry = self.pods.get(key)
            if entry is None or entry.flush_seq != seq or self._where.get(key) != "unschedulable":
                continue
            self._push_backoff(entry, now)

    def next_wakeup(self, errors: bool = True) -> float | None:
        """Timed: when the queue has timed work (an error backoff ending, a flush retry that
        may change something), in seconds from the start; None when it has none. Without
        ``errors``, error backoffs ending do not count (the caller knows a retry would fail
        again: nothing changed since the last one)."""
        if not self.timed:
            return None
        times: list[float] = []
        heaps = ((self._error_backoff, "error-backoff"), (self._flushes, ""))
        for heap, where in heaps if errors else heaps[1:]:
            while heap:
                due, seq, key = heap[0]
                entry = self.pods.get(key)
                if where:
                    valid = entry is not None and entry.seq == seq and self._where.get(key) == where
                else:
                    valid = (
                        entry is not None
                        and entry.flush_seq == seq
                        and self._where.get(key) == "unschedulable"
                    )
                if valid:
                    times.append(due)
                    break
                heapq.heappop(heap)
        return min(times, default=None)

    def requeue_gated(self, key: str, gate: str | None, now: float) -> None:
        """PreEnqueue ran again for a gated pod."""
        entry = self.pods.get(key)
        if entry is None or self._where.get(key) != "gated":
            return
        entry.gate = gate
        if gate is None:
            self._gated.pop(key, None)
            self._push_active(entry)

    def gated(self) -> list[QueuedPod]:
        return [self.pods[k] for k in self._gated]

    def where(self, key: str) -> str | None:
        return self._where.get(key)

    def move(
        self,
        plugins: set[str],
        now: float,
        wants: Callable[[QueuedPod], bool] | None = None,
        keys: Iterable[str] | None = None,
    ) -> int:
        """Move unschedulable pods that one of ``plugins`` rejected (and that ``wants``
        accepts; only ``keys`` when given) to the backoffQ; returns how many moved."""
        chosen = set(keys) if keys is not None else None
        if self._in_flight is not None:
            # Events during a scheduling cycle are replayed when its pod turns out
            # unschedulable (upstream's in-flight events).
            replay = wants
            if chosen is not None:
                only = chosen

                def replay(entry: QueuedPod) -> bool:
                    return entry.key in only and (wants is None or wants(entry))

            self._in_flight_events.append((plugins, replay))
        if chosen is None:
            candidates = list(self._unschedulable)
        else:
            candidates = [k for k in chosen if k in self._unschedulable]
        moved = 0
        for key in candidates:
            entry = self.pods[key]
            if self._wanted(entry, plugins, wants):
                self._push_backoff(entry, now)
                moved += 1
        return moved

    @staticmethod
    def _wanted(
        entry: QueuedPod, plugins: set[str], wants: Callable[[QueuedPod], bool] | None
    ) -> bool:
        if not (entry.rejectors & plugins or ANY_EVENT in entry.rejectors):
            return False
        return wants is None or wants(entry)

    def unschedulable_pods(self) -> list[QueuedPod]:
        return [self.pods[k] for k in self._unschedulable]
