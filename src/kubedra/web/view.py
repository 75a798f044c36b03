"""The cluster as the page draws it: nodes, pools, devices, claims, pods, and the decisions.

Everything here is plain JSON built from the store; the page reconstructs earlier steps of
the step-through from the decisions (which pod went where, which devices each claim got).
"""

from __future__ import annotations

from typing import Any

from kubedra.api.quantity import Quantity
from kubedra.cel import compile_selector
from kubedra.cel.device import CelDevice
from kubedra.cel.errors import CelError
from kubedra.cluster.podclaims import pod_claim_names
from kubedra.cluster.poolstatus import cluster_pool_statuses
from kubedra.cluster.store import Store

KEY_ATTRIBUTES = 4
"""Attributes a device slot shows (the rest are in its tooltip)."""


def quantity_number(raw: Any) -> float:
    """A quantity as a float for gauges and charts (0 when it does not parse)."""
    try:
        return Quantity.parse(str(raw)).as_approximate_float()
    except ValueError:
        return 0.0


def device_key(driver: str, pool: str, name: str) -> str:
    return f"{driver}/{pool}/{name}"


def _attribute_text(attr: dict[str, Any]) -> str:
    for kind in ("string", "version", "int", "bool"):
        if kind in attr:
            return str(attr[kind]).lower() if kind == "bool" else str(attr[kind])
    for kind in ("strings", "versions", "ints", "bools"):
        if kind in attr:
            return ", ".join(str(v) for v in attr[kind] or [])
    return ""


def _class_selectors(store: Store) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for cls in store.list("DeviceClass"):
        exprs = [
            str((s.get("cel") or {}).get("expression") or "")
            for s in (cls.get("spec") or {}).get("selectors") or []
        ]
        out[cls["metadata"]["name"]] = exprs
    return out


def selector_result(expression: str, device: CelDevice) -> tuple[bool, str | None]:
    """(matches, why not): a compile or evaluation error counts as no match, with its text."""
    try:
        return compile_selector(expression).matches(device), None
    except CelError as error:
        return False, str(error)


def cel_device(device: dict[str, Any], driver: str) -> CelDevice:
    return CelDevice.from_v1(device, driver)


def devices_of(store: Store) -> list[dict[str, Any]]:
    """Every device of every slice with what a slot shows and the classes that select it."""
    classes = _class_selectors(store)
    out: list[dict[str, Any]] = []
    for slc in store.list("ResourceSlice"):
        spec = slc.get("spec") or {}
        driver = str(spec.get("driver") or "")
        pool = str((spec.get("pool") or {}).get("name") or "")
        node = spec.get("nodeName")
        for dev in spec.get("devices") or []:
            name = str(dev.get("name") or "")
            cel = cel_device(dev, driver)
            attributes = {
                k: _attribute_text(v or {}) for k, v in (dev.get("attributes") or {}).items()
            }
            capacity = {
                k: str((v or {}).get("value")) for k, v in (dev.get("capacity") or {}).items()
            }
            consumes = {
                str(c.get("counterSet")): {
                    k: quantity_number((v or {}).get("value"))
                    for k, v in (c.get("counters") or {}).items()
                }
                for c in dev.get("consumesCounters") or []
            }
            out.append(
                {
                    "key": device_key(driver, pool, name),
                    "driver": driver,
                    "pool": pool,
                    "name": name,
                    "node": node,
                    "slice": slc["metadata"]["name"],
                    "networkAttached": not node,
                    "attributes": attributes,
                    "keyAttributes": dict(list(attributes.items())[:KEY_ATTRIBUTES]),
                    "capacity": capacity,
                    "capacityNumbers": {k: quantity_number(v) for k, v in capacity.items()},
                    "multiAllocatable": bool(dev.get("allowMultipleAllocations")),
                    "consumesCounters": consumes,
                    "taints": [t.get("key") for t in dev.get("taints") or []],
                    "classes": [
                        cls
                        for cls, exprs in classes.items()
                        if all(selector_result(e, cel)[0] for e in exprs)
                    ],
                }
            )
    return out


def counter_sets(store: Store) -> list[dict[str, Any]]:
    """Shared counters of partitionable devices, per pool."""
    out: list[dict[str, Any]] = []
    for slc in store.list("ResourceSlice"):
        spec = slc.get("spec") or {}
        driver = str(spec.get("driver") or "")
        pool = str((spec.get("pool") or {}).get("name") or "")
        for cs in spec.get("sharedCounters") or []:
            counters = cs.get("counters") or {}
            out.append(
                {
                    "driver": driver,
                    "pool": pool,
                    "node": spec.get("nodeName"),
                    "name": cs.get("name"),
                    "counters": {
                        k: quantity_number((v or {}).get("value")) for k, v in counters.items()
                    },
                    "text": {k: str((v or {}).get("value")) for k, v in counters.items()},
                }
            )
    return out


def _allocated(claim: dict[str, Any]) -> list[dict[str, Any]]:
    allocation = (claim.get("status") or {}).get("allocation") or {}
    results = (allocation.get("devices") or {}).get("results") or []
    return [
        {
            "request": r.get("request"),
            "device": device_key(str(r.get("driver")), str(r.get("pool")), str(r.get("device"))),
            "consumed": {
                k: quantity_number(v) for k, v in (r.get("consumedCapacity") or {}).items()
            },
        }
        for r in results
    ]


def claim_view(claim: dict[str, Any]) -> dict[str, Any]:
    meta = claim["metadata"]
    status = claim.get("status") or {}
    requests = []
    for req in (claim.get("spec") or {}).get("devices", {}).get("requests") or []:
        exactly = req.get("exactly") or {}
        requests.append(
            {
                "name": req.get("name"),
                "deviceClassName": exactly.get("deviceClassName"),
                "count": exactly.get("count", 1),
                "allocationMode": exactly.get("allocationMode"),
                "selectors": [
                    (s.get("cel") or {}).get("expression") for s in exactly.get("selectors") or []
                ],
                "firstAvailable": [s.get("name") for s in req.get("firstAvailable") or []],
            }
        )
    results = _allocated(claim)
    reserved = [f"{r.get('resource')}/{r.get('name')}" for r in status.get("reservedFor") or []]
    state = "reserved" if reserved else "allocated" if results else "pending"
    return {
        "key": f"{meta.get('namespace')}/{meta['name']}",
        "name": meta["name"],
        "namespace": meta.get("namespace"),
        "requests": requests,
        "results": results,
        "reservedFor": reserved,
        "state": state,
    }


def pod_view(pod: dict[str, Any]) -> dict[str, Any]:
    meta = pod["metadata"]
    namespace = str(meta.get("namespace") or "")
    status = pod.get("status") or {}
    message = None
    for cond in status.get("conditions") or []:
        if cond.get("type") == "PodScheduled" and cond.get("status") == "False":
            message = cond.get("message")
    node = (pod.get("spec") or {}).get("nodeName")
    return {
        "key": f"{namespace}/{meta['name']}",
        "name": meta["name"],
        "namespace": namespace,
        "node": node,
        "phase": status.get("phase") or "Pending",
        "message": message,
        "claims": [f"{namespace}/{name}" for name, _ in pod_claim_names(pod)],
    }


def node_view(node: dict[str, Any]) -> dict[str, Any]:
    meta = node["metadata"]
    capacity = (node.get("status") or {}).get("capacity") or {}
    return {
        "name": meta["name"],
        "labels": meta.get("labels") or {},
        "capacity": {k: str(v) for k, v in capacity.items()},
        "unschedulable": bool((node.get("spec") or {}).get("unschedulable")),
    }


def cluster_view(store: Store) -> dict[str, Any]:
    """The whole picture the page draws, at the store's current state."""
    return {
        "resourceVersion": store.resource_version,
        "nodes": [node_view(n) for n in store.list("Node")],
        "devices": devices_of(store),
        "counterSets": counter_sets(store),
        "deviceClasses": sorted(_class_selectors(store)),
        "claims": [claim_view(c) for c in store.list("ResourceClaim")],
        "pods": [pod_view(p) for p in store.list("Pod")],
        "poolStatus": pool_status_view(store),
    }


def pool_status_view(store: Store) -> list[dict[str, Any]]:
    """Each pool's ResourcePoolStatusRequest status (KEP-5677) at the live state, with the
    shareable capacity also as numbers for the chart's bars. Partition types come from the
    slices' ``partitionTypeAttribute``; the page has no request to name a default."""
    out = cluster_pool_statuses(store)
    for status in out:
        for cap in (status.get("shareableSummary") or {}).get("capacity") or []:
            cap["consumedNumber"] = quantity_number(cap["consumed"])
            cap["totalNumber"] = quantity_number(cap["total"])
    return out
