"""One simulated cluster: the store, the controllers, the kubelet and the scheduler, in a loop.

``load`` creates objects as ``kubectl create`` would, dependencies first; ``run`` repeats
{controllers drain their queues; one scheduling cycle; kubelets start bound pods} until
nothing changes, then moves the clock to the next due time (an eviction, a scheduler retry)
and goes on; ``apply`` runs one timeline step and then the loop again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from kubedra.allocator.features import Features
from kubedra.api.gcpause import paused_gc
from kubedra.cluster.admission import Admission, AdmissionConfig
from kubedra.cluster.claimcontroller import ControllerEvent, ResourceClaimController
from kubedra.cluster.clock import SimClock
from kubedra.cluster.events import Event
from kubedra.cluster.kinds import CREATION_ORDER, KINDS
from kubedra.cluster.kubelet import Kubelet
from kubedra.cluster.poolstatus import PoolStatusController
from kubedra.cluster.store import Store, StoreError, key_of
from kubedra.cluster.tainteviction import DeviceTaintEvictionController

SERVER_FIELDS = ("uid", "resourceVersion", "creationTimestamp", "managedFields", "selfLink")
"""Metadata an export carries that the apiserver sets itself; dropped before create."""

MAX_CYCLES = 1_000_000
MAX_WAKEUPS = 1_000
HORIZON_SECONDS = 7 * 24 * 3600


class SchedulerLike(Protocol):
    """What the loop needs of kubedra.scheduler.Scheduler."""

    decisions: list[Any]

    def has_work(self) -> bool: ...
    def schedule_one(self) -> Any: ...
    def next_wakeup(self) -> datetime | None: ...


SchedulerFactory = Callable[[Store, SimClock, Features, str, int | None], SchedulerLike]
"""Builds the scheduler from the simulation's store, clock, features, policy and seed.

The cluster layer does not choose a scheduler: whoever runs the loop passes one
(``kubedra.scheduler.scheduler_factory()``), so this package never imports the layer above.
"""


@dataclass(frozen=True)
class CreateProblem:
    """An object the store refused, with where it came from."""

    object: str
    source: str
    message: str


@dataclass
class StepResult:
    """What one timeline step (or the initial load and run) changed, in order."""

    description: str
    events: list[Event] = field(default_factory=list)
    time: datetime | None = None


class Simulation:
    """A cluster to load objects into and run to a fixed point."""

    def __init__(
        self,
        *,
        scheduler_factory: SchedulerFactory,
        namespace: str = "default",
        policy: str = "default",
        seed: int | None = None,
        features: Features | None = None,
        admission: AdmissionConfig | None = None,
        start: datetime | None = None,
    ) -> None:
        """``start`` is when the simulated clock starts (default: the fixed
        :data:`kubedra.cluster.clock.START`, so that every run writes the same times)."""
        self.features = features or Features()
        self.clock = SimClock(start) if start is not None else SimClock()
        self.admission = Admission(admission)
        """Priority admission and the disabled-field drops of the chosen release and gates
        (kubedra.cluster.admission), applied to every object created in this cluster."""
        self.store = Store(
            self.clock, namespace, self.features, seed=seed or 0, admission=self.admission
        )
        self.claim_controller = ResourceClaimController(self.store)
        self.taint_controller = DeviceTaintEvictionController(self.store, self.clock)
        self.kubelet = Kubelet(
            self.store,
            self.clock,
            optional_node_operations=self.features.optional_node_operations,
        )
        self.pool_status_controller = PoolStatusController(self.store, self.clock)
        self.scheduler = scheduler_factory(self.store, self.clock, self.features, policy, seed)
        self.cycles = 0

    # --- loading ---------------------------------------------------------------------------

    def load(
        self, objects: Iterable[dict[str, Any]], sources: Iterable[str] | None = None
    ) -> list[CreateProblem]:
        """Create ``objects`` dependencies first; return the ones the store refused.

        Exported objects keep their status (allocations, bindings) and are not admitted again
        (their ``metadata.uid`` says they exist in a cluster); owner references and
        ``reservedFor`` entries naming another loaded object's uid are pointed at its new uid,
        which is why such objects are created after the others.
        """
        items = list(objects)
        where = list(sources) if sources is not None else ["<input>"] * len(items)
        order = {kind: i for i, kind in enumerate(CREATION_ORDER)}
        input_uids = {str(uid) for obj in items if (uid := (obj.get("metadata") or {}).get("uid"))}
        indexed = sorted(
            range(len(items)),
            key=lambda i: (
                _refers_to(items[i], input_uids),
                order.get(str(items[i].get("kind")), len(order)),
                i,
            ),
        )
        uid_map: dict[str, str] = {}
        problems: list[CreateProblem] = []
        with paused_gc():  # see settle
            for i in indexed:
                obj = items[i]
                old_uid = (obj.get("metadata") or {}).get("uid")
                try:
                    # An export (it has a uid) passed admission in its cluster: restored as it is.
                    created = self.store.create(
                        self.kubelet.register(_for_create(obj, uid_map)), admit=not old_uid
                    )
                except StoreError as error:
                    problems.append(CreateProblem(key_of(obj), where[i], error.message))
                    continue
                if old_uid:
                    uid_map[str(old_uid)] = created["metadata"]["uid"]
        return problems

    # --- running ---------------------------------------------------------------------------

    def settle(self, on_cycle: Callable[[], None] | None = None) -> None:
        """Run controllers, scheduler and kubelets until none of them has work (at most
        MAX_CYCLES scheduling cycles per call).

        Python's cyclic garbage collector is paused meanwhile: the loop keeps adding objects
        that live on (stored objects, node views, decisions), and each time they had grown by
        a quarter the collector scanned all of them, about a third of the time of a large
        simulation. The loop makes next to no cyclic garbage (about 500 objects for 10,000
        pods); reference counting still frees everything else at once.
        """
        limit = self.cycles + MAX_CYCLES
        with paused_gc():
            while True:
                progressed = self.claim_controller.sync()
                progressed = self.taint_controller.sync() or progressed
                if self.scheduler.has_work():
                    self.scheduler.schedule_one()
                    progressed = True
                    self.cycles += 1
                    if on_cycle is not None:
                        on_cycle()
                progressed = self.kubelet.sync() or progressed
                if not progressed:
                    # Pool status requests are answered once the rest has settled: a snapshot of
                    # the cluster after the scheduling that the last change set off.
                    progressed = self.pool_status_controller.sync()
                if not progressed or self.cycles >= limit:
                    return

    def run(
        self, on_cycle: Callable[[], None] | None = None, until: datetime | None = None
    ) -> None:
        """Settle, then follow time-based work (evictions, retries) while it changes things.

        ``until`` stops the clock there (the next timeline step is due then).
        """
        start = self.clock.now()
        self.settle(on_cycle)
        for _ in range(MAX_WAKEUPS):
            eviction = self.taint_controller.next_wakeup()
            retry = self.scheduler.next_wakeup()
            due = min((t for t in (eviction, retry) if t is not None), default=None)
            if due is None or (due - start).total_seconds() > HORIZON_SECONDS:
                return
            if until is not None and due > until:
                return
            before = self.store.resource_version
            state = self._fingerprint() if eviction is None else None
            self.clock.advance_to(due)
            self.settle(on_cycle)
            if eviction is None and (
                self.store.resource_version == before or self._fingerprint() == state
            ):
                # A retry that changed nothing, or one that only went round in a circle
                # (binding conditions that never come: time out, allocate again, wait):
                # following it further would only repeat it.
                return

    def apply(
        self,
        step: Callable[[Simulation], None],
        description: str,
        run_for: float | None = None,
    ) -> StepResult:
        """Apply one change, run to the fixed point again, and report every change made.

        ``time`` is when the change was applied; with ``run_for`` the clock stops that many
        seconds later (when the next step is due).
        """
        result = StepResult(description)
        self.store.subscribe(result.events.append)
        try:
            step(self)
            result.time = self.clock.now()
            until = None if run_for is None else result.time + timedelta(seconds=run_for)
            self.run(until=until)
        finally:
            self.store.unsubscribe(result.events.append)
        return result

    def _fingerprint(self) -> tuple[Any, ...]:
        """Where pods are and what claims hold, without timestamps."""
        pods = tuple(
            (
                key_of(p),
                p["spec"].get("nodeName"),
                (p.get("status") or {}).get("phase"),
                (p.get("status") or {}).get("nominatedNodeName"),
            )
            for p in self.store.list("Pod")
        )
        claims = tuple(
            (
                key_of(c),
                repr(((c.get("status") or {}).get("allocation") or {}).get("devices")),
                tuple(r.get("uid") for r in (c.get("status") or {}).get("reservedFor") or []),
            )
            for c in self.store.list("ResourceClaim")
        )
        return pods, claims

    # --- reading ---------------------------------------------------------------------------

    def objects(self) -> list[dict[str, Any]]:
        """Every stored object, kind by kind in creation order."""
        return [obj for kind in KINDS for obj in self.store.list(kind)]

    @property
    def controller_events(self) -> list[ControllerEvent]:
        return self.claim_controller.events


def _refers_to(obj: dict[str, Any], uids: set[str]) -> bool:
    meta = obj.get("metadata") or {}
    if any(ref.get("uid") in uids for ref in meta.get("ownerReferences") or []):
        return True
    reserved = (obj.get("status") or {}).get("reservedFor") or []
    return obj.get("kind") == "ResourceClaim" and any(r.get("uid") in uids for r in reserved)


def _for_create(obj: dict[str, Any], uid_map: dict[str, str]) -> dict[str, Any]:
    """Drop server-set metadata; point references at the new uids of loaded objects."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return obj
    new_meta = {k: v for k, v in meta.items() if k not in SERVER_FIELDS}
    refs = meta.get("ownerReferences")
    if refs:
        new_meta["ownerReferences"] = [
            ref | {"uid": uid_map[ref["uid"]]} if ref.get("uid") in uid_map else ref for ref in refs
        ]
    out = obj | {"metadata": new_meta}
    status = obj.get("status")
    if obj.get("kind") == "ResourceClaim" and isinstance(status, dict):
        reserved = status.get("reservedFor")
        if reserved:
            out["status"] = status | {
                "reservedFor": [
                    r | {"uid": uid_map[r["uid"]]} if r.get("uid") in uid_map else r
                    for r in reserved
                ]
            }
    return out
