"""Claim nominations: the devices DRA preemption freed, held for the preemptor (KEP-5690).

As kubernetes/enhancements#6113 designs them (review of 2026-09, "Claim nomination"): when
DefaultPreemption picks a candidate for a preemptor whose claims needed devices, the
DynamicResources plugin records, in memory and keyed by the preemptor, the nominated node, the
victims' ResourceClaims the simulation released, the allocation the simulation computed for the
preemptor, and an expiry five minutes on. While it lasts:

* the held devices count as allocated for every pod of the preemptor's priority or lower, but
  not for the preemptor itself nor for pods of higher priority (the capacity "remains available
  to pods of higher priority", as a nominated pod's resources do);
* the preemptor does not preempt again while a released claim is still allocated (its victims
  are going but the ResourceClaim controller has not deallocated their claims yet): it stays
  Unschedulable with the PodScheduled reason ``PreemptionSettling``.

A nomination ends when the preemptor is bound or deleted, when it loses its
``status.nominatedNodeName`` (a claim nomination never exists without one: another preemption
took the node), when the same preemptor preempts again, or when it expires; an expired
nomination requeues the preemptor, which may then preempt again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kubedra.scheduler.dynamicresources import DynamicResources

NOMINATION_TTL = timedelta(minutes=5)
"""How long a claim nomination lasts (the KEP's five minutes, "erring on the long side")."""

SETTLING_REASON = "PreemptionSettling"
"""The PodScheduled reason of a preemptor that waits for its victims' claims."""

Device = tuple[str, str, str]


def _device(result: dict[str, Any]) -> Device:
    return (str(result.get("driver")), str(result.get("pool")), str(result.get("device")))


@dataclass(eq=False)
class Nomination:
    """One preemptor's claim nomination (compared by identity: each is one recording)."""

    pod: str
    """The preemptor, ``namespace/name``."""
    node: str
    priority: int
    results: list[dict[str, Any]]
    """The allocation results the preemption simulation computed for the preemptor."""
    released: dict[str, str]
    """uid -> ``namespace/name`` of every victim claim the simulation released."""
    expires: datetime
    pending: set[str] = field(default_factory=set)
    """The released claims (uids) that are still allocated."""

    @property
    def pseudo_uid(self) -> str:
        return f"claim-nomination:{self.pod}"

    @property
    def settling(self) -> bool:
        return bool(self.pending)

    def pending_names(self) -> list[str]:
        return sorted(self.released[uid] for uid in self.pending if uid in self.released)

    def describe(self, now: datetime) -> str:
        """One line for ``kubedra explain``."""
        devices = ", ".join("/".join(_device(r)) for r in self.results) or "no devices"
        left = max(int((self.expires - now).total_seconds()), 0)
        line = f"claim nomination on {self.node}: {devices} held for this pod (expires in {left}s)"
        pending = self.pending_names()
        if pending:
            return (
                f"{line}; preemption settling: waiting for {', '.join(pending)} to be deallocated."
            )
        return f"{line}; the preempted claims are deallocated."


class ClaimNominations:
    """The nominations of one scheduler, counted in DynamicResources' allocated state."""

    def __init__(self, dra: DynamicResources) -> None:
        self.dra = dra
        self._by_pod: dict[str, Nomination] = {}
        self._suspended: list[Nomination] = []

    def get(self, pod: str) -> Nomination | None:
        return self._by_pod.get(pod)

    def __len__(self) -> int:
        return len(self._by_pod)

    # --- counting -------------------------------------------------------------------------------

    def _count(self, nomination: Nomination) -> None:
        self.dra._count(nomination.pseudo_uid, nomination.results)

    def _uncount(self, nomination: Nomination) -> None:
        """Take the held devices out of the allocated state, except those another claim (a
        victim's, not yet deallocated) still holds."""
        dra = self.dra
        dra._count(nomination.pseudo_uid, [])
        allocator = dra.allocator
        if allocator is None:
            return
        held = {_device(r) for r in nomination.results if not r.get("shareID")}
        still = [
            r
            for results in dra._counted.values()
            for r in results
            if not r.get("shareID") and _device(r) in held
        ]
        if still:
            allocator.state.add_results(still)

    # --- lifecycle ------------------------------------------------------------------------------

    def record(self, nomination: Nomination) -> None:
        """A new nomination for its preemptor (replacing one it had)."""
        self.drop(nomination.pod)
        self._by_pod[nomination.pod] = nomination
        self._count(nomination)

    def drop(self, pod: str) -> Nomination | None:
        nomination = self._by_pod.pop(pod, None)
        if nomination is not None and nomination not in self._suspended:
            self._uncount(nomination)
        return nomination

    def claim_deallocated(self, uid: str) -> None:
        """A released claim lost its allocation (or is gone): its devices were just taken out
        of the allocated state, the nominations holding them put them back."""
        allocator = self.dra.allocator
        for nomination in self._by_pod.values():
            if uid not in nomination.pending:
                continue
            nomination.pending.discard(uid)
            if allocator is not None and nomination not in self._suspended:
                allocator.state.add_results(r for r in nomination.results if not r.get("shareID"))

    def expire(self, now: datetime) -> list[Nomination]:
        """Drop the nominations whose time is up; return them (their pods are requeued)."""
        gone = [n for n in self._by_pod.values() if n.expires <= now]
        for nomination in gone:
            self.drop(nomination.pod)
        return gone

    def next_expiry(self) -> datetime | None:
        return min((n.expires for n in self._by_pod.values()), default=None)

    # --- one scheduling cycle -------------------------------------------------------------------

    def suspend_for(self, pod: str, priority: int) -> None:
        """Before ``pod``'s cycle: its own nomination and those of lower-priority preemptors
        do not hold devices against it."""
        self._suspended = [
            n for n in self._by_pod.values() if n.pod == pod or n.priority < priority
        ]
        for nomination in self._suspended:
            self._uncount(nomination)

    def resume(self) -> None:
        """After the cycle: the suspended nominations that still exist hold again."""
        suspended, self._suspended = self._suspended, []
        for nomination in suspended:
            if self._by_pod.get(nomination.pod) is nomination:
                self._count(nomination)

    def all(self) -> Iterable[Nomination]:
        return list(self._by_pod.values())
