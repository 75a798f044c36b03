"""Re-check a run's allocations with upstream's first-fit allocator.

Claim after claim, node by node, a fresh first-fit ``Allocator`` allocates the claim again
with every device it did not get tainted ``NoSchedule`` (CEL cannot name a device, a taint
can pin one) and the claims checked before it counted as allocated. It must find exactly the
devices (and subrequests) the run chose: selectors, classes, counters, capacity, taints and
constraints are then valid by upstream's rules, whatever policy picked them. A claim that
tolerates every taint (``operator: Exists`` without a key) cannot be pinned and is reported.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kubedra.allocator.engine import Allocator
from kubedra.allocator.features import Features

PIN_TAINT = {"key": "kubedra.io/not-chosen", "value": "true", "effect": "NoSchedule"}


def _results(claim: Mapping[str, Any]) -> list[dict[str, Any]]:
    allocation = (claim.get("status") or {}).get("allocation") or {}
    return list((allocation.get("devices") or {}).get("results") or [])


def _chosen(results: Iterable[Mapping[str, Any]]) -> list[tuple[str, str, str, str]]:
    return sorted(
        (str(r.get("request")), str(r.get("driver")), str(r.get("pool")), str(r.get("device")))
        for r in results
    )


def _pinned_slices(
    slices: list[Mapping[str, Any]], keep: set[tuple[str, str, str]]
) -> list[dict[str, Any]]:
    out = []
    for s in slices:
        spec = s.get("spec") or {}
        driver = spec.get("driver")
        pool = (spec.get("pool") or {}).get("name")
        devices = []
        for d in spec.get("devices") or []:
            if (driver, pool, d.get("name")) in keep:
                devices.append(d)
            else:
                devices.append(d | {"taints": [*(d.get("taints") or []), PIN_TAINT]})
        out.append(dict(s) | {"spec": dict(spec) | {"devices": devices}})
    return out


def _visible(s: Mapping[str, Any], node: str) -> bool:
    spec = s.get("spec") or {}
    return not spec.get("nodeName") or spec.get("nodeName") == node


def revalidate(objects: Iterable[Mapping[str, Any]], features: Features | None = None) -> list[str]:
    """Problems found re-allocating every allocated claim of ``objects`` (empty: all valid)."""
    features = features or Features()
    kinds: dict[str, list[Mapping[str, Any]]] = {}
    for obj in objects:
        kinds.setdefault(str(obj.get("kind")), []).append(obj)
    nodes = {n["metadata"]["name"]: n for n in kinds.get("Node", [])}
    pods = kinds.get("Pod", [])
    per_node: dict[str, list[Mapping[str, Any]]] = {}
    for claim in kinds.get("ResourceClaim", []):
        if _results(claim):
            per_node.setdefault(_claim_node(claim, pods), []).append(claim)
    slices = kinds.get("ResourceSlice", [])
    checked: list[Mapping[str, Any]] = []
    problems: list[str] = []
    for node_name, claims in per_node.items():
        node = nodes.get(node_name)
        if node is None:
            problems.append(f"claims on unknown node {node_name!r}")
            continue
        visible = [s for s in slices if _visible(s, node_name)]
        for claim in claims:
            name = f"{claim['metadata'].get('namespace')}/{claim['metadata']['name']}"
            want = _chosen(_results(claim))
            keep = {(d, p, n) for _, d, p, n in want}
            allocator = Allocator(
                features,
                kinds.get("DeviceClass", []),
                _pinned_slices(visible, keep),
                checked,
                kinds.get("DeviceTaintRule", []),
                timeout=None,
            )
            bare = {k: v for k, v in claim.items() if k != "status"}
            outcome = allocator.allocate(node, [bare])
            if not outcome.ok:
                problems.append(f"claim {name} on {node_name}: {outcome.error or 'does not fit'}")
            else:
                assert outcome.allocations is not None
                got = _chosen(outcome.allocations[0]["devices"]["results"])
                if got != want:
                    problems.append(f"claim {name}: chose {want}, first-fit rules give {got}")
            checked.append(claim)
    return problems


def _claim_node(claim: Mapping[str, Any], pods: list[Mapping[str, Any]]) -> str:
    """The node of the first pod the claim is reserved for."""
    reserved = {r.get("uid") for r in (claim.get("status") or {}).get("reservedFor") or []}
    for pod in pods:
        if pod["metadata"].get("uid") in reserved:
            return str((pod.get("spec") or {}).get("nodeName") or "")
    return ""
