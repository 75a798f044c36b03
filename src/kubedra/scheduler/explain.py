"""Why a pod is Pending, or why it went where it went: data for ``kubedra explain pod``.

For a Pending pod every node is filtered again (all of them, not only the sample upstream's
percentageOfNodesToScore looks at), the first filter that rejected each node is grouped by
reason, and for DynamicResources' rejections the allocator runs once more per node with a
Recorder, so that each claim and request lists how many candidate devices each cause
eliminated, with examples and the CEL selector involved. A "nearest miss" names the best
device for a capacity comparison a selector asks for. Nothing here writes to the store.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from kubedra.allocator.explain import Recorder
from kubedra.api.quantity import Quantity
from kubedra.scheduler.defaultpreemption import explain_note
from kubedra.scheduler.dynamicresources import claim_key
from kubedra.scheduler.plugins import DYNAMIC_RESOURCES
from kubedra.scheduler.scheduler import Scheduler, is_terminal

_CAPACITY_COMPARE = re.compile(
    r'device\.capacity\["([^"]+)"\]\.([A-Za-z0-9_]+)\.compareTo\(quantity\("([^"]+)"\)\)\s*'
    r"(>=|>|<=|<|==)\s*0"
)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def explain_pod(scheduler: Scheduler, namespace: str, name: str) -> dict[str, Any]:
    """A JSON-friendly explanation; ``summary`` holds the plain-language lines."""
    store = scheduler.store
    pod = store.get("Pod", name, namespace)
    key = f"{namespace}/{name}"
    if pod is None:
        return {"pod": key, "found": False, "summary": [f"pod {key} not found"]}
    node_name = (pod.get("spec") or {}).get("nodeName")
    if node_name:
        out = _explain_placed(scheduler, pod, key, str(node_name))
    else:
        # Filtered as in the pod's own cycle: its claim nomination, and those of
        # lower-priority preemptors, hold nothing against it (KEP-5690).
        nominations = scheduler.preemption.nominations
        nominations.suspend_for(key, scheduler.priority(pod))
        try:
            out = _explain_pending(scheduler, pod, key)
        finally:
            nominations.resume()
    nomination = scheduler.preemption.nominations.get(key)
    if nomination is not None:
        out["summary"] = [*out["summary"], nomination.describe(scheduler.clock.now())]
        out["claimNomination"] = {
            "node": nomination.node,
            "devices": ["/".join(_result_device(r)) for r in nomination.results],
            "released": sorted(nomination.released.values()),
            "stillAllocated": nomination.pending_names(),
            "expires": nomination.expires.isoformat(),
        }
    report = scheduler.preemption.reports.get(key)
    if report is not None:
        out["summary"] = [*out["summary"], *report.lines()]
        out["preemptionReport"] = report.as_dict()
    return out


def _result_device(result: Mapping[str, Any]) -> tuple[str, str, str]:
    return (str(result.get("driver")), str(result.get("pool")), str(result.get("device")))


# --- placed pods ------------------------------------------------------------------------------


def _device_lookup(scheduler: Scheduler) -> dict[str, Any]:
    allocator = scheduler.dra.ensure_allocator()
    return {d.key: d for s in allocator.inventory.slices for d in s.devices}


def _describe_device(device: Any) -> dict[str, Any]:
    raw = device.raw
    return {
        "attributes": {
            k: next(iter(v.values()), None) for k, v in (raw.get("attributes") or {}).items()
        },
        "capacity": {k: (v or {}).get("value") for k, v in (raw.get("capacity") or {}).items()},
    }


def _explain_placed(
    scheduler: Scheduler, pod: dict[str, Any], key: str, node: str
) -> dict[str, Any]:
    decision = scheduler.last_decision.get(key)
    summary = [f"pod {key} is bound to node {node}."]
    out: dict[str, Any] = {"pod": key, "found": True, "phase": "Scheduled", "node": node}
    if decision is not None and decision.scores:
        ranked = sorted(decision.scores.items(), key=lambda kv: -sum(kv[1].values()))
        out["scores"] = [{"node": n, "total": sum(s.values()), "plugins": s} for n, s in ranked]
        best = ranked[0]
        summary.append(
            f"{node} had the highest score ({sum(best[1].values())}) of "
            f"{decision.feasible_nodes} feasible nodes ({decision.evaluated_nodes} evaluated)."
        )
        if decision.tied:
            summary.append(
                f"{len(decision.tied)} nodes tied at the top ({', '.join(decision.tied[:5])}"
                f"{', ...' if len(decision.tied) > 5 else ''}); kubedra picks the first in "
                "node order (upstream picks one at random)."
            )
        for entry in out["scores"][:3]:
            parts = ", ".join(f"{p} {v}" for p, v in entry["plugins"].items())
            summary.append(f"  {entry['node']}: {entry['total']} ({parts})")
    elif decision is not None:
        summary.append(f"{node} was the only feasible node.")
    devices = _device_lookup(scheduler)
    claims_out = []
    namespace = key.split("/", 1)[0]
    names = [c["metadata"]["name"] for c in scheduler.dra.pod_claims(pod)[0]]
    ext = ((pod.get("status") or {}).get("extendedResourceClaimStatus") or {}).get(
        "resourceClaimName"
    )
    if ext:
        names.append(ext)
    for cname in names:
        claim = scheduler.store.get("ResourceClaim", cname, namespace)
        if claim is None:
            continue
        results = (((claim.get("status") or {}).get("allocation") or {}).get("devices") or {}).get(
            "results"
        ) or []
        entries = []
        for r in results:
            dkey = f"{r.get('driver')}/{r.get('pool')}/{r.get('device')}"
            info = devices.get(dkey)
            item: dict[str, Any] = {"request": r.get("request"), "device": dkey}
            if info is not None:
                item.update(_describe_device(info))
            entries.append(item)
            selectors = _request_selectors(claim, str(r.get("request") or ""))
            why = f" (matches {'; '.join(selectors)})" if selectors else ""
            summary.append(f"claim {claim_key(claim)}, request {r.get('request')}: {dkey}{why}")
        claims_out.append({"claim": claim_key(claim), "devices": entries})
    out["claims"] = claims_out
    out["summary"] = summary
    return out


def _request_selectors(claim: Mapping[str, Any], request: str) -> list[str]:
    top, _, sub = request.partition("/")
    for r in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or []:
        if r.get("name") != top:
            continue
        body = r.get("exactly") or {}
        if sub:
            body = next((s for s in r.get("firstAvailable") or [] if s.get("name") == sub), {})
        return [str((s.get("cel") or {}).get("expression")) for s in body.get("selectors") or []]
    return []


# --- pending pods -----------------------------------------------------------------------------


def _explain_pending(scheduler: Scheduler, pod: dict[str, Any], key: str) -> dict[str, Any]:
    out: dict[str, Any] = {"pod": key, "found": True, "phase": "Pending", "node": None}
    summary: list[str] = []
    if is_terminal(pod):
        out["phase"] = (pod.get("status") or {}).get("phase")
        out["summary"] = [f"pod {key} is {out['phase']}."]
        return out
    waiting = scheduler.waiting.get(key)
    if waiting is not None:
        out["phase"] = "WaitingForBinding"
        out["node"] = waiting.node
        out["summary"] = [
            f"pod {key} is reserved on {waiting.node} and waits in PreBind until the binding "
            f"conditions of its devices are met (claims: {', '.join(waiting.claims)})."
        ]
        return out
    gate = scheduler.dra.pre_enqueue(pod)
    if gate is not None:
        out["phase"] = "Gated"
        out["summary"] = [f"pod {key} is not scheduled yet: {gate}."]
        out["gate"] = gate
        return out
    decision = scheduler.last_decision.get(key)
    if decision is not None and decision.message:
        summary.append(f"pod {key} is Pending: {decision.message}")
        out["message"] = decision.message
    cycle, status = scheduler.prepare(pod)
    nodes = scheduler.nodes.ordered()
    per_node: dict[str, tuple[str, str]] = {}
    recorders: list[tuple[str, Recorder]] = []
    if status is not None:
        for node in nodes:
            per_node[node.name] = (status.plugin, status.message)
    else:
        static = scheduler._static_filters(cycle)
        for node in nodes:
            recorder = Recorder()
            result = scheduler.run_filters(cycle, node, static, recorder)
            if result is None:
                continue
            per_node[node.name] = (result.plugin, result.message)
            if result.plugin == DYNAMIC_RESOURCES and recorder.reasons:
                recorders.append((node.name, recorder))
    groups: dict[tuple[str, str], list[str]] = {}
    for node_name, reason in per_node.items():
        groups.setdefault(reason, []).append(node_name)
    ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    out["nodes"] = [
        {"plugin": plugin, "reason": reason, "count": len(names), "nodes": names}
        for (plugin, reason), names in ordered
    ]
    if ordered:
        summary.append(
            "; ".join(f"{_plural(len(names), 'node')}: {reason}" for (_, reason), names in ordered)
        )
    note = explain_note(
        scheduler, cycle, {n: r for n, (p, r) in per_node.items() if p == DYNAMIC_RESOURCES}
    )
    if note is not None:
        summary.append(note)
        out["preemption"] = note
    feasible = len(nodes) - len(per_node)
    if feasible:
        summary.append(
            f"{_plural(feasible, 'node')} would fit now; the pod waits for its next attempt."
        )
    out["claims"] = _dra_details(scheduler, cycle, recorders, summary)
    out["summary"] = summary
    return out


def _dra_details(
    scheduler: Scheduler, cycle: Any, recorders: list[tuple[str, Recorder]], summary: list[str]
) -> list[dict[str, Any]]:
    """Per claim and request: how many candidates each cause eliminated, over all nodes."""
    merged: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for node_name, recorder in recorders:
        for where, per_reason in recorder.reasons.items():
            bucket = merged.setdefault(where, {})
            for reason, rejections in per_reason.items():
                slot = bucket.setdefault(reason, {"count": 0, "examples": []})
                slot["count"] += rejections.count
                for example in rejections.examples:
                    if len(slot["examples"]) < 3:
                        slot["examples"].append(f"{example} on {node_name}")
    claims = {claim_key(c): c for c in cycle.dra.claims}
    out = []
    for (claim_name, request), reasons in merged.items():
        found = claims.get(claim_name)
        selectors = _request_selectors(found, request) if found is not None else []
        total = sum(r["count"] for r in reasons.values())
        out_entry: dict[str, Any] = {
            "claim": claim_name,
            "request": request,
            "candidates": total,
            "eliminated": reasons,
            "selectors": selectors,
        }
        summary.append(f"claim {claim_name}, request {request}: {total} candidate devices")
        for reason, data in sorted(reasons.items(), key=lambda kv: -kv[1]["count"]):
            line = f"  {data['count']} eliminated: {reason} (e.g. {', '.join(data['examples'])})"
            if reason == "request selector false" and selectors:
                line += f"; selector: {' && '.join(selectors)}"
            summary.append(line)
        miss = _nearest_miss(scheduler, selectors, {n for n, _ in recorders})
        if miss is not None:
            out_entry["nearestMiss"] = miss
            summary.append(f"  nearest miss: {miss}")
        out.append(out_entry)
    return out


def _nearest_miss(scheduler: Scheduler, selectors: list[str], nodes: set[str]) -> str | None:
    """For ``device.capacity["d"].c.compareTo(quantity("X")) >= 0``: the device closest to X
    among those that DynamicResources looked at (on ``nodes``, or not bound to one node)."""
    for expression in selectors:
        match = _CAPACITY_COMPARE.search(expression)
        if match is None:
            continue
        domain, cap, wanted_text, op = match.groups()
        try:
            wanted = Quantity.parse(wanted_text)
        except ValueError:
            continue
        best: tuple[Quantity, str, str] | None = None
        allocator = scheduler.dra.ensure_allocator()
        for s in allocator.inventory.slices:
            if s.node_name and s.node_name not in nodes:
                continue
            for device in s.devices:
                info = device.capacity.get(cap) if device.driver == domain else None
                info = info or device.capacity.get(f"{domain}/{cap}")
                if info is None:
                    continue
                better = best is None or (
                    info.value > best[0] if op in (">=", ">") else info.value < best[0]
                )
                if better:
                    best = (info.value, device.name, s.node_name or s.pool)
        if best is None:
            return f"no device has a {cap} capacity in {domain}"
        cmp = best[0].cmp(wanted)
        satisfied = {">=": cmp >= 0, ">": cmp > 0, "<=": cmp <= 0, "<": cmp < 0, "==": cmp == 0}
        if satisfied[op]:
            continue
        word = "largest" if op in (">=", ">") else "smallest"
        return (
            f"no device has {cap} {op} {wanted_text}; the {word} is "
            f"{_format(best[0])}, {best[1]} on {best[2]}"
        )
    return None


def _format(q: Quantity) -> str:
    return str(q)
