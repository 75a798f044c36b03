"""Server-side printing: the ``Table`` kubectl asks for, with upstream's columns per kind.

Columns and cell text follow kubernetes/pkg/printers/internalversion (pods: NAME READY
STATUS RESTARTS AGE, wide: IP NODE NOMINATED NODE READINESS GATES; resourceclaims: NAME
STATE AGE). Ages are measured on the simulated clock, the only time the cluster knows.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from kubedra.cluster.clock import parse_time

Column = tuple[str, str, int]
"""(name, type, priority): priority 1 columns show with ``-o wide``."""

Printer = Callable[[dict[str, Any], datetime], list[Any]]

NONE = "<none>"


def human_duration(seconds: float) -> str:
    """apimachinery's duration.HumanDuration."""
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    s = int(seconds)
    if s < 60 * 2:
        return f"{s}s"
    minutes = s // 60
    if minutes < 10:
        rest = s % 60
        return f"{minutes}m{rest}s" if rest else f"{minutes}m"
    if minutes < 60 * 3:
        return f"{minutes}m"
    hours = minutes // 60
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h{rest}m" if rest else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rest = hours % 24
        return f"{hours // 24}d{rest}h" if rest else f"{hours // 24}d"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        days = hours // 24 - 365 * (hours // 24 // 365)
        return f"{hours // 24 // 365}y{days}d" if days else f"{hours // 24 // 365}y"
    return f"{hours // 24 // 365}y"


def age(obj: dict[str, Any], now: datetime) -> str:
    created = parse_time(str((obj.get("metadata") or {}).get("creationTimestamp") or ""))
    if created is None:
        return "<unknown>"
    return human_duration((now - created).total_seconds())


def _name(obj: dict[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name", ""))


# --- pods ----------------------------------------------------------------------------------


def pod_status(pod: dict[str, Any]) -> str:
    """The STATUS cell as kubectl's printPod writes it: the phase (or status reason), a
    container's waiting or terminated reason (its exit code when it has none),
    SchedulingGated, and Terminating for a deleted pod that has not finished."""
    status = pod.get("status") or {}
    phase = str(status.get("phase") or "")
    reason = str(status.get("reason") or phase)
    for condition in status.get("conditions") or []:
        if condition.get("type") == "PodScheduled" and condition.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"
    running = False
    for container in reversed(status.get("containerStatuses") or []):
        state = container.get("state") or {}
        waiting = state.get("waiting") or {}
        terminated = state.get("terminated")
        if waiting.get("reason"):
            reason = str(waiting["reason"])
        elif terminated is not None and terminated.get("reason"):
            reason = str(terminated["reason"])
        elif terminated is not None:
            signal = terminated.get("signal")
            reason = f"Signal:{signal}" if signal else f"ExitCode:{terminated.get('exitCode', 0)}"
        elif container.get("ready") and state.get("running") is not None:
            running = True
    if reason == "Completed" and running:
        ready = any(
            c.get("type") == "Ready" and c.get("status") == "True"
            for c in status.get("conditions") or []
        )
        reason = "Running" if ready else "NotReady"
    deleted = (pod.get("metadata") or {}).get("deletionTimestamp")
    if deleted and status.get("reason") == "NodeLost":
        reason = "Unknown"
    elif deleted and phase not in ("Succeeded", "Failed"):
        reason = "Terminating"
    return reason


def _pod_row(pod: dict[str, Any], now: datetime) -> list[Any]:
    spec = pod.get("spec") or {}
    status = pod.get("status") or {}
    containers = spec.get("containers") or []
    statuses = status.get("containerStatuses") or []
    ready = sum(
        1
        for container in statuses
        if container.get("ready") and (container.get("state") or {}).get("running") is not None
    )
    restarts = sum(int(container.get("restartCount") or 0) for container in statuses)
    gates = spec.get("readinessGates") or []
    conditions = {c.get("type"): c.get("status") for c in status.get("conditions") or []}
    gates_cell = (
        f"{sum(1 for g in gates if conditions.get(g.get('conditionType')) == 'True')}/{len(gates)}"
        if gates
        else NONE
    )
    return [
        _name(pod),
        f"{ready}/{len(containers)}",
        pod_status(pod),
        str(restarts),
        age(pod, now),
        status.get("podIP") or NONE,
        spec.get("nodeName") or NONE,
        status.get("nominatedNodeName") or NONE,
        gates_cell,
    ]


# --- resource.k8s.io -----------------------------------------------------------------------


def claim_state(claim: dict[str, Any]) -> str:
    """upstream's resourceClaimState: deleted, pending, allocated, reserved."""
    states: list[str] = []
    deleted = bool((claim.get("metadata") or {}).get("deletionTimestamp"))
    status = claim.get("status") or {}
    if deleted:
        states.append("deleted")
    if not status.get("allocation"):
        if not deleted:
            states.append("pending")
    else:
        states.append("allocated")
        if status.get("reservedFor"):
            states.append("reserved")
    return ",".join(states)


def _slice_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec = obj.get("spec") or {}
    node = spec.get("nodeName") or ("<all nodes>" if spec.get("allNodes") else NONE)
    pool = (spec.get("pool") or {}).get("name", "")
    return [_name(obj), node, spec.get("driver", ""), pool, age(obj, now)]


# --- core ----------------------------------------------------------------------------------


def _node_row(node: dict[str, Any], now: datetime) -> list[Any]:
    status = node.get("status") or {}
    info = status.get("nodeInfo") or {}
    conditions = [c for c in status.get("conditions") or [] if c.get("type") == "Ready"]
    states = ["Unknown"]
    if conditions:
        states = ["Ready" if conditions[0].get("status") == "True" else "NotReady"]
    if (node.get("spec") or {}).get("unschedulable"):
        states.append("SchedulingDisabled")
    labels = (node.get("metadata") or {}).get("labels") or {}
    roles = sorted(
        {
            key.removeprefix("node-role.kubernetes.io/")
            for key in labels
            if key.startswith("node-role.kubernetes.io/")
        }
        | ({labels["kubernetes.io/role"]} if labels.get("kubernetes.io/role") else set())
    )
    addresses = status.get("addresses") or []

    def address(kind: str) -> str:
        return next((a["address"] for a in addresses if a.get("type") == kind), NONE)

    return [
        _name(node),
        ",".join(states),
        ",".join(sorted(roles)) or NONE,
        age(node, now),
        info.get("kubeletVersion", ""),
        address("InternalIP"),
        address("ExternalIP"),
        info.get("osImage") or "<unknown>",
        info.get("kernelVersion") or "<unknown>",
        info.get("containerRuntimeVersion") or "<unknown>",
    ]


def _namespace_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    return [_name(obj), (obj.get("status") or {}).get("phase", ""), age(obj, now)]


def _priority_class_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    return [
        _name(obj),
        int(obj.get("value") or 0),
        bool(obj.get("globalDefault")),
        age(obj, now),
        obj.get("preemptionPolicy") or "",
    ]


def _event_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    involved = obj.get("involvedObject") or {}
    last = obj.get("lastTimestamp") or obj.get("eventTime")
    since = parse_time(str(last or ""))
    last_seen = human_duration((now - since).total_seconds()) if since else "<unknown>"
    return [
        last_seen,
        obj.get("type", ""),
        obj.get("reason", ""),
        f"{str(involved.get('kind', '')).lower()}/{involved.get('name', '')}",
        involved.get("fieldPath", ""),
        (obj.get("source") or {}).get("component", ""),
        obj.get("message", ""),
        last_seen,
        str(obj.get("count") or 1),
        _name(obj),
    ]


def _lease_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    holder = (obj.get("spec") or {}).get("holderIdentity") or ""
    return [_name(obj), holder, age(obj, now)]


def _default_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    """The apiserver's default convertor: name and creation time."""
    return [_name(obj), (obj.get("metadata") or {}).get("creationTimestamp", "")]


_AGE: Column = ("Age", "string", 0)
_NAME: Column = ("Name", "string", 0)

PRINTERS: dict[str, tuple[list[Column], Printer]] = {
    "Pod": (
        [
            _NAME,
            ("Ready", "string", 0),
            ("Status", "string", 0),
            ("Restarts", "string", 0),
            _AGE,
            ("IP", "string", 1),
            ("Node", "string", 1),
            ("Nominated Node", "string", 1),
            ("Readiness Gates", "string", 1),
        ],
        _pod_row,
    ),
    "ResourceClaim": (
        [_NAME, ("State", "string", 0), _AGE],
        lambda obj, now: [_name(obj), claim_state(obj), age(obj, now)],
    ),
    "ResourceClaimTemplate": ([_NAME, _AGE], lambda obj, now: [_name(obj), age(obj, now)]),
    "DeviceClass": ([_NAME, _AGE], lambda obj, now: [_name(obj), age(obj, now)]),
    "ResourceSlice": (
        [_NAME, ("Node", "string", 0), ("Driver", "string", 0), ("Pool", "string", 0), _AGE],
        _slice_row,
    ),
    "DeviceTaintRule": ([_NAME, ("Created At", "date", 0)], _default_row),
    "Node": (
        [
            _NAME,
            ("Status", "string", 0),
            ("Roles", "string", 0),
            _AGE,
            ("Version", "string", 0),
            ("Internal-IP", "string", 1),
            ("External-IP", "string", 1),
            ("OS-Image", "string", 1),
            ("Kernel-Version", "string", 1),
            ("Container-Runtime", "string", 1),
        ],
        _node_row,
    ),
    "Namespace": ([_NAME, ("Status", "string", 0), _AGE], _namespace_row),
    "PriorityClass": (
        [
            _NAME,
            ("Value", "integer", 0),
            ("Global-Default", "boolean", 0),
            _AGE,
            ("PreemptionPolicy", "string", 0),
        ],
        _priority_class_row,
    ),
    "Lease": ([_NAME, ("Holder", "string", 0), _AGE], _lease_row),
    "Event": (
        [
            ("Last Seen", "string", 0),
            ("Type", "string", 0),
            ("Reason", "string", 0),
            ("Object", "string", 0),
            ("Subobject", "string", 1),
            ("Source", "string", 1),
            ("Message", "string", 0),
            ("First Seen", "string", 1),
            ("Count", "string", 1),
            ("Name", "string", 1),
        ],
        _event_row,
    ),
}


def wants_table(accept: str | None) -> bool:
    """Whether the Accept header asks for a meta.k8s.io Table."""
    return bool(accept) and "as=Table" in str(accept)


def _row_object(obj: dict[str, Any], include: str) -> dict[str, Any] | None:
    if include == "None":
        return None
    if include == "Object":
        return obj
    return {
        "kind": "PartialObjectMetadata",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": obj.get("metadata") or {},
    }


def to_table(
    kind: str,
    objects: list[dict[str, Any]],
    now: datetime,
    list_meta: dict[str, Any],
    include_object: str = "Metadata",
) -> dict[str, Any]:
    """A ``meta.k8s.io/v1`` Table of ``objects``; ``include_object`` as ``?includeObject=``."""
    columns, printer = PRINTERS.get(kind, ([_NAME, ("Created At", "date", 0)], _default_row))
    definitions = []
    for name, type_, priority in columns:
        definition: dict[str, Any] = {"name": name, "type": type_}
        if (name == "Name" and priority == 0) or (kind == "Event" and name == "Name"):
            definition["format"] = "name"
        definition["description"] = ""
        definition["priority"] = priority
        definitions.append(definition)
    rows = []
    for obj in objects:
        row: dict[str, Any] = {"cells": printer(obj, now)}
        embedded = _row_object(obj, include_object)
        if embedded is not None:
            row["object"] = embedded
        rows.append(row)
    return {
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": list_meta,
        "columnDefinitions": definitions,
        "rows": rows,
    }
