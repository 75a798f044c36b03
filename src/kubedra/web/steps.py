"""The scheduling decisions as steps of the page's step-through.

For each decision: the pod's claims and requests, and for every device whether it is a
candidate for the request (its class and the request's selectors accept it, and its node was
not ruled out by another plugin) or why not; the devices the allocation chose.
"""

from __future__ import annotations

from typing import Any

from kubedra.cluster.store import Store
from kubedra.web.view import cel_device, device_key, quantity_number, selector_result

DRA_PLUGIN = "DynamicResources"


def _device_index(store: Store) -> list[tuple[str, str | None, Any]]:
    out: list[tuple[str, str | None, Any]] = []
    for slc in store.list("ResourceSlice"):
        spec = slc.get("spec") or {}
        driver = str(spec.get("driver") or "")
        pool = str((spec.get("pool") or {}).get("name") or "")
        for dev in spec.get("devices") or []:
            key = device_key(driver, pool, str(dev.get("name") or ""))
            out.append((key, spec.get("nodeName"), cel_device(dev, driver)))
    return out


def _class_exprs(store: Store, name: str | None) -> list[str] | None:
    cls = store.get("DeviceClass", str(name)) if name else None
    if cls is None:
        return None
    return [
        str((s.get("cel") or {}).get("expression") or "")
        for s in (cls.get("spec") or {}).get("selectors") or []
    ]


def _requests(claim: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(request name, exactly-like spec) including each firstAvailable subrequest."""
    out: list[tuple[str, dict[str, Any]]] = []
    for req in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or []:
        if req.get("exactly"):
            out.append((str(req.get("name")), req["exactly"]))
        for sub in req.get("firstAvailable") or []:
            out.append((f"{req.get('name')}/{sub.get('name')}", sub))
    return out


def _verdicts(
    store: Store,
    spec: dict[str, Any],
    devices: list[tuple[str, str | None, Any]],
    node_reasons: dict[str, str],
) -> dict[str, str | None]:
    """Device key -> None (candidate) or the reason it is not one."""
    class_name = spec.get("deviceClassName")
    class_exprs = _class_exprs(store, class_name)
    selectors = [
        str((s.get("cel") or {}).get("expression") or "") for s in spec.get("selectors") or []
    ]
    out: dict[str, str | None] = {}
    for key, node, cel in devices:
        reason: str | None = None
        if class_exprs is None:
            reason = f"device class {class_name} does not exist"
        else:
            for expr in class_exprs:
                ok, error = selector_result(expr, cel)
                if not ok:
                    reason = error or f"not in class {class_name}: {expr} is false"
                    break
        if reason is None:
            for expr in selectors:
                ok, error = selector_result(expr, cel)
                if not ok:
                    reason = error or f"selector {expr} is false"
                    break
        if reason is None and node and node in node_reasons:
            reason = f"node {node}: {node_reasons[node]}"
        out[key] = reason
    return out


def _grouped(verdicts: dict[str, str | None]) -> dict[str, Any]:
    """Candidates, and the rejected devices grouped by reason (reasons repeat a lot).

    Devices are positions in the state's ``devices`` list (same order as the slices), which
    keeps the steps of a few hundred devices small.
    """
    candidates = [i for i, why in enumerate(verdicts.values()) if why is None]
    by_reason: dict[str, list[int]] = {}
    for i, why in enumerate(verdicts.values()):
        if why is not None:
            by_reason.setdefault(why, []).append(i)
    rejected = [{"reason": why, "devices": keys} for why, keys in by_reason.items()]
    return {"candidates": candidates, "rejected": rejected, "devices": len(verdicts)}


class StepCache:
    """Steps already built, by decision; rebuilt when slices or classes change.

    Decisions are only appended, and a claim's spec never changes, so a step stays valid
    until the devices or classes its verdicts were computed from change.
    """

    def __init__(self) -> None:
        self._signature: tuple[tuple[str, str, str], ...] = ()
        self._steps: dict[tuple[int, int], dict[str, Any]] = {}

    def steps(self, store: Store, decisions: list[Any], first: int = 0) -> list[dict[str, Any]]:
        signature = tuple(
            (kind, obj["metadata"]["name"], str(obj["metadata"].get("resourceVersion")))
            for kind in ("ResourceSlice", "DeviceClass")
            for obj in store.list(kind)
        )
        if signature != self._signature:
            self._signature = signature
            self._steps.clear()
        devices: list[tuple[str, str | None, Any]] | None = None
        out: list[dict[str, Any]] = []
        for index in range(first, len(decisions)):
            key = (index, id(decisions[index]))
            step = self._steps.get(key)
            if step is None:
                devices = devices if devices is not None else _device_index(store)
                step = _step(store, devices, index, decisions[index])
                self._steps[key] = step
            out.append(step)
        return out


def decision_steps(store: Store, decisions: list[Any]) -> list[dict[str, Any]]:
    """One JSON step per decision (claims that no longer exist show only their results)."""
    devices = _device_index(store)
    return [_step(store, devices, i, decision) for i, decision in enumerate(decisions)]


def _step(
    store: Store, devices: list[tuple[str, str | None, Any]], index: int, decision: Any
) -> dict[str, Any]:
    namespace, _, name = str(decision.pod).partition("/")
    reasons = {n: f"{plugin}: {why}" for n, (plugin, why) in decision.filter_reasons.items()}
    other = {n: r for n, r in reasons.items() if not r.startswith(DRA_PLUGIN)}
    claims: list[dict[str, Any]] = []
    pod = store.get("Pod", name, namespace)
    names: list[str] = []
    if pod is not None:
        for entry in (pod.get("spec") or {}).get("resourceClaims") or []:
            claim_name = entry.get("resourceClaimName")
            for st in (pod.get("status") or {}).get("resourceClaimStatuses") or []:
                if st.get("name") == entry.get("name"):
                    claim_name = st.get("resourceClaimName")
            if claim_name:
                names.append(f"{namespace}/{claim_name}")
    for key in decision.allocations:
        if key not in names:
            names.append(key)
    for claim_key in names:
        c_ns, _, c_name = claim_key.partition("/")
        claim = store.get("ResourceClaim", c_name, c_ns)
        allocation = decision.allocations.get(claim_key) or {}
        chosen = [
            {
                "request": r.get("request"),
                "device": device_key(
                    str(r.get("driver")), str(r.get("pool")), str(r.get("device"))
                ),
                "consumed": {
                    k: quantity_number(v) for k, v in (r.get("consumedCapacity") or {}).items()
                },
            }
            for r in (allocation.get("devices") or {}).get("results") or []
        ]
        requests = []
        for req_name, spec in _requests(claim) if claim is not None else []:
            requests.append(
                {
                    "name": req_name,
                    "deviceClassName": spec.get("deviceClassName"),
                    "count": spec.get("count", 1),
                    "selectors": [
                        (s.get("cel") or {}).get("expression") for s in spec.get("selectors") or []
                    ],
                    **_grouped(_verdicts(store, spec, devices, other)),
                }
            )
        claims.append({"key": claim_key, "requests": requests, "chosen": chosen})
    return {
        "index": index,
        "pod": decision.pod,
        "node": decision.node,
        "result": decision.result,
        "message": decision.message,
        "filterReasons": reasons,
        "claims": claims,
    }
