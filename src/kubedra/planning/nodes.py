"""``kubedra plan nodes``: how many nodes of a template to add so that Pending pods fit.

As a cluster autoscaler's estimator does, nodes built from the template (a Node and its
ResourceSlices) are added one at a time to the simulated cluster, and the scheduler places
what it can on each before the next is added. It stops when no pod is Pending, when an added
node takes no pod (the rest cannot run on the template: reported, and that node not counted),
or at ``max_nodes``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubedra.api.limits import DEFAULT_MAX_NODES
from kubedra.cluster.nodetemplate import TemplateError, instantiate, split_template
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
    try:
        node, slices = split_template(template)
    except TemplateError as error:
        raise PlanInputError(str(error)) from None
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
