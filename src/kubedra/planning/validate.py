"""Re-check a run's allocations with upstream's first-fit allocator.

Claim after claim, node by node, a fresh first-fit ``Allocator`` allocates the claim again
with the claims checked before it counted as allocated and each of its (sub)requests pinned
to the devices it got: every device a request did not get carries a ``NoSchedule`` taint
that only the claim's other requests tolerate (CEL cannot name a device, a taint can). It
must find exactly the devices (and subrequests) the run chose: selectors, classes, counters,
capacity, taints and constraints are then valid by upstream's rules, whatever policy picked
them. A request that tolerates every taint (``operator: Exists`` without a key) is not
pinned by this, so a mismatch may then be reported for a valid allocation.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from kubedra.allocator.engine import Allocator
from kubedra.allocator.features import Features

PIN_PREFIX = "kubedra.io/not-chosen-for-"
"""Taint key prefix of the pins: ``<prefix><n>`` on devices the n-th request did not get."""


def _results(claim: Mapping[str, Any]) -> list[dict[str, Any]]:
    allocation = (claim.get("status") or {}).get("allocation") or {}
    return list((allocation.get("devices") or {}).get("results") or [])


def _chosen(results: Iterable[Mapping[str, Any]]) -> list[tuple[str, str, str, str]]:
    return sorted(
        (str(r.get("request")), str(r.get("driver")), str(r.get("pool")), str(r.get("device")))
        for r in results
    )


def _pin_key(index: int) -> str:
    return f"{PIN_PREFIX}{index}"


def _pinned_slices(
    slices: list[Mapping[str, Any]],
    chosen: dict[tuple[str, str, str], set[int]],
    requests: int,
    own_taints: bool,
) -> list[dict[str, Any]]:
    """The slices with a pin taint per request on every device not chosen for it."""
    out = []
    for s in slices:
        spec = s.get("spec") or {}
        driver = spec.get("driver")
        pool = (spec.get("pool") or {}).get("name")
        devices = []
        for d in spec.get("devices") or []:
            taints = list(d.get("taints") or []) if own_taints else []
            mine = chosen.get((str(driver), str(pool), str(d.get("name"))), set())
            taints += [
                {"key": _pin_key(i), "value": "true", "effect": "NoSchedule"}
                for i in range(requests)
                if i not in mine
            ]
            devices.append(dict(d) | {"taints": taints})
        out.append(dict(s) | {"spec": dict(spec) | {"devices": devices}})
    return out


def _pinned_claim(claim: Mapping[str, Any], names: dict[str, int]) -> dict[str, Any]:
    """``claim`` without status; each (sub)request tolerates the pins of the others."""
    out = copy.deepcopy({k: v for k, v in claim.items() if k != "status"})

    def tolerate(exactly: dict[str, Any], own: int | None) -> None:
        if own is None:
            return  # a (sub)request that got nothing tolerates no pin
        exactly["tolerations"] = [*(exactly.get("tolerations") or [])] + [
            {"key": _pin_key(i), "operator": "Equal", "value": "true", "effect": "NoSchedule"}
            for i in names.values()
            if i != own
        ]

    for request in ((out.get("spec") or {}).get("devices") or {}).get("requests") or []:
        name = str(request.get("name"))
        if request.get("exactly") is not None:
            tolerate(request["exactly"], names.get(name))
        for sub in request.get("firstAvailable") or []:
            tolerate(sub, names.get(f"{name}/{sub.get('name')}"))
    return out


def _pool(s: Mapping[str, Any]) -> tuple[str, str]:
    spec = s.get("spec") or {}
    return str(spec.get("driver")), str((spec.get("pool") or {}).get("name"))


def _visible(s: Mapping[str, Any], node: str) -> bool:
    spec = s.get("spec") or {}
    return not spec.get("nodeName") or spec.get("nodeName") == node


def check_claims(
    features: Features,
    classes: list[Mapping[str, Any]],
    slices: list[Mapping[str, Any]],
    held: list[Mapping[str, Any]],
    rules: list[Mapping[str, Any]],
    node: Mapping[str, Any],
    claims: list[Mapping[str, Any]],
) -> list[str]:
    """Re-allocate each allocated claim of ``claims`` (on ``node``) pinned to its devices,
    after ``held`` and the claims before it; the problems found (empty: all valid).

    With DRADeviceTaints off, taints play no part in the run, so they are dropped and the
    gate is turned on for the pins alone."""
    own_taints = features.device_taints
    if not own_taints:
        features = replace(features, device_taints=True)
        rules = []
    node_name = str((node.get("metadata") or {}).get("name") or "")
    pools = {_pool(s) for s in slices if _visible(s, node_name)}
    visible = [s for s in slices if _pool(s) in pools]
    checked = list(held)
    problems: list[str] = []
    for claim in claims:
        want = _chosen(_results(claim))
        if not want:
            continue
        meta = claim.get("metadata") or {}
        name = f"{meta.get('namespace')}/{meta.get('name')}"
        names: dict[str, int] = {}
        chosen: dict[tuple[str, str, str], set[int]] = {}
        for request, d, p, n in want:
            index = names.setdefault(request, len(names))
            chosen.setdefault((d, p, n), set()).add(index)
        allocator = Allocator(
            features,
            classes,
            _pinned_slices(visible, chosen, len(names), own_taints),
            checked,
            rules,
            timeout=None,
        )
        outcome = allocator.allocate(node, [_pinned_claim(claim, names)])
        if not outcome.ok:
            problems.append(f"claim {name} on {node_name}: {outcome.error or 'does not fit'}")
        else:
            assert outcome.allocations is not None
            got = _chosen(outcome.allocations[0]["devices"]["results"])
            if got != want:
                problems.append(f"claim {name}: chose {want}, first-fit rules give {got}")
        checked.append(claim)
    return problems


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
    checked: list[Mapping[str, Any]] = []
    problems: list[str] = []
    for node_name, claims in per_node.items():
        node = nodes.get(node_name)
        if node is None:
            problems.append(f"claims on unknown node {node_name!r}")
            continue
        problems += check_claims(
            features,
            kinds.get("DeviceClass", []),
            kinds.get("ResourceSlice", []),
            checked,
            kinds.get("DeviceTaintRule", []),
            node,
            claims,
        )
        checked += claims
    return problems


def _claim_node(claim: Mapping[str, Any], pods: list[Mapping[str, Any]]) -> str:
    """The node of the first pod the claim is reserved for."""
    reserved = {r.get("uid") for r in (claim.get("status") or {}).get("reservedFor") or []}
    for pod in pods:
        if pod["metadata"].get("uid") in reserved:
            return str((pod.get("spec") or {}).get("nodeName") or "")
    return ""
