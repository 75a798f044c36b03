"""What the cluster's devices hold over a replay: allocated devices and capacity, the hours
they were allocated and available, and the stranded capacity.

The meter reads the scheduler's allocator (its inventory of devices and its allocated state)
and follows the pools that changed since it last looked, so that a sample costs what changed,
not the size of the cluster. Devices that look alike to every request seen so far (the same
classes and request matches, the same capacity and policies) form one kind; the stranded
figure is then worked out per kind and free state, not per device.

Stranded (the fragmentation figure of issue 18): free devices, or free capacity of shared
devices, that no request of a pending pod could use at that moment. A request can use a device
when its class and selectors match it, what is free of it covers what the request would
consume (after the capacity's request policy), and its pool (for node-local slices: its node)
has as many such devices as the request's ``count`` (all of the pool's matching devices for
``allocationMode: All``): a lone free GPU on a node is stranded while the pods that wait need
two GPUs on one node. Node resources, taints and partitionable counters are not considered.
While no pod waits for devices, free devices are idle, not stranded (the figure is 0).

Shares (the paper's experiment, ``kubedra replay --inflate``): once :meth:`DeviceMeter.count_shares`
names the pod shapes of a workload, the meter also counts the devices some request of them
could ever use, and how much of those is allocated as a share of a device: 1 for a device
allocated whole, else the largest fraction consumed of one of its capacities (0.46 of a GPU's
``gpu_milli`` counts 0.46). :meth:`DeviceMeter.demand` says how many device-equivalents a pod
shape asks for, by the same rule. Shares are kept as integers in units of 10^-9 of a device,
so that sums stay exact whatever the order of changes.

To keep a sample cheap, each pool's free devices are counted by the set of requests (of all
seen so far) that could use them, as a bit mask, worked out again only for the pools that
changed; the stranded figure for the pending requests is then the count of the masks that
hold none of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kubedra.allocator.capacity import static_consumption
from kubedra.allocator.inventory import DeviceInfo
from kubedra.allocator.selectors import SelectorChain
from kubedra.api.defaults import apply_defaults

if TYPE_CHECKING:
    from kubedra.allocator.engine import Allocator
    from kubedra.scheduler.dynamicresources import DynamicResources

NANO = 10**9
"""The allocator's numbers are in units of 10^-9 (kubedra.allocator.quantities)."""
MODEL_ATTRIBUTES = ("model", "productName")
"""Device attributes (any domain) whose value names the GPU model, in this order."""

FreeState = tuple[int, ...] | None
"""What is free of a device, per capacity name of its kind; () for a free device without
capacity; None when it is taken whole."""


METER_CEILING = 1e200
"""Amounts are metered as floats up to this: a slice may give a device a capacity of
``1e999``, which no float holds; integrals over months of thousands of such devices stay
finite (JSON has no infinity)."""


def metered(value: int) -> float:
    """``value`` as a float, at most :data:`METER_CEILING` either way (never OverflowError)."""
    if value > METER_CEILING:
        return METER_CEILING
    if value < -METER_CEILING:
        return -METER_CEILING
    return float(value)


@dataclass
class Integral:
    """Allocated and available amounts of one group, integrated over time (in seconds)."""

    allocated: int = 0
    total: int = 0
    since: float = 0.0
    allocated_seconds: float = 0.0
    total_seconds: float = 0.0

    def advance(self, now: float) -> None:
        if now > self.since:
            span = now - self.since
            self.allocated_seconds += metered(self.allocated) * span
            self.total_seconds += metered(self.total) * span
            self.since = now


@dataclass
class Sample:
    """The devices at one moment."""

    allocated: dict[str, int] = field(default_factory=dict)
    """Devices holding an allocation, per DeviceClass selecting them."""
    capacity: dict[str, int] = field(default_factory=dict)
    """Capacity allocated (consumed on shared devices, whole on exclusive ones), per name."""
    free_devices: int = 0
    stranded_devices: int = 0
    stranded_capacity: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class _Option:
    """One (sub)request a pending pod makes: what selects, consumes and how many."""

    chain: SelectorChain
    capacity: Mapping[str, Any] | None
    count: int
    all: bool


class _Kind:
    __slots__ = ("capacity_names", "classes", "consumption", "full", "matches", "rep")

    def __init__(self, rep: DeviceInfo, classes: tuple[str, ...], matches: frozenset[int]) -> None:
        self.rep = rep
        self.classes = classes
        self.matches = matches
        self.capacity_names = tuple(rep.capacity)
        self.full: tuple[int, ...] = tuple(c.number for c in rep.capacity.values())
        self.consumption: dict[int, tuple[int, ...] | None] = {}


class _Device:
    __slots__ = ("counted", "groups", "info", "kind", "pool", "state")

    def __init__(self, info: DeviceInfo, groups: tuple[tuple[str, str], ...], pool: _Pool) -> None:
        self.info = info
        self.groups = groups
        self.pool = pool
        self.kind: _Kind | None = None
        self.state: FreeState = ()
        self.counted = False
        """Whether some request of the shapes given to ``count_shares`` could use it."""


class _Pool:
    """One pool's devices, counted by kind and free state, and its free devices and capacity
    by the mask of the requests that could use them."""

    __slots__ = ("contributions", "counts", "devices")

    def __init__(self) -> None:
        self.devices: list[_Device] = []
        self.counts: dict[tuple[_Kind, FreeState], int] = {}
        self.contributions: dict[int, tuple[int, dict[str, int]]] = {}

    def count(self, kind: _Kind, state: FreeState, delta: int) -> None:
        key = (kind, state)
        value = self.counts.get(key, 0) + delta
        if value:
            self.counts[key] = value
        else:
            self.counts.pop(key, None)


class DeviceMeter:
    """Follows one scheduler's allocator; :meth:`update` then :meth:`sample` at each moment."""

    def __init__(self, dra: DynamicResources, model_attributes: Iterable[str] = MODEL_ATTRIBUTES):
        self.dra = dra
        self.model_attributes = tuple(model_attributes)
        self.groups: dict[tuple[str, str], Integral] = {}
        """("class"|"pool"|"model", name) -> devices allocated and available over time."""
        self.capacity_groups: dict[tuple[str, str], Integral] = {}
        """(class, capacity name) -> capacity allocated and available over time."""
        self.capacity_taken: dict[str, int] = {}
        self._class_groups: dict[str, Integral] = {}
        """The class entries of ``groups`` (a sample reads them; pools are many)."""
        self._allocator: Allocator | None = None
        self._devices: dict[str, _Device] = {}
        self._pools: dict[tuple[str, str], _Pool] = {}
        self._kinds: dict[tuple[Any, ...], _Kind] = {}
        self._offset = 0
        self._options: dict[tuple[tuple[int | str, ...], str, int, bool], int] = {}
        """(selector chain id, capacity request, count, all) -> option id."""
        self._option_data: list[_Option] = []
        self._shapes: dict[tuple[str, ...], frozenset[int]] = {}
        self._now = 0.0
        self._changed: set[_Pool] = set()
        self._masks: dict[int, list[Any]] = {}
        """Request mask -> [free devices, free capacity per name] over all pools."""
        self.free = 0
        """Devices without any allocation."""
        self._counting = False
        self._share_shapes: tuple[tuple[str, ...], ...] | None = None
        self._slot_options: dict[tuple[str, ...], list[list[int]]] = {}
        """Shape -> per request of its claims, its option ids (subrequests in order)."""
        self.counted_devices = 0
        """Devices some request of the ``count_shares`` shapes could use."""
        self.counted_in_use = 0
        """Of those, the ones holding any allocation."""
        self.allocated_share = 0
        """Of those, the allocated share (in 10^-9 of a device): see the module's docstring."""

    # --- following the allocator ------------------------------------------------------------

    def update(self, now: float) -> None:
        """Catch up with the allocator's state at ``now`` (seconds from the start)."""
        self._now = now
        allocator = self.dra.ensure_allocator()
        if allocator is not self._allocator:
            self._rebuild(allocator, now)
            return
        changes = allocator.state.changes
        if self._offset == len(changes):
            return
        keys = set(changes[self._offset :])
        self._offset = len(changes)
        for key in keys:
            pool = self._pools.get(key)
            if pool is None:
                continue
            for device in pool.devices:
                self._refresh(device, now)

    def _rebuild(self, allocator: Allocator, now: float) -> None:
        for integral in [*self.groups.values(), *self.capacity_groups.values()]:
            integral.advance(now)
            integral.allocated = integral.total = 0
        self.capacity_taken = {}
        self._masks = {}
        self.free = 0
        self._allocator = allocator
        self._offset = len(allocator.state.changes)
        self._options.clear()
        self._option_data.clear()
        self._shapes.clear()
        self._slot_options.clear()
        self.counted_devices = self.counted_in_use = self.allocated_share = 0
        inventory = allocator.inventory
        chains = [
            (name, SelectorChain([s for s in cls.selectors if s], [], allocator.features))
            for name, cls in sorted(inventory.classes.items())
        ]
        newest: dict[tuple[str, str], int] = {}
        for s in inventory.slices:
            key = (s.driver, s.pool)
            newest[key] = max(newest.get(key, s.generation), s.generation)
        self._devices = {}
        self._pools = {}
        self._kinds = {}
        self._changed = set()
        for s in inventory.slices:
            if s.generation != newest[(s.driver, s.pool)]:
                continue
            for info in s.devices:
                classes = tuple(name for name, chain in chains if chain.evaluate(info) is True)
                groups = [("class", c) for c in classes]
                groups.append(("pool", f"{s.driver}/{s.pool}"))
                model = self._model(info)
                if model is not None:
                    groups.append(("model", model))
                pool = self._pools.get((s.driver, s.pool))
                if pool is None:
                    pool = self._pools[(s.driver, s.pool)] = _Pool()
                device = _Device(info, tuple(groups), pool)
                self._devices[info.key] = device
                pool.devices.append(device)
                self._changed.add(pool)
                for group in device.groups:
                    self._integral(group, now).total += 1
                for group in groups[: len(classes)]:
                    for name, cap in info.capacity.items():
                        self._capacity_integral(group[1], name, now).total += cap.number
                device.kind = self._kind_of(info, classes)
                device.state = device.kind.full
                pool.count(device.kind, device.state, 1)
                self.free += 1
                self._refresh(device, now)
        if self._counting:
            self._mark_counted()

    def _model(self, info: DeviceInfo) -> str | None:
        for wanted in self.model_attributes:
            for name, value in info.attrs.items():
                if name.rpartition("/")[2] == wanted and isinstance(value, Mapping):
                    for key in ("string", "version", "int", "bool"):
                        if key in value:
                            return str(value[key])
        return None

    def _kind_of(self, info: DeviceInfo, classes: tuple[str, ...]) -> _Kind:
        matches = frozenset(
            option
            for option, data in enumerate(self._option_data)
            if data.chain.evaluate(info) is True
        )
        capacity = repr(sorted((k, repr(v)) for k, v in (info.raw.get("capacity") or {}).items()))
        key = (info.allow_multiple, capacity, classes, matches)
        kind = self._kinds.get(key)
        if kind is None:
            kind = self._kinds[key] = _Kind(info, classes, matches)
        return kind

    def _integral(self, group: tuple[str, str], now: float) -> Integral:
        integral = self.groups.get(group)
        if integral is None:
            integral = self.groups[group] = Integral(since=now)
            if group[0] == "class":
                self._class_groups[group[1]] = integral
        return integral

    def _capacity_integral(self, device_class: str, name: str, now: float) -> Integral:
        key = (device_class, name)
        integral = self.capacity_groups.get(key)
        if integral is None:
            integral = self.capacity_groups[key] = Integral(since=now)
        return integral

    def _refresh(self, device: _Device, now: float) -> None:
        """Read the device's state from the allocator and move it between the counts."""
        assert self._allocator is not None and device.kind is not None
        state = self._allocator.state
        info = device.info
        kind = device.kind
        shared = state.shared.get(info.key)
        new: FreeState
        if info.key in state.in_use:
            new = None
        elif shared is not None:
            new = tuple(
                total - shared.get(name, 0)
                for name, total in zip(kind.capacity_names, kind.full, strict=True)
            )
        else:
            new = kind.full
        old = device.state
        if new == old:
            return
        if device.counted:
            self.allocated_share += _share(kind, new) - _share(kind, old)
            self.counted_in_use += (new != kind.full) - (old != kind.full)
        device.pool.count(kind, old, -1)
        device.pool.count(kind, new, 1)
        self._changed.add(device.pool)
        device.state = new
        was_used, now_used = old != kind.full, new != kind.full
        if was_used != now_used:
            self.free += 1 if was_used else -1
            for group in device.groups:
                integral = self._integral(group, now)
                integral.advance(now)
                integral.allocated += 1 if now_used else -1
        before, after = self._taken(kind, old), self._taken(kind, new)
        for i, name in enumerate(kind.capacity_names):
            delta = after[i] - before[i]
            if not delta:
                continue
            self.capacity_taken[name] = self.capacity_taken.get(name, 0) + delta
            for device_class in kind.classes:
                integral = self._capacity_integral(device_class, name, now)
                integral.advance(now)
                integral.allocated += delta

    @staticmethod
    def _taken(kind: _Kind, state: FreeState) -> tuple[int, ...]:
        if state is None:
            return kind.full
        return tuple(total - free for total, free in zip(kind.full, state, strict=True))

    # --- the requests of pending pods ---------------------------------------------------------

    def options(self, shape: tuple[str, ...]) -> frozenset[int]:
        """The (sub)request options of a pod shape (its claims' specs as JSON), numbered."""
        found = self._shapes.get(shape)
        if found is not None:
            return found
        result = frozenset(option for slot in self._slots(shape) for option in slot)
        self._shapes[shape] = result
        return result

    def _slots(self, shape: tuple[str, ...]) -> list[list[int]]:
        """Per request of the shape's claims, the ids of its options (subrequests in order;
        requests that can never be allocated have none); new options regroup the kinds."""
        found = self._slot_options.get(shape)
        if found is not None:
            return found
        assert self._allocator is not None
        import json

        claims = [
            apply_defaults(
                {
                    "apiVersion": "resource.k8s.io/v1",
                    "kind": "ResourceClaim",
                    "metadata": {"name": f"shape-{i}", "namespace": "default"},
                    "spec": json.loads(spec),
                }
            )
            for i, spec in enumerate(shape)
        ]
        slots: list[list[int]] = []
        new = False
        for prepared in self._allocator.prepare(claims):
            for slot in prepared.slots:
                ids: list[int] = []
                for data in slot.options:
                    if data.error is not None or data.chain is None:
                        continue
                    capacity = repr(sorted((data.capacity or {}).items()))
                    key = (data.chain.chain_id, capacity, data.count, data.mode_all)
                    option = self._options.get(key)
                    if option is None:
                        option = self._options[key] = len(self._option_data)
                        self._option_data.append(
                            _Option(data.chain, data.capacity, max(data.count, 1), data.mode_all)
                        )
                        new = True
                    ids.append(option)
                slots.append(ids)
        if new:
            self._regroup()
        self._slot_options[shape] = slots
        return slots

    # --- shares of the devices a workload can use ----------------------------------------------

    def count_shares(self, shapes: Iterable[tuple[str, ...]] | None = None) -> None:
        """From now on, count the devices some request of ``shapes`` could ever use (every
        device where ``shapes`` is None): ``counted_devices``, those of them in use
        (``counted_in_use``) and their allocated share (``allocated_share``, in 10^-9 of a
        device)."""
        self._counting = True
        self._share_shapes = None if shapes is None else tuple(dict.fromkeys(shapes))
        self.update(self._now)
        self._mark_counted()

    def _mark_counted(self) -> None:
        wanted: set[int] | None = None
        if self._share_shapes is not None:
            wanted = set()
            for shape in self._share_shapes:
                wanted |= self.options(shape)
        self.counted_devices = self.counted_in_use = self.allocated_share = 0
        for device in self._devices.values():
            assert device.kind is not None
            device.counted = wanted is None or not wanted.isdisjoint(device.kind.matches)
            if device.counted:
                self.counted_devices += 1
                self.counted_in_use += device.state != device.kind.full
                self.allocated_share += _share(device.kind, device.state)

    def demand(self, shape: tuple[str, ...]) -> int:
        """The device-equivalents the claims of a pod shape ask for, in 10^-9 of a device: per
        request, its count (1 for ``allocationMode: All``, whose count only allocation knows)
        times the share of a device it takes (for ``firstAvailable``, its first subrequest):
        1 for a device taken whole, else the largest fraction of a capacity it consumes, on the
        device that could serve it with the smallest such share (1 where none could)."""
        self.update(self._now)
        slots = self._slots(shape)
        total = 0
        for slot in slots:
            if not slot:
                continue
            option = slot[0]
            data = self._option_data[option]
            shares = [
                share
                for kind in self._kinds.values()
                if option in kind.matches
                and (share := self._request_share(kind, option)) is not None
            ]
            total += (1 if data.all else data.count) * min(shares, default=NANO)
        return total

    def consumed(self, shape: tuple[str, ...]) -> set[str]:
        """The capacity names some request of the shape consumes a part of on a shared device
        it could use (a capacity whose request policy defaults to 0, never asked for, is not
        one: its free amount says nothing about fragmentation)."""
        names: set[str] = set()
        for slot in self._slots(shape):
            for option in slot:
                for kind in self._kinds.values():
                    if option not in kind.matches or not kind.rep.allow_multiple:
                        continue
                    if self._request_share(kind, option) is None:
                        continue
                    need = kind.consumption[option] or ()
                    names.update(n for n, a in zip(kind.capacity_names, need, strict=True) if a)
        return names

    def _consumption(self, kind: _Kind, option: int) -> tuple[int, ...] | None:
        """What ``option`` consumes of each capacity of a device of ``kind`` (None: it can
        never fit one), worked out once per kind and option."""
        if option not in kind.consumption:
            consumed = static_consumption(kind.rep, self._option_data[option].capacity)
            kind.consumption[option] = (
                None if consumed is None else tuple(amount for _, amount, _ in consumed)
            )
        return kind.consumption[option]

    def _request_share(self, kind: _Kind, option: int) -> int | None:
        """The share of a device of ``kind`` that ``option`` takes; None when it never can."""
        if not kind.rep.allow_multiple:
            return NANO
        need = self._consumption(kind, option)
        if need is None:
            return None
        return max(
            (n * NANO // total for n, total in zip(need, kind.full, strict=True) if total > 0),
            default=NANO,
        )

    def _regroup(self) -> None:
        """New options: the kinds are drawn again from what matches them."""
        self._kinds = {}
        for pool in self._pools.values():
            pool.counts = {}
        for device in self._devices.values():
            assert device.kind is not None
            device.kind = self._kind_of(device.info, device.kind.classes)
            device.pool.count(device.kind, device.state, 1)
        self._changed = set(self._pools.values())  # every pool is judged again

    # --- one moment -----------------------------------------------------------------------------

    def sample(self, pending_shapes: Iterable[tuple[str, ...]]) -> Sample:
        """The devices now; stranded against the requests of ``pending_shapes`` (the claims
        of the pods that wait for devices; with none, free devices are idle, not stranded)."""
        out = Sample()
        for name, integral in self._class_groups.items():
            out.allocated[name] = integral.allocated
        out.capacity = {n: v for n, v in self.capacity_taken.items() if v}
        out.free_devices = self.free
        pending = 0
        if self._allocator is not None:
            for shape in pending_shapes:
                for option in self.options(shape):
                    pending |= 1 << option
        for pool in self._changed:
            self._judge(pool)
        self._changed = set()
        if not pending:
            return out
        capacity: dict[str, int] = {}
        for mask, (devices, free) in self._masks.items():
            if mask & pending:
                continue
            out.stranded_devices += devices
            for name, value in free.items():
                capacity[name] = capacity.get(name, 0) + value
        out.stranded_capacity = {n: v for n, v in capacity.items() if v}
        return out

    def _judge(self, pool: _Pool) -> None:
        """Count the pool's free devices and capacity again by the requests that could use
        them, and update the totals."""
        masks = self._masks
        for mask, (devices, free) in pool.contributions.items():
            total = masks[mask]
            total[0] -= devices
            for name, value in free.items():
                total[1][name] -= value
        usable: list[int] = []
        for option, data in enumerate(self._option_data):
            fitting = matching = 0
            for (kind, state), count in pool.counts.items():
                if option not in kind.matches:
                    continue
                matching += count
                if state is not None and self._fits(kind, option, state):
                    fitting += count
            need = matching if data.all else data.count
            if fitting >= need > 0:
                usable.append(option)
        contributions: dict[int, tuple[int, dict[str, int]]] = {}
        for (kind, state), count in pool.counts.items():
            if state is None:
                continue
            mask = 0
            for option in usable:
                if option in kind.matches and self._fits(kind, option, state):
                    mask |= 1 << option
            devices, free = contributions.get(mask, (0, {}))
            if state == kind.full:
                devices += count
            for name, value in zip(kind.capacity_names, state, strict=True):
                if value:
                    free[name] = free.get(name, 0) + value * count
            contributions[mask] = (devices, free)
        pool.contributions = contributions
        for mask, (devices, free) in contributions.items():
            total = masks.setdefault(mask, [0, {}])
            total[0] += devices
            for name, value in free.items():
                total[1][name] = total[1].get(name, 0) + value

    def _fits(self, kind: _Kind, option: int, state: tuple[int, ...]) -> bool:
        need = self._consumption(kind, option)
        if need is None:
            return False
        if not kind.rep.allow_multiple and state != kind.full:
            return False
        return all(n <= f for n, f in zip(need, state, strict=True))

    def capacity_totals(self) -> tuple[dict[str, int], dict[str, int]]:
        """Per capacity name, the capacity of the counted devices (``count_shares``) and
        what is allocated of it, in the allocator's units."""
        total: dict[str, int] = {}
        taken: dict[str, int] = {}
        for device in self._devices.values():
            if not device.counted:
                continue
            kind = device.kind
            assert kind is not None
            used = self._taken(kind, device.state)
            for name, value, amount in zip(kind.capacity_names, kind.full, used, strict=True):
                total[name] = total.get(name, 0) + value
                taken[name] = taken.get(name, 0) + amount
        return total, taken

    def finish(self, now: float) -> None:
        """Integrate every group up to ``now`` (the end of the replay)."""
        for integral in [*self.groups.values(), *self.capacity_groups.values()]:
            integral.advance(now)


def _share(kind: _Kind, state: FreeState) -> int:
    """The allocated share of a device of ``kind`` in ``state``, in 10^-9 of a device: 1 when
    taken whole, else the largest fraction consumed of one of its capacities."""
    if state is None:
        return NANO
    return max(
        (
            (total - free) * NANO // total
            for total, free in zip(kind.full, state, strict=True)
            if total > 0
        ),
        default=0,
    )
