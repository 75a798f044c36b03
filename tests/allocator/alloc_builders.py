"""Small builders for v1 wire objects, so allocator tests read like the scenario they test."""

from __future__ import annotations

from typing import Any

from kubedra.allocator.engine import Allocator, Outcome
from kubedra.allocator.features import Features

DRIVER = "gpu.example.com"


def node(name: str = "node-1", **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}}


def device(name: str, **fields: Any) -> dict[str, Any]:
    """A device; ``attrs`` maps attribute names to values (str/int/bool) or raw dicts."""
    out: dict[str, Any] = {"name": name}
    attrs = fields.pop("attrs", None)
    if attrs:
        out["attributes"] = {k: v if isinstance(v, dict) else _attr(v) for k, v in attrs.items()}
    capacity = fields.pop("capacity", None)
    if capacity:
        out["capacity"] = {
            k: v if isinstance(v, dict) else {"value": v} for k, v in capacity.items()
        }
    out.update(fields)
    return out


def _attr(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"bool": value}
    if isinstance(value, int):
        return {"int": value}
    return {"string": value}


def slice_(
    name: str,
    devices: list[dict[str, Any]],
    *,
    driver: str = DRIVER,
    pool: str = "node-1",
    node_name: str | None = "node-1",
    generation: int = 1,
    count: int = 1,
    **spec: Any,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "driver": driver,
        "pool": {"name": pool, "generation": generation, "resourceSliceCount": count},
    }
    if node_name is not None:
        body["nodeName"] = node_name
    if devices:
        body["devices"] = devices
    body.update(spec)
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": name},
        "spec": body,
    }


def device_class(name: str = DRIVER, *selectors: str, config: Any = None) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if selectors:
        spec["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    if config:
        spec["config"] = config
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": name},
        "spec": spec,
    }


def request(
    name: str, cls: str = DRIVER, count: int | None = None, **exactly: Any
) -> dict[str, Any]:
    body: dict[str, Any] = {"deviceClassName": cls, **exactly}
    if count is not None:
        body["count"] = count
    return {"name": name, "exactly": body}


def claim(
    name: str, *requests: dict[str, Any], namespace: str = "default", **devices: Any
) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": namespace, "uid": f"{namespace}-{name}"},
        "spec": {"devices": {"requests": list(requests), **devices}},
    }


def allocated(c: dict[str, Any], *results: dict[str, Any]) -> dict[str, Any]:
    out = dict(c)
    out["status"] = {"allocation": {"devices": {"results": list(results)}}}
    return out


def result(
    req: str, dev: str, pool: str = "node-1", driver: str = DRIVER, **extra: Any
) -> dict[str, Any]:
    return {"request": req, "driver": driver, "pool": pool, "device": dev, **extra}


def allocate(
    slices: list[dict[str, Any]],
    claims: list[dict[str, Any]],
    *,
    classes: list[dict[str, Any]] | None = None,
    allocated_claims: list[dict[str, Any]] | None = None,
    target: dict[str, Any] | None = None,
    features: Features | None = None,
) -> Outcome:
    allocator = Allocator(
        features or Features(),
        classes if classes is not None else [device_class()],
        slices,
        allocated_claims or [],
    )
    return allocator.allocate(target or node(), claims)


def picked(outcome: Outcome, claim_index: int = 0) -> list[str]:
    """``request=device`` for each result of one claim, in order."""
    assert outcome.allocations is not None, outcome
    return [
        f"{r['request']}={r['device']}"
        for r in outcome.allocations[claim_index]["devices"].get("results", [])
    ]
