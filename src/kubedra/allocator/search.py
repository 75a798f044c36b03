"""One Allocate call: upstream's first-fit depth-first search for one node.

Claims are handled in order, their requests in order, and for each device a request needs,
candidates are tried in pool order; the first complete solution wins. Every check happens
in upstream's order because the order decides which error (if any) surfaces first.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

from kubedra.allocator import compat
from kubedra.allocator.capacity import Consumption, static_consumption
from kubedra.allocator.claims import (
    ALLOCATION_RESULTS_MAX_SIZE,
    PreparedClaim,
    RequestData,
)
from kubedra.allocator.constraints import (
    Constraint,
    DerivedAttributeError,
    DistinctAttribute,
    MatchAttribute,
)
from kubedra.allocator.explain import EQUIVALENT_FAILED, Recorder
from kubedra.allocator.inventory import DeviceInfo, Inventory, NodeView
from kubedra.allocator.nodeselect import NodeInfo
from kubedra.allocator.pruning import Pruning, analyze
from kubedra.allocator.quantities import Number
from kubedra.allocator.results import NodeSelectorTermsError, build_allocation
from kubedra.allocator.selectors import SelectorFailure
from kubedra.allocator.state import AllocatedState


class AllocationError(Exception):
    """Allocation failed with an error; ``node_local`` errors only rule out this node."""

    def __init__(self, message: str, node_local: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.node_local = node_local


class _Exceeded:
    """Upstream's errAllocationResultMaxSizeExceeded: a third search outcome besides
    found / not found, which lets callers backtrack further or try another subrequest."""


_EXCEEDED = _Exceeded()

# Upstream's allocateOne checks its context on every step; the scheduler cancels it after
# DynamicResourcesArgs.filterTimeout (10 s by default), and the error wraps the context's
# cause, context.DeadlineExceeded.
ABORTED = "filter operation aborted: context deadline exceeded"
DEFAULT_TIMEOUT = 10.0

# The node feature a kubelet declares when it can skip node operations (KEP-5945); upstream's
# nodedeclaredfeatures draoptionalnodeoperations.DRAOptionalNodeOperationsFeatureGate.
OPTIONAL_NODE_OPERATIONS = "DRAOptionalNodeOperations"

# Steps between two looks at the clock, and steps after which a search counts as long and
# gets analysed for pruning (short searches, nearly all of them, never pay for it).
_CHECK_EVERY = 1024
PRUNE_AFTER = 4096


class _NoSolution(Exception):
    """Pruning proved that no solution exists (and that no error can occur)."""


class DeviceResult:
    """One device the search took for a request; ``shared``: a share of a device allocated
    in shares (its ``shareID`` is drawn when the allocation is built, for the solution only:
    trial allocations that the search undoes need none)."""

    __slots__ = ("consumed", "device", "request", "shared")

    def __init__(
        self,
        device: DeviceInfo,
        request: RequestData,
        shared: bool,
        consumed: Consumption | None,
    ) -> None:
        self.device = device
        self.request = request
        self.shared = shared
        self.consumed = consumed


def new_share_id() -> str:
    """A shareID as upstream's allocator makes one for every share (a random UUID)."""
    return str(uuid.uuid4())


def taint_blocks(device: DeviceInfo, tolerations: list[dict[str, Any]]) -> bool:
    """Whether a NoSchedule/NoExecute taint of ``device`` is not tolerated."""
    for taint in device.taints:
        effect = taint.get("effect")
        if effect not in ("NoSchedule", "NoExecute"):
            continue
        if not any(_tolerates(t, taint) for t in tolerations):
            return True
    return False


def _tolerates(toleration: dict[str, Any], taint: Any) -> bool:
    effect = toleration.get("effect")
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key")
    if key and key != taint.get("key"):
        return False
    operator = toleration.get("operator") or "Equal"
    if operator == "Equal":
        return (toleration.get("value") or "") == (taint.get("value") or "")
    return operator == "Exists"


# Calls the search makes after the last device of the last claim: past the request's
# devices, past the claim's requests, past the claims (see _allocate_one).
_TAIL_CALLS = 3


class Search:
    """State of one Allocate call (upstream's ``allocator``)."""

    def __init__(
        self,
        inventory: Inventory,
        state: AllocatedState,
        node: NodeInfo,
        view: NodeView,
        claims: list[PreparedClaim],
        recorder: Recorder | None,
        timeout: float | None = DEFAULT_TIMEOUT,
        prune: bool = True,
        prune_after: int = PRUNE_AFTER,
        order: Callable[[Search, RequestData], list[Any]] | None = None,
        share_ids: Callable[[], str] = new_share_id,
        consumptions: dict[tuple[int, str], Consumption | None] | None = None,
    ) -> None:
        # What a capacity request consumes of devices with the same capacity spec, kept by
        # the allocator across calls (see consumption); a fresh table when none is given.
        self.consumptions: dict[tuple[int, str], Consumption | None] = (
            {} if consumptions is None else consumptions
        )
        # Where the shareIDs of the solution's shares come from (upstream: a random UUID).
        self.share_ids = share_ids
        # Candidate order of a device policy (kubedra.allocator.policy); None: pool order.
        self.order = order
        self.inventory = inventory
        self.features = inventory.features
        self.state = state
        self.node = node
        self.view = view
        self.claims = claims
        self.recorder = recorder
        # Per request option: device count and, for mode All, the devices.
        self.num_devices: dict[int, int] = {}
        self.all_devices: dict[int, list[DeviceInfo]] = {}
        self.selected_sub: dict[tuple[int, int], int] = {}
        self.constraints: list[list[Constraint]] = []
        self.results: list[list[DeviceResult]] = [[] for _ in claims]
        self.allocating: dict[str, set[int]] = {}
        self.allocating_capacity: dict[str, dict[str, Number]] = {}
        self.allocating_shares: dict[str, int] = {}
        self.consumed_counters: dict[tuple[str, str], dict[tuple[str, str], Number]] = {}
        # Per pool: its available counters, whether any is negative, and this call's tally.
        self._counter_tally: dict[
            tuple[str, str],
            tuple[dict[tuple[str, str], Number], bool, dict[tuple[str, str], Number]],
        ] = {}
        # Compatibility groups (KEP-5963) per pool and counter set: the devices of this call
        # on top of the allocated ones (baseline), and, with the gate off, the counter sets
        # that carry an allocated grouped device.
        self.groups_running: dict[tuple[str, str], dict[str, compat.Groups]] = {}
        self._groups_baseline: dict[tuple[str, str], dict[str, compat.Groups]] = {}
        self._grouped_sets: dict[tuple[str, str], frozenset[str]] = {}
        self.deadline = None if timeout is None else time.monotonic() + timeout
        self.prune = prune
        self.prune_after = prune_after
        self.steps = 0
        self.countdown = _CHECK_EVERY
        self.exceeded = 0
        self.pruning: Pruning | None = None

    # ----- entry point -------------------------------------------------------------

    def run(self) -> list[dict[str, Any]] | None:
        """The AllocationResult dicts, or None when the claims do not fit on this node."""
        if self.view.error is not None:
            raise AllocationError(self.view.error)
        self._validate()
        try:
            if self.prune and self.prune_after <= 0:
                self._start_pruning()
            outcome = self._allocate_one(0, 0, 0, 0, False)
        except _NoSolution:
            outcome = False
        if outcome is not True:
            if self.view.has_invalid:
                raise AllocationError("invalid resource pools were encountered", node_local=True)
            return None
        allocations = []
        for claim_index, claim in enumerate(self.claims):
            try:
                allocation = build_allocation(
                    claim,
                    self.results[claim_index],
                    self._selected_options(claim_index, claim),
                    self.node.name,
                    self.features,
                    self.share_ids,
                )
            except NodeSelectorTermsError as err:
                name = claim.label.split("/", 1)[-1]
                raise AllocationError(f"create NodeSelector for claim {name}: {err}") from None
            allocations.append(allocation)
        return allocations

    def _selected_options(self, claim_index: int, claim: PreparedClaim) -> list[RequestData]:
        chosen = []
        for request_index, slot in enumerate(claim.slots):
            sub = self.selected_sub.get((claim_index, request_index), 0)
            chosen.append(slot.options[sub])
        return chosen

    # ----- validation ----------------------------------------------------------------

    def _validate(self) -> None:
        list_mode = self.features.list_type_attributes
        for claim in self.claims:
            min_devices = 0
            for slot in claim.slots:
                if slot.error is not None:
                    raise AllocationError(slot.error)
                smallest: int | None = None
                for data in slot.options:
                    if data.error is not None:
                        raise AllocationError(data.error)
                    if data.mode_all:
                        devices = self._all_devices(claim, data)
                        self.all_devices[id(data)] = devices
                        count = len(devices)
                    else:
                        count = data.count
                    self.num_devices[id(data)] = count
                    if smallest is None or count < smallest:
                        smallest = count
                min_devices += smallest or 0
            if min_devices > ALLOCATION_RESULTS_MAX_SIZE:
                raise AllocationError(
                    f"claim {claim.label}: number of requested devices {min_devices} "
                    f"exceeds the claim limit of {ALLOCATION_RESULTS_MAX_SIZE}"
                )
            if claim.constraint_error is not None:
                raise AllocationError(claim.constraint_error)
            self.constraints.append(
                [
                    (DistinctAttribute if c.distinct else MatchAttribute)(
                        c.requests, c.attribute, list_mode
                    )
                    for c in claim.constraints
                ]
            )

    def _all_devices(self, claim: PreparedClaim, data: RequestData) -> list[DeviceInfo]:
        devices: list[DeviceInfo] = []
        for pool in self.view.pools:
            pool_id = f"{pool.driver}/{pool.name}"
            if pool.incomplete:
                raise AllocationError(
                    f"claim {claim.label}, request {data.name}: asks for all devices, "
                    f"but resource pool {pool_id} is currently being updated"
                )
            if pool.invalid:
                raise AllocationError(
                    f"claim {claim.label}, request {data.name}: asks for all devices, "
                    f"but resource pool {pool_id} is currently invalid"
                )
            for device in pool.devices:
                if not self._selectable(claim, data, device):
                    continue
                # Only the device's own capacity decides membership: a matching device whose
                # capacity other allocations have used up stays in the list, so that the
                # request fails on it (kubernetes/kubernetes#140769). Before that fix such a
                # device was left out and All succeeded with the rest.
                if self.features.consumable_capacity and not self._capacity_fits_alone(
                    data, device
                ):
                    continue
                devices.append(device)
        return devices

    # ----- per-device checks -------------------------------------------------------------

    def _selectable(self, claim: PreparedClaim, data: RequestData, device: DeviceInfo) -> bool:
        if not self.features.binding_conditions and device.binding_conditions:
            return False
        assert data.chain is not None
        outcome = data.chain.evaluate(device)
        if outcome is not True:
            if outcome is False:
                return False
            assert isinstance(outcome, SelectorFailure)
            assert data.cls is not None
            raise AllocationError(outcome.render(data.cls.name, claim.label, device.key))
        if device.slice.per_device:
            ok = self.view.device_node_ok.get(id(device), False)
            if ok is not True:
                if ok is False:
                    return False
                raise AllocationError(str(ok))
        return True

    def consumption(self, data: RequestData, device: DeviceInfo) -> Consumption | None:
        """What ``data`` consumes of ``device`` (None: its request policy refuses it), cached."""
        key = -data.capacity_id - 1
        cache = device.match_cache
        if key in cache:
            return cache[key]
        # Devices of one kind share their capacity spec: its rounding is worked out once
        # per spec and capacity request (the raw spec decides: CapacityInfo is parsed from
        # it, and the fractional gate is fixed for the allocator's life).
        spec = (data.capacity_id, repr(device.raw.get("capacity")))
        consumptions = self.consumptions
        if spec in consumptions:
            found = consumptions[spec]
        else:
            found = consumptions[spec] = static_consumption(
                device, data.capacity, self.features.fractional_capacity_range
            )
        cache[key] = found
        return found

    def _capacity_fits(self, data: RequestData, device: DeviceInfo) -> bool:
        # The cached consumption read inline: this runs for every candidate device.
        key = -data.capacity_id - 1
        cache = device.match_cache
        consumption = cache[key] if key in cache else self.consumption(data, device)
        if consumption is None:
            return False
        if not consumption:
            return True
        capacity = device.capacity
        shared = self.state.shared.get(device.key)
        allocating = self.allocating_capacity.get(device.key)
        if shared is None and allocating is None:
            for name, amount, _ in consumption:
                if amount > capacity[name].number:
                    break
            else:
                return True
            return False
        for name, amount, _ in consumption:
            total = amount
            if shared is not None:
                total += shared.get(name, 0)
            if allocating is not None:
                total += allocating.get(name, 0)
            if total > capacity[name].number:
                return False
        return True

    def _capacity_fits_alone(self, data: RequestData, device: DeviceInfo) -> bool:
        """Whether the request fits the device's capacity with nothing else consuming it."""
        consumption = self.consumption(data, device)
        if consumption is None:
            return False
        return all(amount <= device.capacity[name].number for name, amount, _ in consumption)

    def _shared_now(self, key: str) -> bool:
        """Upstream's deviceCapacityInUse: a persisted share of the device is live, or this
        call has placed one."""
        return self.state.has_share(key) or key in self.allocating_capacity

    def _in_use(self, key: str) -> bool:
        if key in self.state.in_use:
            return True
        claims = self.allocating.get(key)
        return bool(claims)

    # ----- the search --------------------------------------------------------------------

    def _allocate_one(
        self,
        claim_index: int,
        request_index: int,
        sub_index: int,
        device_index: int,
        in_sub: bool,
        start_pool: int = 0,
        start_device: int = 0,
    ) -> bool | _Exceeded:
        """Find a device for the given position, then recurse for the next one.

        ``start_pool`` / ``start_device`` say where the search for the next device of the
        same request resumes: upstream's newer implementations pick the devices of one
        request in pool order (combinations, never the same device twice), while the
        conservative one starts over at the first pool for every device (permutations).
        """
        self.countdown -= 1
        if not self.countdown:
            self._checkpoint()
        if claim_index >= len(self.claims):
            return True
        claim = self.claims[claim_index]
        if request_index >= len(claim.slots):
            outcome = self._allocate_one(claim_index + 1, 0, 0, 0, False)
            if outcome is _EXCEEDED:
                return False
            return outcome
        slot = claim.slots[request_index]
        if not in_sub and slot.subrequests:
            all_exceeded = True
            for i in range(len(slot.options)):
                outcome = self._allocate_one(claim_index, request_index, i, device_index, True)
                if outcome is _EXCEEDED:
                    continue
                all_exceeded = False
                if outcome is True:
                    self.selected_sub[(claim_index, request_index)] = i
                    return True
            return _EXCEEDED if all_exceeded else False
        data = slot.options[sub_index]
        num = self.num_devices[id(data)]
        if data.mode_all and num == 0:
            return False
        if device_index >= num:
            return self._allocate_one(claim_index, request_index + 1, 0, 0, False)
        if len(self.results[claim_index]) + num - device_index > ALLOCATION_RESULTS_MAX_SIZE:
            self.exceeded += 1
            return _EXCEEDED
        pruning = self.pruning
        if device_index == 0 and pruning is not None and id(data) in pruning.infeasible:
            return False

        if data.mode_all:
            device = self.all_devices[id(data)][device_index]
            undo = self._allocate_device(claim, claim_index, data, device, must=True)
            if undo is None:
                return False
            outcome = self._allocate_one(
                claim_index, request_index, sub_index, device_index + 1, in_sub
            )
            if outcome is not True:
                undo()
                return outcome
            return True

        admin = data.admin
        consumable = self.features.consumable_capacity
        recorder = self.recorder
        in_use = self.state.in_use
        allocating = self.allocating
        pools = self.view.pools if self.order is None else self.order(self, data)
        resume = not self.features.conservative
        last = (
            device_index + 1 >= num
            and request_index + 1 >= len(claim.slots)
            and claim_index + 1 >= len(self.claims)
        )
        assert data.chain is not None
        chain_id = data.chain.chain_id
        bindings_off = not self.features.binding_conditions
        # Signatures of devices that failed at this position (pruning.py); taken up by the
        # loops that start after a long search was analysed.
        failed: set[tuple[Any, ...]] | None = None
        signatures = None
        if pruning is not None and not admin:
            signatures = pruning.signatures
        for pool_index in range(start_pool, len(pools)):
            pool = pools[pool_index]
            if pool.incomplete or pool.invalid:
                if recorder is not None:
                    recorder.pool_skipped(claim.label, data.result_name, pool)
                continue
            devices = pool.devices
            first = start_device if pool_index == start_pool else 0
            for position in range(first, len(devices)):
                device = devices[position]
                key = device.key
                if admin:
                    claims_using = allocating.get(key)
                    if claims_using and claim_index in claims_using:
                        if recorder is not None:
                            recorder.reject(claim.label, data.result_name, "already allocated", key)
                        continue
                elif key in in_use or allocating.get(key):
                    if recorder is not None:
                        recorder.reject(claim.label, data.result_name, "already allocated", key)
                    continue
                # _selectable's usual outcome read inline from the selector cache (the
                # scan visits every device of the node): a device known not to match, or
                # known to match with nothing else to check.
                matched = device.match_cache.get(chain_id)
                if (
                    matched is not True
                    or device.slice.per_device
                    or (bindings_off and device.binding_conditions)
                ):
                    selectable = matched is not False and self._selectable(claim, data, device)
                    if not selectable:
                        if recorder is not None:
                            recorder.unselectable(claim.label, data, device)
                        continue
                if consumable and not self._capacity_fits(data, device):
                    if recorder is not None:
                        recorder.reject(claim.label, data.result_name, "capacity insufficient", key)
                    continue
                signature = None
                if signatures is not None and not (consumable and device.allow_multiple):
                    signature = signatures.get(id(device))
                    if failed is not None and signature in failed:
                        if recorder is not None:
                            recorder.reject(claim.label, data.result_name, EQUIVALENT_FAILED, key)
                        continue
                    exceeded = self.exceeded
                if (
                    device.consumes
                    and recorder is None
                    and not (consumable and device.allow_multiple and self._shared_now(key))
                    and self._counters_short(device)
                ):
                    # _allocate_device would take the counters and fail: without a recorder
                    # to tell which check refused the device, the cheaper check says so.
                    continue
                undo = self._allocate_device(
                    claim, claim_index, data, device, must=False, capacity_checked=consumable
                )
                if undo is None:
                    continue
                if last and self.countdown > _TAIL_CALLS:
                    # The last device of the last request of the last claim: the recursion
                    # would make _TAIL_CALLS calls that only step past the ends and succeed.
                    # Their countdown is kept (none of them would reach a checkpoint).
                    self.countdown -= _TAIL_CALLS
                    return True
                if resume:
                    outcome = self._allocate_one(
                        claim_index,
                        request_index,
                        sub_index,
                        device_index + 1,
                        in_sub,
                        pool_index,
                        position + 1,
                    )
                else:
                    outcome = self._allocate_one(
                        claim_index, request_index, sub_index, device_index + 1, in_sub
                    )
                if outcome is True:
                    return True
                undo()
                if outcome is _EXCEEDED:
                    return _EXCEEDED
                if signature is not None and self.exceeded == exceeded:
                    # This device failed here without any results-size overflow below it:
                    # an interchangeable device fails here too (see pruning.py).
                    if failed is None:
                        failed = set()
                    failed.add(signature)
        return False

    def _checkpoint(self) -> None:
        """Abort past the deadline; analyse a long search once for pruning."""
        self.steps += _CHECK_EVERY
        self.countdown = _CHECK_EVERY
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise AllocationError(ABORTED)
        if self.prune and self.steps >= self.prune_after:
            self._start_pruning()

    def _start_pruning(self) -> None:
        self.prune = False
        self.pruning = analyze(self, self._check_deadline)
        if self.pruning is not None and self.pruning.no_solution:
            raise _NoSolution

    def _check_deadline(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise AllocationError(ABORTED)

    def usable_alone(self, data: RequestData, device: DeviceInfo) -> bool:
        """Whether ``device`` could serve ``data`` if this call had allocated nothing else
        (selectors aside): in use, counters, taints and capacity only get tighter."""
        key = device.key
        features = self.features
        state = self.state
        allow_multiple = features.consumable_capacity and device.allow_multiple
        if not data.admin and key in state.in_use:
            return False
        if not data.admin and not allow_multiple and state.has_share(key):
            return False
        if device.slice.skip_node_operations and not self._node_operations_ok():
            return False
        if device.consumes:
            if not features.partitionable_devices:
                return False
            if not (allow_multiple and state.has_share(key)):
                if features.compatibility_groups:
                    # Devices placed by this call only narrow the groups (compat.fold).
                    base = self._groups_base(device)
                    groups = compat.groups_of(device)
                    if not all(compat.admits(base.get(n), g) for n, g in groups):
                        return False
                elif self._unverifiable(device):
                    return False
                pool = self.view.pool_by_key.get((device.driver, device.pool))
                if pool is None:
                    return False
                available, negative = state.available_counters(pool)
                if negative:
                    return False
                totals: dict[tuple[str, str], Number] = {}
                for k, amount in device.counter_use:
                    totals[k] = totals.get(k, 0) + amount
                for k, total in totals.items():
                    limit = available.get(k)
                    if limit is not None and limit < total:
                        return False
        if features.device_taints and device.taints and taint_blocks(device, data.tolerations):
            return False
        if features.consumable_capacity:
            consumption = self.consumption(data, device)
            if consumption is None:
                return False
            shared = state.shared.get(key)
            for name, amount, _ in consumption:
                total = amount + (shared.get(name, 0) if shared is not None else 0)
                if total > device.capacity[name].number:
                    return False
        return True

    def _allocate_device(
        self,
        claim: PreparedClaim,
        claim_index: int,
        data: RequestData,
        device: DeviceInfo,
        must: bool,
        capacity_checked: bool = False,
    ) -> Callable[[], None] | None:
        """Take ``device`` for ``data``: the undo function, or None when it cannot be taken.

        ``capacity_checked``: the caller has just seen the request fit the device's capacity
        (nothing taken since can change that), so the check is not repeated.
        """
        features = self.features
        key = device.key
        recorder = self.recorder
        allow_multiple = features.consumable_capacity and device.allow_multiple
        if not allow_multiple and data.admin:
            claims_using = self.allocating.get(key)
            if claims_using and claim_index in claims_using:
                if recorder is not None:
                    recorder.reject(claim.label, data.result_name, "already allocated", key)
                return None
        if not data.admin and self._in_use(key):
            if recorder is not None:
                recorder.reject(claim.label, data.result_name, "already allocated", key)
            return None
        # A device that no longer allows multiple allocations (its slice was updated) while
        # a share of it is still live is not handed out whole (kubernetes/kubernetes#140798).
        if not data.admin and not allow_multiple and self._shared_now(key):
            if recorder is not None:
                recorder.reject(claim.label, data.result_name, "already allocated", key)
            return None
        if device.slice.skip_node_operations and not self._node_operations_ok():
            if recorder is not None:
                recorder.reject(claim.label, data.result_name, "skips node operations", key)
            return None
        if not features.partitionable_devices and device.consumes:
            if recorder is not None:
                recorder.reject(claim.label, data.result_name, "counters exhausted", key)
            return None
        # A further share of a device that is already shared does not take its counters
        # again; a persisted share counts even when it consumes no capacity
        # (kubernetes/kubernetes#140437).
        skip_counters = allow_multiple and self._shared_now(key)
        restore_groups: Callable[[], None] | None = None
        if not skip_counters and device.consumes:
            if features.compatibility_groups:
                restore_groups = self._take_groups(device)
                if restore_groups is None:
                    if recorder is not None:
                        recorder.reject(
                            claim.label, data.result_name, "incompatible compatibility groups", key
                        )
                    return None
            elif self._unverifiable(device):
                if recorder is not None:
                    recorder.reject(
                        claim.label, data.result_name, "compatibility groups not enforced", key
                    )
                return None
        counted = False
        if not skip_counters and device.consumes:
            if not self._take_counters(device):
                if restore_groups is not None:
                    restore_groups()
                if recorder is not None:
                    recorder.reject(claim.label, data.result_name, "counters exhausted", key)
                return None
            counted = True
        if data.parent is None:
            base, sub = data.name, ""
        else:
            base, sub = data.parent, data.name
        constraints = self.constraints[claim_index]
        # What this call changed, reversed by one rollback on every rejection after the
        # counters were taken and by the backtracking undo, as upstream does since
        # kubernetes/kubernetes#140431 (backported to 1.36 in #140663): before that fix a
        # device rejected for a taint, a constraint or capacity kept its counters (and
        # constraints), so a later device of the same counter set was refused.
        added_constraints = 0
        users: set[int] | None = None
        shared = False
        consumed: Consumption | None = None

        def rollback() -> None:
            for constraint in constraints[:added_constraints]:
                constraint.remove(base, sub)
            if users is not None:
                users.discard(claim_index)
            if shared:
                self._release_share(key, consumed)
            if restore_groups is not None:
                restore_groups()
            if counted:
                self._release_counters(device)

        if features.device_taints and device.taints and taint_blocks(device, data.tolerations):
            rollback()
            if recorder is not None:
                recorder.reject(claim.label, data.result_name, "taint not tolerated", key)
            return None
        derived = data.derived
        for constraint in constraints:
            try:
                added = constraint.add(base, sub, device, derived)
            except DerivedAttributeError as err:
                rollback()
                raise AllocationError(str(err)) from None
            if not added:
                rollback()
                if must:
                    raise AllocationError(
                        f"claim {claim.label}, request {data.name}: cannot add device "
                        f"{key} because a claim constraint would not be satisfied"
                    )
                if recorder is not None:
                    recorder.reject(
                        claim.label,
                        data.result_name,
                        "constraint mismatch",
                        key,
                        constraint.describe(),
                    )
                return None
            added_constraints += 1
        users = self.allocating.get(key)
        if users is None:
            users = set()
            self.allocating[key] = users
        if not allow_multiple:
            users.add(claim_index)
        if features.consumable_capacity:
            if not capacity_checked and not self._capacity_fits(data, device):
                rollback()
                if recorder is not None:
                    recorder.reject(claim.label, data.result_name, "capacity insufficient", key)
                return None
            if allow_multiple:
                consumed = self.consumption(data, device)
                self._take_share(key, consumed)
                shared = True
        results = self.results[claim_index]
        results.append(DeviceResult(device, data, shared, consumed))

        def undo() -> None:
            rollback()
            results.pop()

        return undo

    # ----- optional node operations and compatibility groups ----------------------------

    def _node_operations_ok(self) -> bool:
        """Whether a device of a slice with ``skipNodeOperations`` may be allocated here.

        Upstream's newest implementation refuses it unless DRAOptionalNodeOperations is on
        and the node's kubelet declares the feature; the older ones ignore the field.
        """
        features = self.features
        if not features.experimental:
            return True
        return (
            features.optional_node_operations
            and OPTIONAL_NODE_OPERATIONS in self.node.declared_features
        )

    def _unverifiable(self, device: DeviceInfo) -> bool:
        """With DRADeviceCompatibilityGroups off: whether the device must be skipped."""
        if device.declares_groups:
            return True
        pool_key = (device.driver, device.pool)
        grouped = self._grouped_sets.get(pool_key)
        if grouped is None:
            pool = self.view.pool_by_key.get(pool_key)
            grouped = (
                compat.grouped_counter_sets(pool, self.state.allocated)
                if pool is not None and pool.declares_groups
                else frozenset()
            )
            self._grouped_sets[pool_key] = grouped
        return bool(grouped) and compat.unverifiable(device, grouped)

    def _groups_base(self, device: DeviceInfo) -> dict[str, compat.Groups]:
        """The groups of the allocated devices of the device's pool, per counter set."""
        pool_key = (device.driver, device.pool)
        base = self._groups_baseline.get(pool_key)
        if base is None:
            pool = self.view.pool_by_key.get(pool_key)
            base = {} if pool is None else compat.baseline(pool, self.state.allocated)
            self._groups_baseline[pool_key] = base
        return base

    def _take_groups(self, device: DeviceInfo) -> Callable[[], None] | None:
        """Fold the device's groups into every counter set it uses; the function that undoes
        it, or None (nothing changed) when some counter set does not admit the device."""
        pool_key = (device.driver, device.pool)
        running = self.groups_running.get(pool_key)
        if running is None:
            running = self.groups_running[pool_key] = {}
        base = self._groups_base(device)
        saved: list[tuple[str, bool, compat.Groups]] = []

        def restore() -> None:
            for set_name, existed, previous in reversed(saved):
                if existed:
                    running[set_name] = previous
                else:
                    del running[set_name]

        for set_name, groups in compat.groups_of(device):
            existed = set_name in running
            current = running[set_name] if existed else base.get(set_name)
            if not compat.admits(current, groups):
                restore()
                return None
            saved.append((set_name, existed, current))
            running[set_name] = compat.fold(current, groups)
        return restore

    # ----- shares of multi-allocatable devices -----------------------------------------

    def _take_share(self, key: str, consumed: Consumption | None) -> None:
        """Count one more share of a multi-allocatable device and add what it consumes.

        The device stays marked as shared (its counters are not taken again) while any share
        of this call lives, also when the shares consume nothing (#140431 keeps that marker
        while another live share relies on it).
        """
        self.allocating_shares[key] = self.allocating_shares.get(key, 0) + 1
        totals = self.allocating_capacity.setdefault(key, {})
        for name, amount, _ in consumed or ():
            totals[name] = totals.get(name, 0) + amount

    def _release_share(self, key: str, consumed: Consumption | None) -> None:
        left = self.allocating_shares[key] - 1
        if left:
            self.allocating_shares[key] = left
            totals = self.allocating_capacity[key]
            for name, amount, _ in consumed or ():
                totals[name] -= amount
        else:
            del self.allocating_shares[key]
            del self.allocating_capacity[key]

    # ----- shared counters -----------------------------------------------------------

    def _tally(
        self, device: DeviceInfo
    ) -> tuple[dict[tuple[str, str], Number], bool, dict[tuple[str, str], Number]] | None:
        """The available counters of the device's pool, whether any is negative, and what
        this call has taken of them (None: the pool is not in the node's view)."""
        pool_key = (device.driver, device.pool)
        tally = self._counter_tally.get(pool_key)
        if tally is None:
            # Once per pool and call: the allocated state does not change during a search.
            pool = self.view.pool_by_key.get(pool_key)
            if pool is None:
                return None
            available, negative = self.state.available_counters(pool)
            consumed = self.consumed_counters.get(pool_key)
            if consumed is None:
                consumed = self.consumed_counters[pool_key] = {}
            tally = self._counter_tally[pool_key] = (available, negative, consumed)
        return tally

    def _counters_short(self, device: DeviceInfo) -> bool:
        """Whether taking the device's counters would certainly fail now (a pool overdrawn,
        or a counter it uses once exhausted): the scan skips it without trying to take it."""
        tally = self._tally(device)
        if tally is None or not device.counters_unique:
            return False
        available, negative, consumed = tally
        if negative:
            return True
        for k, amount in device.counter_use:
            limit = available.get(k)
            if limit is not None and limit < consumed.get(k, 0) + amount:
                return True
        return False

    def _take_counters(self, device: DeviceInfo) -> bool:
        """Add the device's counter use to this call's tally; False (and undone) when a
        counter of its pool would be exceeded.

        Only the counters the device uses can newly exceed their limit, and a pool that
        allocated devices already overdraw admits nothing, as upstream compares all counters.
        """
        tally = self._tally(device)
        if tally is None:
            return False
        available, negative, consumed = tally
        if device.counters_unique:
            # Each counter once: check before adding, so that the usual outcome (a counter
            # exhausted) returns at the first short counter without adding and taking back.
            if negative:
                return False
            for k, amount in device.counter_use:
                limit = available.get(k)
                if limit is not None and limit < consumed.get(k, 0) + amount:
                    return False
            for k, amount in device.counter_use:
                consumed[k] = consumed.get(k, 0) + amount
            return True
        ok = not negative
        for k, amount in device.counter_use:
            total = consumed.get(k, 0) + amount
            consumed[k] = total
            if ok:
                limit = available.get(k)
                if limit is not None and limit < total:
                    ok = False
        if not ok:
            self._release_counters(device)
        return ok

    def _release_counters(self, device: DeviceInfo) -> None:
        consumed = self.consumed_counters[(device.driver, device.pool)]
        for k, amount in device.counter_use:
            consumed[k] -= amount
