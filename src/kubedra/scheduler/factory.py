"""How a simulation gets this scheduler: the layer that runs the loop chooses it.

``kubedra.cluster.simulation.Simulation`` sits below the scheduler and takes a factory; the
commands, planning, the web page and replay pass ``scheduler_factory`` (or call
``new_simulation``), with the settings they want beyond the Simulation's own features,
policy and seed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kubedra.allocator.features import Features
from kubedra.cluster.clock import SimClock
from kubedra.cluster.simulation import SchedulerFactory, SchedulerLike, Simulation
from kubedra.cluster.store import Store
from kubedra.scheduler.scheduler import Scheduler, SchedulerConfig


def scheduler_factory(settings: SchedulerConfig | None = None) -> SchedulerFactory:
    """A factory building ``Scheduler`` with ``settings`` (default: the default profile);
    the Simulation supplies its features, policy and seed, which replace those of ``settings``.
    """
    base = settings or SchedulerConfig()

    def build(
        store: Store, clock: SimClock, features: Features, policy: str, seed: int | None
    ) -> SchedulerLike:
        config = replace(base, features=features, policy=policy, seed=seed)  # type: ignore[arg-type]
        return Scheduler(store, clock, config)

    return build


def new_simulation(settings: SchedulerConfig | None = None, **simulation: Any) -> Simulation:
    """A Simulation scheduled by this scheduler; ``simulation`` are Simulation's keywords
    (``namespace``, ``policy``, ``seed``, ``features``, ``admission``)."""
    return Simulation(scheduler_factory=scheduler_factory(settings), **simulation)
