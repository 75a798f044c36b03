"""Claims prepared for allocation: everything that does not depend on the node.

The kube-scheduler validates a pod's claims on every Allocate call; the checks that do not
depend on the node are done once here and replayed in upstream's order, so that the same
error surfaces first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubedra.allocator.features import Features
from kubedra.allocator.inventory import ClassInfo, Inventory
from kubedra.allocator.quantities import parse
from kubedra.allocator.selectors import SelectorChain
from kubedra.api.quantity import Quantity

ALLOCATION_RESULTS_MAX_SIZE = 32


class RequestData:
    """One request without subrequests, or one subrequest."""

    __slots__ = (
        "admin",
        "capacity",
        "capacity_id",
        "chain",
        "claim_index",
        "cls",
        "count",
        "derived",
        "error",
        "mode_all",
        "name",
        "parent",
        "result_name",
        "tolerations",
    )

    def __init__(self, claim_index: int, name: str, parent: str | None) -> None:
        self.claim_index = claim_index
        self.name = name
        self.parent = parent
        self.result_name = f"{parent}/{name}" if parent else name
        self.error: str | None = None
        self.cls: ClassInfo | None = None
        self.chain: SelectorChain | None = None
        self.mode_all = False
        self.count = 0
        self.admin = False
        self.tolerations: list[dict[str, Any]] = []
        self.capacity: dict[str, Quantity] | None = None
        self.capacity_id = 0
        # KEP-6080: the request's derived attributes, name -> CEL expression.
        self.derived: dict[str, str] | None = None


class RequestSlot:
    """A claim request: either one RequestData or its subrequests in priority order."""

    __slots__ = ("error", "name", "options", "raw", "subrequests")

    def __init__(self, name: str, raw: Mapping[str, Any]) -> None:
        self.name = name
        self.raw = raw
        self.error: str | None = None
        self.subrequests = False
        self.options: list[RequestData] = []


class ConstraintSpec:
    __slots__ = ("attribute", "distinct", "requests")

    def __init__(self, requests: list[str], attribute: str, distinct: bool) -> None:
        self.requests = requests
        self.attribute = attribute
        self.distinct = distinct


class PreparedClaim:
    __slots__ = ("constraint_error", "constraints", "label", "raw", "slots")

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.raw = raw
        meta = raw.get("metadata") or {}
        self.label = f"{meta.get('namespace') or ''}/{meta.get('name') or ''}"
        self.slots: list[RequestSlot] = []
        self.constraints: list[ConstraintSpec] = []
        self.constraint_error: str | None = None


def _default_tolerations(raw: Sequence[Mapping[str, Any]] | None) -> list[dict[str, Any]]:
    out = []
    for t in raw or []:
        t = dict(t)
        if not t.get("operator"):
            t["operator"] = "Equal"
        out.append(t)
    return out


def _fill_request(
    data: RequestData,
    raw: Mapping[str, Any],
    claim_label: str,
    inventory: Inventory,
    admin_allowed: bool,
) -> None:
    """upstream validateDeviceRequest, minus the node-dependent part of mode All."""
    features = inventory.features
    derived = raw.get("derivedAttributes") or []
    if derived:
        # Refused rather than ignored, so that constraints are not silently weakened (an
        # apiserver with the gate on and a scheduler with it off); every implementation.
        if not features.derived_attributes:
            data.error = (
                f"claim {claim_label}, request {data.name}: cannot handle request with "
                "derived attributes, the feature is disabled"
            )
            return
        data.derived = {
            str(item.get("name") or ""): str(item.get("expression") or "") for item in derived
        }
    selectors = raw.get("selectors") or []
    exprs: list[str] = []
    for i, selector in enumerate(selectors):
        cel = selector.get("cel")
        if cel is None:
            data.error = (
                f"claim {claim_label}, request {data.name}, selector #{i}: "
                "CEL expression empty (unsupported selector type?)"
            )
            return
        exprs.append(str(cel.get("expression") or ""))
    if admin_allowed and not features.admin_access and raw.get("adminAccess") is not None:
        data.error = (
            f"claim {claim_label}, request {data.name}: admin access is requested, "
            "but the feature is disabled"
        )
        return
    class_name = raw.get("deviceClassName") or ""
    if not class_name:
        data.error = (
            f"claim {claim_label}, request {data.name}: missing device class name "
            "(unsupported request type?)"
        )
        return
    cls = inventory.classes.get(class_name)
    if cls is None:
        data.error = (
            f"claim {claim_label}, request {data.name}: could not retrieve device class "
            f'{class_name}: deviceclass.resource.k8s.io "{class_name}" not found'
        )
        return
    data.cls = cls
    class_exprs = [e if e is not None else "" for e in cls.selectors]
    data.chain = SelectorChain(class_exprs, exprs, features)
    data.admin = bool(raw.get("adminAccess")) if admin_allowed else False
    data.tolerations = _default_tolerations(raw.get("tolerations"))
    capacity = (raw.get("capacity") or {}).get("requests")
    if capacity is not None:
        data.capacity = {
            name: parse(value, f"claim {claim_label}, request {data.name}: capacity {name}")
            for name, value in capacity.items()
        }
        key = tuple(sorted((name, str(q)) for name, q in data.capacity.items()))
        ids = inventory.capacity_ids
        cid = ids.get(key)
        if cid is None:
            cid = len(ids) + 1
            ids[key] = cid
        data.capacity_id = cid
    mode = raw.get("allocationMode") or "ExactCount"
    if mode == "ExactCount":
        count = raw.get("count")
        data.count = 1 if count is None else int(count)
    elif mode == "All":
        data.mode_all = True
    else:
        data.error = f"claim {claim_label}, request {data.name}: unsupported count mode {mode}"


def prepare_claims(
    claims: Sequence[Mapping[str, Any]], inventory: Inventory
) -> list[PreparedClaim]:
    """Prepare claims for allocation against the classes of ``inventory``."""
    features: Features = inventory.features
    prepared: list[PreparedClaim] = []
    for claim_index, raw in enumerate(claims):
        claim = PreparedClaim(raw)
        devices = (raw.get("spec") or {}).get("devices") or {}
        for request in devices.get("requests") or []:
            name = str(request.get("name") or "")
            slot = RequestSlot(name, request)
            claim.slots.append(slot)
            first_available = request.get("firstAvailable") or []
            exactly = request.get("exactly")
            if not features.prioritized_list and first_available:
                slot.error = (
                    f"claim {claim.label}, request {name}: has subrequests, "
                    "but the DRAPrioritizedList feature is disabled"
                )
                continue
            if not features.consumable_capacity:
                if exactly is not None and exactly.get("capacity") is not None:
                    slot.error = (
                        f"claim {claim.label}, request {name}: has capacity requests, "
                        "but the DRAConsumableCapacity feature is disabled"
                    )
                    continue
                bad = next((s for s in first_available if s.get("capacity") is not None), None)
                if bad is not None:
                    slot.error = (
                        f"claim {claim.label}, subrequest {bad.get('name')}: has capacity "
                        "requests, but the DRAConsumableCapacity feature is disabled"
                    )
                    continue
            if first_available:
                slot.subrequests = True
                for sub in first_available:
                    data = RequestData(claim_index, str(sub.get("name") or ""), name)
                    _fill_request(data, sub, claim.label, inventory, admin_allowed=False)
                    slot.options.append(data)
            else:
                data = RequestData(claim_index, name, None)
                _fill_request(data, exactly or {}, claim.label, inventory, admin_allowed=True)
                slot.options.append(data)
        for i, constraint in enumerate(devices.get("constraints") or []):
            requests = [str(r) for r in constraint.get("requests") or []]
            if constraint.get("matchAttribute") is not None:
                claim.constraints.append(
                    ConstraintSpec(requests, str(constraint["matchAttribute"]), False)
                )
            elif constraint.get("distinctAttribute") is not None and not features.conservative:
                # The conservative implementation predates distinctAttribute and reports it
                # like any unknown constraint (below).
                claim.constraints.append(
                    ConstraintSpec(requests, str(constraint["distinctAttribute"]), True)
                )
            else:
                claim.constraint_error = (
                    f"claim {claim.label}, constraint #{i}: empty constraint "
                    "(unsupported constraint type?)"
                )
                break
        prepared.append(claim)
    return prepared
