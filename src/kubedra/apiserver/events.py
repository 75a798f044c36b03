"""Core ``Event`` objects made from the scheduler's decisions, for ``kubectl describe``.

The scheduler writes no Events into the store, so the server keeps them: ``Scheduled``
(``Successfully assigned NS/POD to NODE``) and ``FailedScheduling`` with the PodScheduled
message, counted like the event recorder aggregates repeats (the same pod, by uid: a pod
created again under the same name starts its own Events). The ResourceClaim controller's
warnings (``FailedResourceClaimCreation`` when a pod's claim template is missing) become
Events too, from the ``resource_claim`` component as upstream's controller records them.
A pod whose named ResourceClaim does not exist gets none: upstream's controller leaves that
claim to the user and the scheduler's PreEnqueue gate records no event either.
Watches see them too.
"""

from __future__ import annotations

from typing import Any

from kubedra.cluster.clock import SimClock
from kubedra.cluster.events import Event
from kubedra.cluster.store import Store

SCHEDULER = "default-scheduler"
CLAIM_CONTROLLER = "resource_claim"
"""The event source of upstream's ResourceClaim controller (``v1.EventSource{Component: ...}``)."""


class EventRecorder:
    """Events by namespace, in the order they were first seen."""

    def __init__(self, clock: SimClock) -> None:
        self.clock = clock
        self._seen = 0
        self._seen_controller = 0
        self._events: dict[tuple[str, str, str, str, str], dict[str, Any]] = {}

    def observe(self, decisions: list[Any], store: Store) -> list[Event]:
        """Record the decisions made since the last call; return the changes, for watches."""
        changes: list[Event] = []
        for decision in decisions[self._seen :]:
            change = self._record(decision, store)
            if change is not None:
                changes.append(change)
        self._seen = len(decisions)
        return changes

    def observe_controller(self, events: list[Any], store: Store) -> list[Event]:
        """Record the ResourceClaim controller's events since the last call (its
        ``ControllerEvent`` list); return the changes, for watches."""
        changes: list[Event] = []
        for event in events[self._seen_controller :]:
            namespace, _, name = str(getattr(event, "object", "")).partition("/")
            change = self._emit(
                store, namespace, name, event.type, event.reason, event.message, CLAIM_CONTROLLER
            )
            changes.append(change)
        self._seen_controller = len(events)
        return changes

    def _record(self, decision: Any, store: Store) -> Event | None:
        namespace, _, name = str(getattr(decision, "pod", "")).partition("/")
        result = getattr(decision, "result", "")
        if result == "Scheduled":
            type_, reason = "Normal", "Scheduled"
            message = f"Successfully assigned {namespace}/{name} to {decision.node}"
        elif result in ("Unschedulable", "Error"):
            type_, reason = "Warning", "FailedScheduling"
            message = str(getattr(decision, "message", "") or "")
        else:
            return None
        return self._emit(store, namespace, name, type_, reason, message, SCHEDULER)

    def _emit(
        self,
        store: Store,
        namespace: str,
        name: str,
        type_: str,
        reason: str,
        message: str,
        component: str,
    ) -> Event:
        """A new Event about pod ``namespace/name``, or the repeat of one (count + 1)."""
        now = self.clock.timestamp()
        version = str(store.resource_version)
        pod = store.get("Pod", name, namespace) or {}
        meta = pod.get("metadata") or {}
        key = (namespace, name, str(meta.get("uid", "")), reason, message)
        existing = self._events.get(key)
        if existing is not None:
            meta = {**existing["metadata"], "resourceVersion": version}
            updated = {
                **existing,
                "metadata": meta,
                "count": existing["count"] + 1,
                "lastTimestamp": now,
            }
            self._events[key] = updated
            return Event("MODIFIED", "Event", updated, existing)
        created = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {
                "name": f"{name}.{len(self._events) + 1:016x}",
                "namespace": namespace,
                "uid": f"event-{len(self._events) + 1}",
                "resourceVersion": version,
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
            "source": {"component": component},
            "firstTimestamp": now,
            "lastTimestamp": now,
            "count": 1,
            "type": type_,
            "reportingComponent": component,
            "reportingInstance": "",
        }
        self._events[key] = created
        return Event("ADDED", "Event", created, None)

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
