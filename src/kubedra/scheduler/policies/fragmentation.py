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

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from kubedra.allocator.capacity import Consumption
from kubedra.allocator.claims import RequestData
from kubedra.allocator.engine import Allocator
from kubedra.allocator.inventory import DeviceInfo
from kubedra.scheduler.policies.devicestate import NodeDevices, Token, static_fit
from kubedra.scheduler.policies.workload import Workload

MAX_REMEMBERED = 200_000
"""Device multisets remembered before the memo starts over (bounds memory on long runs)."""

Signature = tuple[tuple[int, int], ...]
"""A node's devices as (class, how many) pairs, sorted."""


class NodeFragments:
    """Per-shape answers for one multiset of device classes."""

    __slots__ = ("fits", "free", "unusable")

    def __init__(self, free: float, fits: tuple[bool, ...], unusable: tuple[float, ...]) -> None:
        self.free = free
        """Free device-equivalents on the node (devices the workload can use)."""
        self.fits = fits
        """Per shape: whether enough devices can serve each of its requests."""
        self.unusable = unusable
        """Per shape: free device-equivalents none of its requests can use."""


class Fragmentation:
    """The measure for one workload over one allocator's inventory (rebuilt when the
    allocator is: DeviceClasses or slices changed)."""

    def __init__(self, workload: Workload, allocator: Allocator) -> None:
        self.allocator = allocator
        self.features = allocator.features
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
            prepared = allocator.prepare(claims) if claims else []
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
        self._profile_facts: list[tuple[int, tuple[Consumption | None, ...]]] = []
        self._profile_ids: dict[tuple[Any, ...], int] = {}
        self._classes: dict[tuple[int, Token], int] = {}
        self._class_free: list[float] = []
        self._class_mask: list[int] = []
        self._class_static: list[int] = []
        self._nodes: dict[Signature, NodeFragments] = {}

    # --- devices --------------------------------------------------------------------------

    def profile(self, device: DeviceInfo) -> int:
        """The number of the device's static facts (-1: no option can ever use it)."""
        found = self._profiles.get(device.key)
        if found is None:
            fits = tuple(static_fit(o, device, self.features) for o in self.options)
            mask = 0
            for bit, fit in enumerate(fits):
                if fit is not None:
                    mask |= 1 << bit
            if not mask:
                found = -1
            else:
                capacity = tuple((name, cap.number) for name, cap in device.capacity.items())
                facts = (mask, fits, device.allow_multiple, capacity)
                found = self._profile_ids.get(facts)
                if found is None:
                    found = len(self._profile_facts)
                    self._profile_ids[facts] = found
                    self._profile_facts.append((mask, fits))
            self._profiles[device.key] = found
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

    def classes(self, devices: NodeDevices) -> Counter[int]:
        """The node's devices the workload can use, as a multiset of classes."""
        out: Counter[int] = Counter()
        for device in devices.devices:
            profile = self.profile(device)
            if profile >= 0:
                out[self.device_class(devices, device, profile)] += 1
        return out

    # --- nodes ----------------------------------------------------------------------------

    def fragments(self, classes: Counter[int] | Iterable[tuple[int, int]]) -> NodeFragments:
        """Per-shape answers for a node whose devices are ``classes``."""
        items = classes.items() if isinstance(classes, Counter) else classes
        signature: Signature = tuple(sorted((c, n) for c, n in items if n))
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
        total = fragments.free
        out = 0.0
        for weight, cpu, memory, fits, unusable in zip(
            self.weights, self.cpu, self.memory, fragments.fits, fragments.unusable, strict=True
        ):
            if fits and cpu <= cpu_free and memory <= memory_free:
                out += weight * unusable
            else:
                out += weight * total
        return out

    def devices_measure(self, fragments: NodeFragments) -> float:
        """F_n counting devices only (every shape's cpu and memory taken to fit): how the
        devices chosen inside one node compare, whatever lands on the node besides."""
        total = fragments.free
        return sum(
            weight * (unusable if fits else total)
            for weight, fits, unusable in zip(
                self.weights, fragments.fits, fragments.unusable, strict=True
            )
        )


def _union(masks: Sequence[int]) -> int:
    out = 0
    for mask in masks:
        out |= mask
    return out
