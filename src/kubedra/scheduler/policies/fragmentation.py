"""The fragmentation measure of Fragmentation Gradient Descent (Weng et al., USENIX ATC '23),
over DRA devices.

For a node n and a task shape m, the fragment F_n(m) is the free device capacity on n that m
cannot use, in device-equivalents (a device's free share, 0..1, see ``devicestate``):

* if m cannot run on n at all (its cpu or memory request exceeds what is free, or some
  request of it finds too few devices it can use), every free device share counts;
* otherwise the free shares of the devices no request of m can use count (another model
  than its selectors allow, a share too small for its capacity request, a device partly
  used when m wants whole devices);
* a shape without device requests can use no device, so every free share counts (the
  paper's "all idle GPUs are fragments for CPU tasks").

The node's fragmentation is the expectation over the workload, F_n = sum_m p_m F_n(m), and
FGD places a pod where (and on the devices with which) F grows least. Only devices some
request of some shape could ever use count (a NIC is no GPU fragment).

Counting per request is the paper's test ("enough GPUs with enough left"), applied to each
request of a shape on its own: two requests of one shape competing for the same devices, and
claim constraints (matchAttribute), are not modelled, nor are the counters a taken partition
withdraws from its siblings when devices are ranked (node scores do see them).

Speed: a device's contribution depends only on its static facts (which requests can ever use
it, what they consume) and its allocated state (``NodeDevices.token``). Those pairs are
numbered once ("classes", with the shapes that can use them as a bit mask), a node's devices
become a multiset of classes, and each multiset's per-shape answers are computed once and
kept, so scoring a node costs a dictionary lookup and a sum over the shapes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kubedra.allocator.capacity import Consumption, static_consumption
from kubedra.allocator.claims import RequestData
from kubedra.allocator.engine import Allocator
from kubedra.allocator.inventory import DeviceInfo, NodeView
from kubedra.allocator.quantities import Number
from kubedra.allocator.state import AllocatedState
from kubedra.scheduler.policies.devicestate import (
    AmountParser,
    NodeDevices,
    StaticFits,
    Token,
    shares,
)
from kubedra.scheduler.policies.workload import Workload, WorkloadError

MAX_REMEMBERED = 200_000
"""Device multisets remembered before the memo starts over (bounds memory on long runs)."""

Signature = tuple[tuple[int, int], ...]
"""A node's devices as (class, how many) pairs, sorted."""


class NodeFragments:
    """Per-shape answers for one multiset of device classes."""

    __slots__ = ("devices_only", "fits", "free", "terms", "unusable")

    def __init__(self, free: float, fits: tuple[bool, ...], unusable: tuple[float, ...]) -> None:
        self.free = free
        """Free device-equivalents on the node (devices the workload can use)."""
        self.fits = fits
        """Per shape: whether enough devices can serve each of its requests."""
        self.unusable = unusable
        """Per shape: free device-equivalents none of its requests can use."""
        self.devices_only: float | None = None
        """``Fragmentation.devices_measure`` of these answers, once asked."""
        self.terms: tuple[float, list[tuple[float, float, float, float]]] | None = None
        """``Fragmentation.measure``'s sums, prepared on first use."""


class Fragmentation:
    """The measure for one workload over one allocator's inventory (rebuilt when the
    allocator is: DeviceClasses or slices changed)."""

    def __init__(
        self, workload: Workload, allocator: Allocator, fits: StaticFits | None = None
    ) -> None:
        self.allocator = allocator
        self.features = allocator.features
        self.fits = fits or StaticFits(allocator.features)
        shapes = [shape for shape, _ in workload.shapes]
        self.weights = [weight for _, weight in workload.shapes]
        self.cpu = [shape.cpu for shape in shapes]
        self.memory = [shape.memory for shape in shapes]
        self.options: list[RequestData] = []
        """Every request option of every shape; its index is its bit in the masks."""
        self.need: list[int] = []
        """Devices each option needs (0: allocationMode All, every device it selects)."""
        self.groups: list[list[int]] = []
        """Per shape, per request: the bit mask of its options (one, or its subrequests)."""
        self.shape_mask: list[int] = []
        for index, shape in enumerate(shapes):
            claims = [
                {"metadata": {"name": f"shape-{index}-{i}", "namespace": ""}, "spec": spec}
                for i, spec in enumerate(shape.specs)
            ]
            try:
                prepared = allocator.prepare(claims) if claims else []
            except ValueError as err:  # InputError, QuantityError: a shape given by hand
                raise WorkloadError(f"task shape {index} ({shape}): {err}") from None
            groups: list[int] = []
            for claim in prepared:
                for slot in claim.slots:
                    mask = 0
                    for option in slot.options:
                        mask |= 1 << len(self.options)
                        self.options.append(option)
                        self.need.append(0 if option.mode_all else max(option.count, 1))
                    groups.append(mask)
            self.groups.append(groups)
            self.shape_mask.append(_union(groups))
        self._profiles: dict[str, int] = {}
        self._by_content: dict[int, int] = {}
        self._profile_facts: list[tuple[int, tuple[Consumption | None, ...]]] = []
        self._profile_ids: dict[tuple[Any, ...], int] = {}
        self._classes: dict[tuple[int, Token], int] = {}
        self._class_free: list[float] = []
        self._class_mask: list[int] = []
        self._class_static: list[int] = []
        self._nodes: dict[Signature, NodeFragments] = {}
        self._node_states: dict[str, tuple[Any, NodeClasses]] = {}
        self._taken: dict[tuple[int, int], int] = {}
        """(class, capacity request) -> the device's class once the request takes it."""
        self._after: dict[tuple[int, Any], int] = {}
        """(class, what an allocation result consumed) -> the device's class after."""

    # --- devices --------------------------------------------------------------------------

    def profile(self, device: DeviceInfo) -> int:
        """The number of the device's static facts (-1: no option can ever use it)."""
        found = self._profiles.get(device.key)
        if found is None:
            content = self.fits.content(device)  # devices published alike answer alike
            found = self._by_content.get(content)
            if found is None:
                found = self._new_profile(device)
                self._by_content[content] = found
            self._profiles[device.key] = found
        return found

    def _new_profile(self, device: DeviceInfo) -> int:
        fits = tuple(self.fits.fit(o, device) for o in self.options)
        mask = 0
        for bit, fit in enumerate(fits):
            if fit is not None:
                mask |= 1 << bit
        if not mask:
            return -1
        capacity = tuple((name, cap.number) for name, cap in device.capacity.items())
        facts = (mask, fits, device.allow_multiple, capacity)
        found = self._profile_ids.get(facts)
        if found is None:
            found = len(self._profile_facts)
            self._profile_ids[facts] = found
            self._profile_facts.append((mask, fits))
        return found

    def device_class(self, devices: NodeDevices, device: DeviceInfo, profile: int) -> int:
        """The class of ``device`` (with static facts ``profile``) in the state ``devices``."""
        token = devices.token(device)
        key = (profile, token)
        found = self._classes.get(key)
        if found is None:
            mask, fits = self._profile_facts[profile]
            usable = 0
            for bit, consumption in enumerate(fits):
                if consumption is not None and devices.usable(device, consumption):
                    usable |= 1 << bit
            found = len(self._class_free)
            self._classes[key] = found
            self._class_free.append(devices.free(device))
            self._class_mask.append(usable)
            self._class_static.append(mask)
        return found

    # --- nodes ----------------------------------------------------------------------------

    def node(self, name: str, view: NodeView, state: AllocatedState) -> NodeClasses:
        """The node's devices in the current allocated state, remembered until one of its
        pools changes."""
        keys = view.pool_keys
        pool_version = state.pool_version
        versions: Any = (
            pool_version.get(keys[0], 0)
            if len(keys) == 1
            else tuple(pool_version.get(key, 0) for key in keys)
        )
        found = self._node_states.get(name)
        if found is not None and found[0] == versions:
            return found[1]
        devices = NodeDevices(view, state, self.features)
        classes: dict[str, tuple[DeviceInfo, int, int]] = {}
        counts: dict[int, int] = {}
        counters = False
        for device in devices.devices:
            profile = self.profile(device)
            if profile < 0:
                continue
            counters = counters or bool(device.counter_use)
            cls = self.device_class(devices, device, profile)
            classes[device.key] = (device, profile, cls)
            counts[cls] = counts.get(cls, 0) + 1
        node = NodeClasses(view, devices, classes, counts, counters)
        self._node_states[name] = (versions, node)
        return node

    def taking(self, node: NodeClasses, device: DeviceInfo, request: RequestData) -> float:
        """``devices_measure`` of the node once ``request`` takes ``device`` (whole, or the
        share it asks for); a device no shape can use changes nothing. Remembered per device
        class and capacity request while the node's state lasts (devices alike in facts and
        state give the same answer)."""
        found = node.classes.get(device.key)
        if found is None:
            return self.devices_measure(self.fragments(node.counts))
        _, profile, before = found
        key = (before, request.capacity_id)
        value = node.taking.get(key)
        if value is None:
            after = self._taken.get(key)
            if after is None:
                consumption: Consumption = ()
                if shares(device, self.features):
                    consumption = static_consumption(device, request.capacity) or ()
                taken = node.devices.taking(device, consumption)
                after = self._taken[key] = self.device_class(taken, device, profile)
            value = self.devices_measure(self.fragments(_moved(node.counts, ((before, after),))))
            node.taking[key] = value
        return value

    def after(
        self, node: NodeClasses, results: Iterable[Mapping[str, Any]], amounts: AmountParser
    ) -> NodeFragments:
        """The node's fragments once allocation ``results`` are added."""
        results = list(results)
        if not results:
            return self.fragments(node.counts)
        if node.counters:  # partitions withdraw counters from their siblings: redo the node
            devices = NodeDevices(node.view, node.devices.state, self.features, results, amounts)
            counts: dict[int, int] = {}
            for device, profile, _ in node.classes.values():
                cls = self.device_class(devices, device, profile)
                counts[cls] = counts.get(cls, 0) + 1
            return self.fragments(counts)
        # What each result takes of which device (a device can serve several requests).
        taken: dict[str, dict[str, Number] | None] = {}
        for result in results:
            if result.get("adminAccess"):
                continue
            key = f"{result.get('driver') or ''}/{result.get('pool') or ''}/{result.get('device')}"
            if key not in node.classes:
                continue
            if self.features.consumable_capacity and result.get("shareID"):
                consumed = taken.get(key) or {}
                for name, value in (result.get("consumedCapacity") or {}).items():
                    amount = amounts(value, f"consumedCapacity[{name}] of device {key}")
                    consumed[name] = consumed.get(name, 0) + amount
                taken[key] = consumed
            else:
                taken[key] = None
        moves = []
        for key, took in taken.items():
            device, profile, before = node.classes[key]
            what = None if took is None else tuple(sorted(took.items()))
            after = self._after.get((before, what))
            if after is None:
                share: Consumption = tuple((n, a, None) for n, a in what or ())  # type: ignore[misc]
                after = self.device_class(node.devices.taking(device, share), device, profile)
                self._after[(before, what)] = after
            moves.append((before, after))
        return self.fragments(_moved(node.counts, moves))

    def fragments(self, counts: Mapping[int, int]) -> NodeFragments:
        """Per-shape answers for a node whose devices are ``counts`` (class -> how many)."""
        signature: Signature = tuple(sorted((c, n) for c, n in counts.items() if n))
        found = self._nodes.get(signature)
        if found is None:
            if len(self._nodes) >= MAX_REMEMBERED:
                self._nodes.clear()
            found = self._compute(signature)
            self._nodes[signature] = found
        return found

    def _compute(self, signature: Signature) -> NodeFragments:
        free_of = self._class_free
        mask_of = self._class_mask
        members = [(free_of[c] * n, mask_of[c], n, self._class_static[c]) for c, n in signature]
        total = sum(m[0] for m in members)
        counts: dict[int, int] = {}
        fits: list[bool] = []
        unusable: list[float] = []
        need = self.need
        for groups, shape_mask in zip(self.groups, self.shape_mask, strict=True):
            if not shape_mask:
                fits.append(True)
                unusable.append(total)
                continue
            unusable.append(sum(f for f, mask, _, _ in members if not mask & shape_mask))
            ok = True
            for group in groups:
                ok_group = False
                bits = group
                while bits:
                    low = bits & -bits
                    bit = low.bit_length() - 1
                    bits ^= low
                    count = counts.get(bit)
                    if count is None:
                        count = sum(n for _, mask, n, _ in members if mask & low)
                        counts[bit] = count
                    wanted = need[bit]
                    if wanted == 0:  # allocationMode All: every device it selects, at least one
                        wanted = max(1, sum(n for _, _, n, static in members if static & low))
                    if count >= wanted:
                        ok_group = True
                        break
                if not ok_group:
                    ok = False
                    break
            fits.append(ok)
        return NodeFragments(total, tuple(fits), tuple(unusable))

    def measure(self, fragments: NodeFragments, cpu_free: float, memory_free: float) -> float:
        """F_n: the expected free device-equivalents the workload's shapes cannot use, for a
        node with these devices and this much free cpu (millicores) and memory (bytes)."""
        terms = fragments.terms
        if terms is None:
            # Shapes whose devices do not fit count every free share whatever the cpu: summed
            # once; the others count their unusable share, or every free one without cpu.
            total = fragments.free
            fixed = 0.0
            varying: list[tuple[float, float, float, float]] = []
            for weight, cpu, memory, fits, unusable in zip(
                self.weights,
                self.cpu,
                self.memory,
                fragments.fits,
                fragments.unusable,
                strict=True,
            ):
                if fits:
                    varying.append((cpu, memory, weight * unusable, weight * total))
                else:
                    fixed += weight * total
            terms = fragments.terms = (fixed, varying)
        fixed, varying = terms
        out = fixed
        for cpu_wanted, memory_wanted, usable_or_not, everything in varying:
            fits_here = cpu_wanted <= cpu_free and memory_wanted <= memory_free
            out += usable_or_not if fits_here else everything
        return out

    def devices_measure(self, fragments: NodeFragments) -> float:
        """F_n counting devices only (every shape's cpu and memory taken to fit): how the
        devices chosen inside one node compare, whatever lands on the node besides."""
        if fragments.devices_only is None:
            total = fragments.free
            fragments.devices_only = sum(
                weight * (unusable if fits else total)
                for weight, fits, unusable in zip(
                    self.weights, fragments.fits, fragments.unusable, strict=True
                )
            )
        return fragments.devices_only


class NodeClasses:
    """A node's devices that some shape can use, with their classes, in one state."""

    __slots__ = (
        "after",
        "classes",
        "counters",
        "counts",
        "devices",
        "measured",
        "orders",
        "taking",
        "view",
    )

    def __init__(
        self,
        view: NodeView,
        devices: NodeDevices,
        classes: dict[str, tuple[DeviceInfo, int, int]],
        counts: dict[int, int],
        counters: bool,
    ) -> None:
        self.view = view
        self.devices = devices
        self.classes = classes
        """Device key -> (device, static facts, class)."""
        self.counts = counts
        """Class -> how many devices."""
        self.counters = counters
        """Whether a device consumes counters (partitionable devices)."""
        self.taking: dict[tuple[int, int], float] = {}
        """(device class, capacity request) -> ``Fragmentation.taking``'s answer."""
        self.measured: dict[tuple[float, float], float] = {}
        """(free cpu, free memory) -> F_n of the node as it is."""
        self.after: dict[int, tuple[Any, NodeFragments]] = {}
        """id of an allocation list -> (that list, the fragments once it is added): the
        scheduler reuses a Filter's allocations while the node's pools stay as they are."""
        self.orders: dict[Any, list[Any]] = {}
        """FGD's device orders on this node, by capacity request (allocator.policy)."""


def _moved(counts: Mapping[int, int], moves: Iterable[tuple[int, int]]) -> dict[int, int]:
    """``counts`` with one device moved from class ``before`` to ``after`` per move."""
    out = dict(counts)
    for before, after in moves:
        out[before] -= 1
        out[after] = out.get(after, 0) + 1
    return out


def _union(masks: Sequence[int]) -> int:
    out = 0
    for mask in masks:
        out |= mask
    return out
