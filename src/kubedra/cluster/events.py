"""The store's change feed: one event per created, modified or removed object."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

EventType = Literal["ADDED", "MODIFIED", "DELETED"]


@dataclass(frozen=True, slots=True)
class Event:
    """A change, delivered synchronously to subscribers in the order it happened.

    ``obj`` is the new state (for DELETED the last one), ``old`` the previous state of a
    MODIFIED object. Both are the store's own dicts: read them, never change them.
    """

    type: EventType
    kind: str
    obj: dict[str, Any]
    old: dict[str, Any] | None = None

    @property
    def key(self) -> str:
        """``namespace/name`` (or ``name`` for cluster-scoped kinds), for messages and queues."""
        meta = self.obj.get("metadata") or {}
        namespace = meta.get("namespace")
        name = meta.get("name", "")
        return f"{namespace}/{name}" if namespace else name
