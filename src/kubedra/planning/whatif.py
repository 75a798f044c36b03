"""What-if: what each change does, as a diff of the state (``kubedra plan what-if`` and
``kubedra simulate --what-if``).

The steps are read by :mod:`kubedra.cluster.steps`. After each step the control plane runs
(to a fixed point, or until the next step is due) and the diff against the state before lists
the pods that moved, were placed, were evicted (gone) or became Pending, and the claims whose
allocation changed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from kubedra.cluster.simulation import Simulation
from kubedra.cluster.steps import OWN, load_steps, parse_steps
from kubedra.cluster.store import StoreError
from kubedra.cluster.timeline import Step, TimelineError

__all__ = ["OWN", "Diff", "diff", "load_steps", "parse_steps", "report_lines", "what_if"]


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


def what_if(sim: Simulation, steps: list[Step], last_run_for: float | None = None) -> list[Diff]:
    """Apply ``steps`` to ``sim`` (already run), one diff per step.

    After each step the clock runs only up to the next step's time (as a timeline does), the
    last one to the fixed point, or ``last_run_for`` seconds. A step that fails raises
    TimelineError naming it."""
    out = []
    for i, step in enumerate(steps):
        before = _snapshot(sim)

        def action(s: Simulation, step: Step = step) -> None:
            s.clock.advance(step.after)
            step.action(s)

        run_for = steps[i + 1].after if i + 1 < len(steps) else last_run_for
        try:
            sim.apply(action, step.description, run_for)
        except StoreError as error:
            raise TimelineError(f"step {step.index + 1} ({step.description}): {error}") from None
        out.append(diff(step.description, before, _snapshot(sim)))
    return out


def report_lines(diffs: list[Diff]) -> Iterator[str]:
    """The text report of both commands: a header per step, then its diff indented."""
    for i, d in enumerate(diffs):
        yield f"Step {i + 1}: {d.description}"
        for line in d.lines():
            yield f"  {line}"
