"""Core ``Event`` objects made from the scheduler's decisions, for ``kubectl describe``.

The scheduler writes no Events into the store, so the server keeps them: ``Scheduled``
(``Successfully assigned NS/POD to NODE``) and ``FailedScheduling`` with the PodScheduled
message, counted like the event recorder aggregates repeats.
"""

from __future__ import annotations

from typing import Any

from kubedra.cluster.clock import SimClock
from kubedra.cluster.store import Store


class EventRecorder:
    """Events by namespace, in the order they were first seen."""

    def __init__(self, clock: SimClock) -> None:
        self.clock = clock
        self._seen = 0
        self._events: dict[tuple[str, str, str, str], dict[str, Any]] = {}

    def observe(self, decisions: list[Any], store: Store) -> None:
        """Record the decisions made since the last call."""
        for decision in decisions[self._seen :]:
            self._record(decision, store)
        self._seen = len(decisions)

    def _record(self, decision: Any, store: Store) -> None:
        namespace, _, name = str(getattr(decision, "pod", "")).partition("/")
        result = getattr(decision, "result", "")
        if result == "Scheduled":
            type_, reason = "Normal", "Scheduled"
            message = f"Successfully assigned {namespace}/{name} to {decision.node}"
        elif result in ("Unschedulable", "Error"):
            type_, reason = "Warning", "FailedScheduling"
            message = str(getattr(decision, "message", "") or "")
        else:
            return
        now = self.clock.timestamp()
        key = (namespace, name, reason, message)
        existing = self._events.get(key)
        if existing is not None:
            existing["count"] += 1
            existing["lastTimestamp"] = now
            return
        pod = store.get("Pod", name, namespace) or {}
        meta = pod.get("metadata") or {}
        self._events[key] = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {
                "name": f"{name}.{len(self._events) + 1:016x}",
                "namespace": namespace,
                "uid": f"event-{len(self._events) + 1}",
                "resourceVersion": str(store.resource_version),
                "creationTimestamp": now,
            },
            "involvedObject": {
                "kind": "Pod",
                "namespace": namespace,
                "name": name,
                "uid": meta.get("uid", ""),
                "apiVersion": "v1",
                "resourceVersion": meta.get("resourceVersion", ""),
            },
            "reason": reason,
            "message": message,
            "source": {"component": "default-scheduler"},
            "firstTimestamp": now,
            "lastTimestamp": now,
            "count": 1,
            "type": type_,
            "reportingComponent": "default-scheduler",
            "reportingInstance": "",
        }

    def list(self, namespace: str | None) -> list[dict[str, Any]]:
        events = self._events.values()
        if namespace is None:
            return list(events)
        return [event for event in events if event["metadata"]["namespace"] == namespace]

    def get(self, name: str, namespace: str | None) -> dict[str, Any] | None:
        return next(
            (event for event in self.list(namespace) if event["metadata"]["name"] == name),
            None,
        )
