"""``kubedra plan what-if STEPS PATH...``: what each change does, as a diff of the state.

Steps are ``kubedra simulate --events`` steps (create, delete, taint, untaint, cordon,
uncordon, condition, wait) plus three of planning's own:

- ``add-nodes: {template: FILE, count: N}``: N nodes built from a Node+ResourceSlices template;
- ``drain: NODE``: cordon the node and evict its pods; each evicted pod is created again
  unbound (as its controller would), so it moves to another node or waits;
- ``remove-node: NODE``: drain, then delete the node and its ResourceSlices.

After each step the control plane runs to a fixed point and the diff against the state before
lists the pods that moved, were placed, were evicted (gone) or became Pending, and the claims
whose allocation changed.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from kubedra.cluster.simulation import Simulation
from kubedra.cluster.timeline import TimelineError, parse_duration, parse_timeline
from kubedra.planning.capacity import copy_of
from kubedra.planning.cluster import PlanInputError, load_objects
from kubedra.planning.nodes import instantiate, split_template

OWN = ("add-nodes", "drain", "remove-node")


@dataclass
class WhatIfStep:
    description: str
    after: float
    action: Callable[[Simulation], None]


@dataclass
class Diff:
    description: str
    moved: list[tuple[str, str, str]] = field(default_factory=list)
    placed: list[tuple[str, str]] = field(default_factory=list)
    evicted: list[tuple[str, str]] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    claims: list[tuple[str, list[str], list[str]]] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [f"pod {p} moved {a} -> {b}" for p, a, b in self.moved]
        out += [f"pod {p} placed on {n}" for p, n in self.placed]
        out += [f"pod {p} evicted from {n}" for p, n in self.evicted]
        out += [f"pod {p} Pending" for p in self.pending]
        out += [
            f"claim {c}: {', '.join(a) or '(none)'} -> {', '.join(b) or '(none)'}"
            for c, a, b in self.claims
        ]
        return out or ["nothing changed"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "step": self.description,
            "moved": [{"pod": p, "from": a, "to": b} for p, a, b in self.moved],
            "placed": [{"pod": p, "node": n} for p, n in self.placed],
            "evicted": [{"pod": p, "node": n} for p, n in self.evicted],
            "pending": self.pending,
            "claims": [{"claim": c, "before": a, "after": b} for c, a, b in self.claims],
        }


def _key(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace')}/{meta.get('name')}"


def _snapshot(sim: Simulation) -> tuple[dict[str, str | None], dict[str, list[str]]]:
    pods = {_key(p): (p.get("spec") or {}).get("nodeName") for p in sim.store.list("Pod")}
    claims = {}
    for c in sim.store.list("ResourceClaim"):
        allocation = (c.get("status") or {}).get("allocation") or {}
        results = (allocation.get("devices") or {}).get("results") or []
        claims[_key(c)] = sorted(f"{r['driver']}/{r['pool']}/{r['device']}" for r in results)
    return pods, claims


def diff(
    description: str,
    before: tuple[dict[str, str | None], dict[str, list[str]]],
    after: tuple[dict[str, str | None], dict[str, list[str]]],
) -> Diff:
    out = Diff(description)
    pods_before, claims_before = before
    pods_after, claims_after = after
    for pod, node in pods_before.items():
        if pod not in pods_after:
            if node:
                out.evicted.append((pod, node))
            continue
        new = pods_after[pod]
        if node and new and new != node:
            out.moved.append((pod, node, new))
        elif node and not new:
            out.evicted.append((pod, node))
            out.pending.append(pod)
        elif not node and new:
            out.placed.append((pod, new))
    for pod, new in pods_after.items():
        if pod in pods_before:
            continue
        if new:
            out.placed.append((pod, new))
        else:
            out.pending.append(pod)
    for claim in sorted(set(claims_before) | set(claims_after)):
        a, b = claims_before.get(claim, []), claims_after.get(claim, [])
        if a != b:
            out.claims.append((claim, a, b))
    return out


def _drain(node_name: str, where: str, remove: bool) -> Callable[[Simulation], None]:
    def run(sim: Simulation) -> None:
        node = sim.store.get("Node", node_name)
        if node is None:
            raise TimelineError(f'{where}: nodes "{node_name}" not found')
        spec = dict(node.get("spec") or {}) | {"unschedulable": True}
        sim.store.update(node | {"spec": spec})
        victims = [
            p for p in sim.store.list("Pod") if (p.get("spec") or {}).get("nodeName") == node_name
        ]
        for pod in victims:
            meta = pod["metadata"]
            sim.store.delete("Pod", meta["name"], meta.get("namespace"))
        sim.settle()  # claims of the evicted pods are released first
        if remove:
            for s in sim.store.list("ResourceSlice"):
                if (s.get("spec") or {}).get("nodeName") == node_name:
                    sim.store.delete("ResourceSlice", s["metadata"]["name"])
            sim.store.delete("Node", node_name)
        for pod in victims:
            again = copy_of(pod, pod["metadata"]["name"])
            again["spec"].pop("nodeName", None)
            sim.load([again])

    return run


def _add_nodes(value: Any, where: str, base_dir: Path) -> tuple[str, Callable[[Simulation], None]]:
    if not isinstance(value, dict) or not value.get("template"):
        raise TimelineError(f"{where}: needs template: FILE (and count: N)")
    count = value.get("count", 1)
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise TimelineError(f"{where}.count: a whole number of at least 1")
    path = Path(str(value["template"]))
    if not path.is_absolute():
        path = base_dir / path
    try:
        node, slices = split_template(load_objects([path]))
    except PlanInputError as error:
        raise TimelineError(f"{where}.template: {error}") from None
    base = str(value.get("name") or (node.get("metadata") or {}).get("name") or "node")

    def run(sim: Simulation) -> None:
        taken = {n["metadata"]["name"] for n in sim.store.list("Node")}
        index = 0
        for _ in range(count):
            index += 1
            while f"{base}-{index}" in taken:
                index += 1
            problems = sim.load(instantiate(copy.deepcopy(node), slices, f"{base}-{index}"))
            if problems:
                raise TimelineError(f"{where}: {problems[0].object}: {problems[0].message}")

    return f"add {count} node(s) from {value['template']}", run


def parse_steps(data: Any, source: str, base_dir: Path) -> list[WhatIfStep]:
    """The steps of a what-if file; raises TimelineError."""
    if isinstance(data, dict) and "steps" in data:
        data = data["steps"]
    if not isinstance(data, list):
        raise TimelineError(f"{source}: a list of steps (or a map with steps)")
    steps: list[WhatIfStep] = []
    for i, raw in enumerate(data):
        where = f"{source}: step {i + 1}"
        own = [k for k in OWN if isinstance(raw, dict) and k in raw]
        if not own:
            [step] = parse_timeline([raw], source)
            steps.append(WhatIfStep(step.description, step.after, step.action))
            continue
        extra = [k for k in raw if k not in (own[0], "after")]
        if len(own) > 1 or extra:
            raise TimelineError(f"{where}: unknown field {(own[1:] + extra)[0]!r}")
        after = parse_duration(raw.get("after", 0), f"{where}.after")
        name, value = own[0], raw[own[0]]
        if name == "add-nodes":
            description, action = _add_nodes(value, f"{where}.add-nodes", base_dir)
        else:
            if not isinstance(value, str) or not value:
                raise TimelineError(f"{where}.{name}: the node's name")
            description = f"{name} {value}"
            action = _drain(value, f"{where}.{name}", remove=name == "remove-node")
        steps.append(WhatIfStep(description, after, action))
    return steps


def load_steps(path: Path) -> list[WhatIfStep]:
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as error:
        raise TimelineError(f"{path}: {error.strerror or error}") from None
    except yaml.YAMLError as error:
        raise TimelineError(f"{path}: YAML syntax error: {error}") from None
    return parse_steps(data, str(path), path.parent)


def what_if(sim: Simulation, steps: list[WhatIfStep]) -> list[Diff]:
    """Apply ``steps`` to ``sim`` (already run), one diff per step."""
    out = []
    for step in steps:
        before = _snapshot(sim)

        def action(s: Simulation, step: WhatIfStep = step) -> None:
            s.clock.advance(step.after)
            step.action(s)

        sim.apply(action, step.description)
        out.append(diff(step.description, before, _snapshot(sim)))
    return out
