"""The scheduler flags of the commands that run a simulated cluster (``simulate``,
``replay``), defined once, and the Simulation they build.

A command lists the flags it takes as parameters typed with the aliases below (Typer reads
them from the signature) and hands their values to :class:`SchedulerFlags`, whose
:meth:`SchedulerFlags.simulation` builds the Simulation with kubedra.scheduler configured by
them. The input flags (paths, ``-f``, ``-n``, ``--kubernetes-version``, ``--feature-gates``)
and the placement-policy flags (``--policy``, ``--device-policy``, ``--node-score``, shared
with ``plan``) live in kubedra.cli.options.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from kubedra.allocator.features import Features
    from kubedra.cluster.admission import AdmissionConfig
    from kubedra.cluster.simulation import Simulation
    from kubedra.scheduler.policies import Workload


class Policy(enum.StrEnum):
    DEFAULT = "default"
    FIRST_FIT = "first-fit"


class GangMode(enum.StrEnum):
    UPSTREAM = "upstream"
    BACKTRACK = "backtrack"


class PreemptionMode(enum.StrEnum):
    UPSTREAM = "upstream"
    EXTENDED = "extended"


SchedulerOption = Annotated[
    Policy, typer.Option("--scheduler", help="default (kube-scheduler) or first-fit.")
]
SeedOption = Annotated[
    int | None,
    typer.Option("--seed", help="Random pick among tied nodes and random names, seeded."),
]
GangOption = Annotated[
    GangMode,
    typer.Option("--gang", help="upstream (greedy, all-or-nothing) or backtrack (search)."),
]
PreemptionOption = Annotated[
    PreemptionMode,
    typer.Option(
        "--preemption",
        help="upstream (DefaultPreemption) or extended (victims chosen by re-running the "
        "allocator; network-attached devices, partitions).",
    ),
]
PreemptionSetsOption = Annotated[
    int,
    typer.Option(
        "--preemption-sets", min=1, help="Victim sets --preemption extended tries per node."
    ),
]
GangStepsOption = Annotated[
    int, typer.Option("--gang-steps", min=1, help="Node choices --gang backtrack may try.")
]

DEFAULT_PREEMPTION_SETS = 2000
DEFAULT_GANG_STEPS = 10_000


@dataclass(frozen=True)
class SchedulerFlags:
    """The values of the scheduler flags, as a command received them."""

    scheduler: Policy = Policy.DEFAULT
    seed: int | None = None
    device_policy: str | None = None
    node_score: str | None = None
    gang: GangMode = GangMode.UPSTREAM
    preemption: PreemptionMode = PreemptionMode.UPSTREAM
    preemption_sets: int = DEFAULT_PREEMPTION_SETS
    gang_steps: int = DEFAULT_GANG_STEPS
    placement: str | None = None
    """--policy NAME: a placement policy of kubedra.scheduler.policies (opt-in)."""
    workload: Workload | None = None
    """The task shapes a policy plans for (FGD); replay passes its trace's. None: the
    policy reads the pods in the store when it first scores."""

    def simulation(
        self,
        namespace: str,
        features: Features,
        fail: Callable[[str], None],
        admission: AdmissionConfig | None = None,
    ) -> Simulation:
        """An empty Simulation whose scheduler these flags configure; a bad value is passed
        to ``fail`` (which must not return)."""
        from kubedra.cluster.simulation import Simulation
        from kubedra.planning.cluster import PlanInputError, scheduler_factory

        try:
            factory = scheduler_factory(
                self.device_policy, self.node_score, self.placement, self.workload
            )
        except (ValueError, PlanInputError) as error:
            fail(str(error))
            raise AssertionError("fail returned") from None
        sim = Simulation(
            namespace=namespace,
            policy=self.scheduler.value,
            seed=self.seed,
            features=features,
            scheduler_factory=factory,
            admission=admission,
        )
        config = getattr(sim.scheduler, "config", None)
        if config is not None:
            config.gang = self.gang.value
            config.gang_steps = self.gang_steps
            config.preemption = self.preemption.value
            config.preemption_sets = self.preemption_sets
        return sim
