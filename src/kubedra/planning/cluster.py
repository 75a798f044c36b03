"""Load a cluster for planning as ``kubedra simulate`` does, and run it to a fixed point."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

from kubedra.cluster.simulation import SchedulerFactory, Simulation
from kubedra.scheduler.policies import REGISTRY, Policy, Workload


class PlanInputError(Exception):
    """Input that cannot be planned on: unreadable manifests, refused objects, bad options."""


def scheduler_factory(
    device_policy: str | None = None,
    node_score: str | None = None,
    policy: str | Policy | None = None,
    workload: Workload | None = None,
) -> SchedulerFactory:
    """A Simulation scheduler factory with an opt-in placement policy (a registered name or a
    Policy, with the task shapes it plans for), or only its device choice or node score;
    unknown names raise PolicyError (a ValueError) naming the known ones."""
    REGISTRY.resolve(policy, device_policy, node_score)

    from kubedra.scheduler import SchedulerConfig
    from kubedra.scheduler import scheduler_factory as build

    return build(
        SchedulerConfig(
            device_policy=device_policy,
            node_score=node_score,
            placement=policy,
            workload=workload,
        )
    )


def load_objects(
    paths: Sequence[Path] = (), files: Sequence[Path] = (), example: str | None = None
) -> list[dict[str, Any]]:
    """The wire objects of the manifests (paths, ``-f`` files, a built-in example)."""
    from kubedra.api.io import LoadedObject, load_paths, load_text
    from kubedra.cluster.examples import UnknownExample, example_text

    sources = [*paths, *files]
    if example is None and not sources:
        raise PlanInputError("give manifests (PATH..., -f FILE, -) or --example NAME")
    entries: list[Any] = []
    if example is not None:
        text = example_text(example)
        if text is None:
            raise PlanInputError(str(UnknownExample(example)))
        entries += load_text(text, f"example {example}").entries
    if sources:
        entries += load_paths(list(sources)).entries
    errors = [str(e) for e in entries if not isinstance(e, LoadedObject)]
    if errors:
        raise PlanInputError("\n".join(errors))
    return [e.wire for e in entries if isinstance(e, LoadedObject)]


def simulate(
    objects: Sequence[dict[str, Any]],
    *,
    device_policy: str | None = None,
    node_score: str | None = None,
    policy: str | Policy | None = None,
    workload: Workload | None = None,
    namespace: str = "default",
    seed: int | None = None,
    run_for: float | None = None,
) -> Simulation:
    """A Simulation of ``objects`` run to its fixed point (or for ``run_for`` seconds at most,
    when the first what-if step is due)."""
    sim = Simulation(
        namespace=namespace,
        seed=seed,
        scheduler_factory=scheduler_factory(device_policy, node_score, policy, workload),
    )
    problems = sim.load(list(objects))
    if problems:
        raise PlanInputError(
            "\n".join(f"{p.object}: {p.message} (in {p.source})" for p in problems)
        )
    if run_for is None:
        sim.run()
    else:
        sim.run(until=sim.clock.now() + timedelta(seconds=run_for))
    return sim
