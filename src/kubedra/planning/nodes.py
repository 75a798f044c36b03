"""``kubedra plan nodes``: how many nodes of a template to add so that Pending pods fit.

As a cluster autoscaler's estimator does, nodes built from the template (a Node and its
ResourceSlices) are added one at a time to the simulated cluster, and the scheduler places
what it can on each before the next is added. It stops when no pod is Pending, when an added
node takes no pod (the rest cannot run on the template: reported, and that node not counted),
or at ``max_nodes``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from kubedra.api.limits import DEFAULT_MAX_NODES
from kubedra.cluster.simulation import Simulation
from kubedra.planning.cluster import PlanInputError


@dataclass
class NodesResult:
    added: list[tuple[str, list[str]]] = field(default_factory=list)
    """(new node, pods it took) in the order the nodes were added."""
    unplaceable: list[str] = field(default_factory=list)
    """Pods still Pending with the added nodes (not helped by one more node)."""
    limit_reached: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "nodes": len(self.added),
            "added": [{"node": n, "pods": pods} for n, pods in self.added],
            "unplaceable": self.unplaceable,
            "maxNodesReached": self.limit_reached,
        }


def split_template(objects: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    nodes = [o for o in objects if o.get("kind") == "Node"]
    others = [o for o in objects if o.get("kind") != "Node"]
    if len(nodes) != 1:
        raise PlanInputError(f"the template must hold exactly one Node, found {len(nodes)}")
    wrong = [str(o.get("kind")) for o in others if o.get("kind") != "ResourceSlice"]
    if wrong:
        raise PlanInputError(
            f"the template may hold only a Node and ResourceSlices, not {wrong[0]}"
        )
    return nodes[0], others


def instantiate(
    node: dict[str, Any], slices: list[dict[str, Any]], name: str
) -> list[dict[str, Any]]:
    """The template's node and slices for a new node ``name``."""
    old = str((node.get("metadata") or {}).get("name") or "")
    new_node = copy.deepcopy(node)
    meta = new_node.setdefault("metadata", {})
    meta["name"] = name
    labels = meta.get("labels")
    if isinstance(labels, dict) and "kubernetes.io/hostname" in labels:
        labels["kubernetes.io/hostname"] = name
    out = [new_node]
    for s in slices:
        new = copy.deepcopy(s)
        smeta = new.setdefault("metadata", {})
        smeta["name"] = f"{name}-{smeta.get('name') or 'slice'}"
        spec = new.setdefault("spec", {})
        if spec.get("nodeName") == old:
            spec["nodeName"] = name
        pool = spec.get("pool") or {}
        pool_name = str(pool.get("name") or "")
        pool["name"] = name if pool_name == old else f"{name}-{pool_name}"
        out.append(new)
    return out


def _pending(sim: Simulation) -> list[str]:
    return [
        f"{p['metadata'].get('namespace')}/{p['metadata']['name']}"
        for p in sim.store.list("Pod")
        if not (p.get("spec") or {}).get("nodeName")
        and (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
    ]


def plan_nodes(
    sim: Simulation, template: list[dict[str, Any]], max_nodes: int = DEFAULT_MAX_NODES
) -> NodesResult:
    """Add template nodes to ``sim`` (already run) until its Pending pods fit."""
    node, slices = split_template(template)
    base = str((node.get("metadata") or {}).get("name") or "node")
    taken = {n["metadata"]["name"] for n in sim.store.list("Node")}
    result = NodesResult()
    index = 0
    pending = _pending(sim)
    while pending:
        if len(result.added) >= max_nodes:
            result.limit_reached = True
            break
        index += 1
        name = f"{base}-{index}"
        while name in taken:
            index += 1
            name = f"{base}-{index}"
        problems = sim.load(instantiate(node, slices, name))
        if problems:
            raise PlanInputError(f"template: {problems[0].object}: {problems[0].message}")
        sim.run()
        now = _pending(sim)
        took = [p for p in pending if p not in now]
        if not took:
            sim.store.delete("Node", name)
            for s in sim.store.list("ResourceSlice"):
                if (s.get("spec") or {}).get("nodeName") == name:
                    sim.store.delete("ResourceSlice", s["metadata"]["name"])
            sim.run()
            break
        result.added.append((name, took))
        pending = now
    result.unplaceable = _pending(sim)
    return result
