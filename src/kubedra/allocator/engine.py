"""The allocator's public face: one cluster state, many Allocate calls.

``Allocator`` indexes classes and slices once and keeps the allocated state incrementally;
``allocate`` runs upstream's search for one node and a set of claims, ``commit`` records an
allocation so that later calls see it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kubedra.allocator import inputs, policy
from kubedra.allocator.capacity import Consumption
from kubedra.allocator.claims import PreparedClaim, prepare_claims
from kubedra.allocator.explain import Recorder
from kubedra.allocator.features import Features
from kubedra.allocator.inventory import Inventory
from kubedra.allocator.nodeselect import NodeInfo
from kubedra.allocator.quantities import QuantityError
from kubedra.allocator.search import (
    ABORTED,
    DEFAULT_TIMEOUT,
    PRUNE_AFTER,
    AllocationError,
    Search,
    new_share_id,
)
from kubedra.allocator.state import AllocatedState


@dataclass(frozen=True)
class Outcome:
    """The result of one Allocate call: allocations, unschedulable, or an error."""

    allocations: list[dict[str, Any]] | None = None
    error: str | None = None
    node_local: bool = False

    @property
    def ok(self) -> bool:
        return self.allocations is not None

    @property
    def unschedulable(self) -> bool:
        return self.allocations is None and self.error is None

    @property
    def timed_out(self) -> bool:
        """The search hit its time bound (upstream's filterTimeout): retry later."""
        return self.error == ABORTED


_DEFAULT: Any = object()


class Allocator:
    """Upstream's structured allocator over one cluster state (v1 wire dicts, defaulted).

    ``timeout`` bounds each ``allocate`` call in seconds (None: unbounded) as the scheduler's
    filterTimeout bounds upstream's search; ``prune`` cuts what provably cannot succeed
    (never changing a result; off only to compare against the plain search);
    ``device_policy`` picks among valid devices: first-fit, best-fit, spread or a device
    ranking (``policy.DeviceKey``, e.g. a placement policy's; see policy.py);
    ``share_ids`` makes the shareID of each share a solution allocates.
    """

    def __init__(
        self,
        features: Features,
        device_classes: Iterable[Mapping[str, Any]],
        resource_slices: Iterable[Mapping[str, Any]],
        allocated_claims: Iterable[Mapping[str, Any]] = (),
        device_taint_rules: Iterable[Mapping[str, Any]] = (),
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        prune: bool = True,
        device_policy: str | policy.DeviceKey = "first-fit",
        share_ids: Callable[[], str] = new_share_id,
    ) -> None:
        policy.check_policy(device_policy)
        # The shareIDs of new shares: random UUIDs as upstream's, or a seeded sequence (the
        # simulated cluster's, so that a run with the same seed writes the same claims).
        self.share_ids = share_ids
        self.features = features
        # Which valid devices a request gets (kubedra.allocator.policy); upstream: first-fit.
        self.device_policy = device_policy
        self.timeout = timeout
        self.prune = prune
        # Search steps before a search counts as long and is analysed for pruning.
        self.prune_after = PRUNE_AFTER
        # What each capacity request consumes per device capacity spec, shared by every
        # call on this inventory (capacity request ids are numbered by the inventory).
        self._consumptions: dict[tuple[int, str], Consumption | None] = {}
        classes = list(device_classes)
        slices = list(resource_slices)
        held = list(allocated_claims)
        rules = list(device_taint_rules)
        self._inputs = [
            ("DeviceClass", classes, inputs.DEVICE_CLASS, "deviceClasses"),
            ("ResourceSlice", slices, inputs.RESOURCE_SLICE, "resourceSlices"),
            ("ResourceClaim", held, inputs.RESOURCE_CLAIM, "allocatedClaims"),
            ("DeviceTaintRule", rules, inputs.DEVICE_TAINT_RULE, "deviceTaintRules"),
        ]
        try:
            self.inventory = Inventory(features, classes, slices, rules)
            self.state = AllocatedState(features)
            self.state.add_claims(held)
        except inputs.PYTHON_ERRORS as err:
            if isinstance(err, inputs.InputError):
                raise
            self._explain_failure(err)

    def _explain_failure(
        self, err: Exception, extra: list[tuple[str, Any, Any, str]] | None = None
    ) -> None:
        """Turn what a wrong-typed input made Python raise into an InputError naming the
        object and field; re-raise ``err`` when no input is wrong-typed (a bug).

        Checking only after a failure keeps the check off the hot path: a cluster's slices
        are far too many to walk on every construction."""
        if isinstance(err, QuantityError):
            raise err
        found = inputs.first_problem((extra or []) + self._inputs)
        if found is None:
            raise err
        raise found from None

    def prepare(self, claims: Sequence[Mapping[str, Any]]) -> list[PreparedClaim]:
        """Do the node-independent part of the work for ``claims`` once."""
        try:
            return prepare_claims(claims, self.inventory)
        except inputs.PYTHON_ERRORS as err:
            if isinstance(err, inputs.InputError):
                raise
            self._explain_failure(
                err, [("ResourceClaim", list(claims), inputs.RESOURCE_CLAIM, "claims")]
            )
            raise

    def allocate(
        self,
        node: Mapping[str, Any] | NodeInfo,
        claims: Sequence[Mapping[str, Any]] | list[PreparedClaim],
        recorder: Recorder | None = None,
        timeout: float | None = _DEFAULT,
    ) -> Outcome:
        """Allocate ``claims`` together for ``node`` against the current allocated state.

        ``timeout`` overrides the allocator's bound for this call. Bad input met on the way
        (a malformed quantity in a slice or claim) is an error outcome, never an exception.
        """
        try:
            info = node if isinstance(node, NodeInfo) else NodeInfo.from_v1(node)
            prepared = (
                claims if claims and isinstance(claims[0], PreparedClaim) else self.prepare(claims)  # type: ignore[arg-type]
            )
            view = self.inventory.node_view(info)
            search = Search(
                self.inventory,
                self.state,
                info,
                view,
                prepared,  # type: ignore[arg-type]
                recorder,
                timeout=self.timeout if timeout is _DEFAULT else timeout,
                prune=self.prune,
                prune_after=self.prune_after,
                order=policy.orderer(self.device_policy),
                share_ids=self.share_ids,
                consumptions=self._consumptions,
            )
            allocations = search.run()
        except AllocationError as err:
            return Outcome(error=err.message, node_local=err.node_local)
        except inputs.PYTHON_ERRORS as err:
            return Outcome(error=self._input_error(err, node, claims))
        if allocations is None:
            return Outcome()
        return Outcome(allocations=allocations)

    def _input_error(self, err: Exception, node: Any, claims: Any) -> str:
        """The clear message for bad input met during ``allocate`` (see _explain_failure)."""
        if isinstance(err, (inputs.InputError, QuantityError)):
            return str(err)
        raw = [c.raw if isinstance(c, PreparedClaim) else c for c in claims or []]
        extra: list[tuple[str, Any, Any, str]] = [
            ("ResourceClaim", raw, inputs.RESOURCE_CLAIM, "claims"),
        ]
        if not isinstance(node, NodeInfo):
            extra.insert(0, ("Node", [node], inputs.NODE, "node"))
        try:
            self._explain_failure(err, extra)
        except inputs.InputError as found:
            return str(found)
        raise err

    def explain(
        self,
        node: Mapping[str, Any] | NodeInfo,
        claims: Sequence[Mapping[str, Any]] | list[PreparedClaim],
    ) -> tuple[Outcome, Recorder]:
        """``allocate`` with a fresh Recorder: the outcome and why candidates were rejected."""
        recorder = Recorder()
        return self.allocate(node, claims, recorder), recorder

    def commit(self, allocations: Iterable[Mapping[str, Any]]) -> None:
        """Record allocation results so that they count as allocated from now on."""
        for allocation in allocations:
            self.state.add_results((allocation.get("devices") or {}).get("results") or [])

    def release(self, allocations: Iterable[Mapping[str, Any]]) -> None:
        """Give back allocation results recorded with ``commit`` (or as allocated claims)."""
        for allocation in allocations:
            self.state.remove_results((allocation.get("devices") or {}).get("results") or [])
