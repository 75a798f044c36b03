"""A deduplicating FIFO of keys, as client-go's workqueue (one worker, no rate limits)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)


class WorkQueue(Generic[K]):
    """Adding a queued key again is a no-op; keys come out in the order first added."""

    def __init__(self) -> None:
        self._items: dict[K, None] = {}

    def add(self, key: K) -> None:
        self._items[key] = None

    def pop(self) -> K | None:
        if not self._items:
            return None
        key = next(iter(self._items))
        del self._items[key]
        return key

    def __len__(self) -> int:
        return len(self._items)

    def __bool__(self) -> bool:
        return bool(self._items)
