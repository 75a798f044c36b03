"""Store events in plain words: what a timeline step changed, one line per change."""

from __future__ import annotations

from typing import Any

from kubedra.cluster.events import Event


def _condition(obj: dict[str, Any], kind: str) -> dict[str, Any] | None:
    for condition in (obj.get("status") or {}).get("conditions") or []:
        if condition.get("type") == kind:
            return dict(condition)
    return None


def _devices(claim: dict[str, Any]) -> str:
    allocation = (claim.get("status") or {}).get("allocation") or {}
    results = (allocation.get("devices") or {}).get("results") or []
    return ", ".join(f"{r.get('driver')}/{r.get('pool')}/{r.get('device')}" for r in results)


def _pod_changes(event: Event) -> list[str]:
    new, old = event.obj, event.old or {}
    name = f"pod {event.key}"
    lines: list[str] = []
    node = new["spec"].get("nodeName")
    if node and node != (old.get("spec") or {}).get("nodeName"):
        lines.append(f"{name} bound to {node}")
    phase = (new.get("status") or {}).get("phase")
    if phase != (old.get("status") or {}).get("phase"):
        lines.append(f"{name} {phase}")
    scheduled, before = _condition(new, "PodScheduled"), _condition(old, "PodScheduled")
    if (
        scheduled is not None
        and scheduled.get("status") == "False"
        and (before is None or before.get("message") != scheduled.get("message"))
    ):
        lines.append(f"{name} unschedulable: {scheduled.get('message')}")
    target = _condition(new, "DisruptionTarget")
    if target is not None and _condition(old, "DisruptionTarget") is None:
        lines.append(f"{name} evicted: {target.get('message')}")
    return lines


def _claim_changes(event: Event) -> list[str]:
    new, old = event.obj, event.old or {}
    name = f"claim {event.key}"
    was = (old.get("status") or {}).get("allocation")
    now = (new.get("status") or {}).get("allocation")
    if now and not was:
        return [f"{name} allocated: {_devices(new)}"]
    if was and not now:
        return [f"{name} deallocated: {_devices(old)} free again"]
    if "deletionTimestamp" in new["metadata"] and "deletionTimestamp" not in old.get(
        "metadata", {}
    ):
        return [f"{name} marked for deletion (waits for its consumers)"]
    return []


def describe(events: list[Event]) -> list[str]:
    """One line per meaningful change, in the order they happened."""
    lines: list[str] = []
    for event in events:
        label = f"{event.kind} {event.key}".replace("ResourceClaim ", "claim ").replace(
            "Pod ", "pod "
        )
        if event.type == "ADDED":
            found = [f"{label} created"]
            if event.kind == "Pod":
                found += _pod_changes(event)
        elif event.type == "DELETED":
            found = [f"{label} deleted"]
        elif event.kind == "Pod":
            found = _pod_changes(event)
        elif event.kind == "ResourceClaim":
            found = _claim_changes(event)
        elif event.kind == "Node":
            was = bool(((event.old or {}).get("spec") or {}).get("unschedulable"))
            now = bool((event.obj.get("spec") or {}).get("unschedulable"))
            found = (
                [] if was == now else [f"node {event.key} {'cordoned' if now else 'uncordoned'}"]
            )
        else:
            found = [f"{label} updated"]
        for line in found:
            if not lines or lines[-1] != line:
                lines.append(line)
    return lines
