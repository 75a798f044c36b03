"""AllocationResult dicts in the v1 wire form, serialized as Kubernetes does (empty omitted)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from kubedra.allocator.features import Features

if TYPE_CHECKING:
    from kubedra.allocator.claims import PreparedClaim, RequestData
    from kubedra.allocator.search import DeviceResult


def _device_result(
    entry: DeviceResult, features: Features, share_ids: Callable[[], str]
) -> dict[str, Any]:
    device = entry.device
    data = entry.request
    out: dict[str, Any] = {
        "request": data.result_name,
        "driver": device.driver,
        "pool": device.pool,
        "device": device.name,
    }
    if data.admin:
        out["adminAccess"] = True
    if data.tolerations:
        out["tolerations"] = [
            {k: v for k, v in t.items() if v is not None and v != ""} for t in data.tolerations
        ]
    if features.binding_conditions:
        if device.binding_conditions:
            out["bindingConditions"] = list(device.binding_conditions)
        if device.binding_failure_conditions:
            out["bindingFailureConditions"] = list(device.binding_failure_conditions)
    if entry.shared:
        out["shareID"] = share_ids()
    if entry.consumed:
        out["consumedCapacity"] = {name: str(q) for name, _, q in entry.consumed}
    # KEP-5945: a copy of the slice's list at allocation time. Only upstream's newest
    # implementation writes it (and allocates such devices only when the gate is on).
    skip = device.slice.skip_node_operations
    if skip and features.experimental:
        out["skipNodeOperations"] = list(skip)
    return out


def _config_entry(source: str, config: Any, requests: list[str] | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"source": source}
    if requests:
        entry["requests"] = list(requests)
    for key, value in config.items():
        if key != "requests":
            entry[key] = value
    return entry


def _configs(claim: PreparedClaim, chosen: Sequence[RequestData]) -> list[dict[str, Any]]:
    """Class configs (grouped per class) then claim configs, each naming the requests it
    applies to unless it applies to all of them."""
    out: list[dict[str, Any]] = []
    all_requests = len(claim.slots)
    users: dict[str, list[str]] = {}
    classes = []
    for data in chosen:
        if data.cls is None:
            continue
        if data.cls.name not in users:
            users[data.cls.name] = []
            classes.append(data.cls)
        users[data.cls.name].append(data.result_name)
    for cls in classes:
        names = users[cls.name]
        for config in cls.config:
            out.append(
                _config_entry("FromClass", config, None if len(names) == all_requests else names)
            )
    devices = (claim.raw.get("spec") or {}).get("devices") or {}
    for config in devices.get("config") or []:
        names = config.get("requests") or []
        if not names:
            out.append(_config_entry("FromClaim", config, None))
            continue
        applies = 0
        for slot, data in zip(claim.slots, chosen, strict=True):
            if slot.name in names or (
                data.parent is not None and f"{slot.name}/{data.name}" in names
            ):
                applies += 1
        if applies:
            out.append(
                _config_entry("FromClaim", config, None if applies == all_requests else names)
            )
    return out


class NodeSelectorTermsError(ValueError):
    """A device's node selector has several terms, which upstream cannot merge."""


def _same_requirement(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return (
        a.get("key") == b.get("key")
        and a.get("operator") == b.get("operator")
        and set(a.get("values") or []) == set(b.get("values") or [])
    )


def _node_selector(
    entries: Sequence[DeviceResult], node_name: str, features: Features
) -> dict[str, Any] | None:
    fields: list[dict[str, Any]] = []
    expressions: list[dict[str, Any]] = []
    for entry in entries:
        device = entry.device
        if device.slice.per_device:
            own_node, selector = device.node_name, device.node_selector
        else:
            own_node, selector = device.slice.node_name, device.slice.node_selector
        # The conservative implementation predates bindsToNode and ignores it.
        if own_node or (device.binds_to_node and not features.conservative):
            return {
                "nodeSelectorTerms": [
                    {
                        "matchFields": [
                            {"key": "metadata.name", "operator": "In", "values": [node_name]}
                        ]
                    }
                ]
            }
        if selector is not None:
            terms = selector.get("nodeSelectorTerms") or []
            if len(terms) > 1:
                raise NodeSelectorTermsError(
                    f"unsupported ResourceSlice.NodeSelector with {len(terms)} terms"
                )
            if len(terms) == 1:
                for target, source in (
                    (fields, terms[0].get("matchFields") or []),
                    (expressions, terms[0].get("matchExpressions") or []),
                ):
                    for requirement in source:
                        if not any(_same_requirement(r, requirement) for r in target):
                            target.append(dict(requirement))
    if not fields and not expressions:
        return None
    term: dict[str, Any] = {}
    if expressions:
        term["matchExpressions"] = expressions
    if fields:
        term["matchFields"] = fields
    return {"nodeSelectorTerms": [term]}


def build_allocation(
    claim: PreparedClaim,
    entries: Sequence[DeviceResult],
    chosen: Sequence[RequestData],
    node_name: str,
    features: Features,
    share_ids: Callable[[], str],
) -> dict[str, Any]:
    """One claim's AllocationResult; ``share_ids`` gives each share its shareID."""
    # Kubernetes omits every empty field: a claim without requests gets "devices": {}.
    devices: dict[str, Any] = {}
    if entries:
        devices["results"] = [_device_result(e, features, share_ids) for e in entries]
    configs = _configs(claim, chosen)
    if configs:
        devices["config"] = configs
    allocation: dict[str, Any] = {"devices": devices}
    selector = _node_selector(entries, node_name, features)
    if selector is not None:
        allocation["nodeSelector"] = selector
    return allocation
