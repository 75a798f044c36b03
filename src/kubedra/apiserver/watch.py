"""The change feed as watches see it: every store event with the resourceVersion it made.

Watches resume from a resourceVersion, so the feed keeps a bounded history; asking for one
older than the history holds is answered with 410 Gone, as an apiserver's compacted etcd.
"""

from __future__ import annotations

import bisect
import threading
from dataclasses import dataclass
from typing import Any

from kubedra.cluster.events import Event

HISTORY = 100_000
"""Events kept for resuming watches."""


@dataclass(frozen=True, slots=True)
class WatchEvent:
    seq: int
    type: str
    kind: str
    obj: dict[str, Any]
    old: dict[str, Any] | None


class ChangeFeed:
    """Store events in order, numbered by the store's resourceVersion.

    Several events can share a number (a removal takes the store's current version), so a
    running watch follows absolute positions in the feed, and a new watch starts after the
    last event numbered with its resourceVersion.
    """

    def __init__(self, start: int, history: int = HISTORY) -> None:
        self.history = history
        self._lock = threading.Lock()
        """Held briefly by record and read, so watches never wait for a whole write."""
        self._events: list[WatchEvent] = []
        self._seqs: list[int] = []
        self._base = 0
        """Absolute position of ``_events[0]`` (events before it were trimmed)."""
        self.oldest = start
        """The oldest resourceVersion a watch can resume from."""

    def record(self, event: Event, version: int) -> None:
        """Append ``event``; ``version`` is the store's resourceVersion after it happened."""
        obj = event.obj
        if event.type == "DELETED":
            meta = dict(obj.get("metadata") or {})
            meta["resourceVersion"] = str(version)
            obj = {**obj, "metadata": meta}
        with self._lock:
            self._events.append(WatchEvent(version, event.type, event.kind, obj, event.old))
            self._seqs.append(version)
            if len(self._events) > 2 * self.history:
                drop = len(self._events) - self.history
                self.oldest = self._seqs[drop - 1]
                del self._events[:drop]
                del self._seqs[:drop]
                self._base += drop

    def position_after(self, version: int) -> int:
        """The absolute position of the first event newer than ``version``."""
        with self._lock:
            return self._base + bisect.bisect_right(self._seqs, version)

    def end(self) -> int:
        with self._lock:
            return self._base + len(self._events)

    def read(self, position: int) -> tuple[list[WatchEvent], int]:
        """Events from absolute ``position`` on, and the position after them."""
        with self._lock:
            start = max(position - self._base, 0)
            return self._events[start:], self._base + len(self._events)

    def expired(self, version: int) -> bool:
        return version < self.oldest
