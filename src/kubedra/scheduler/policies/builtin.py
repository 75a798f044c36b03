"""The built-in placement policies.

The paper's five baselines and FGD (Weng et al., USENIX ATC '23, and the authors' simulator
hkust-adsl/kubernetes-scheduler-simulator), over DRA devices: where the paper counts GPUs
and milli-GPUs of a node, these count the node's devices as device-equivalents (a device's
free share, 0..1, ``devicestate``), over the devices the pod's requests could use (class,
selectors, taints), or over all the node's devices for a pod without claims. "Max spec"
normalisations use the largest node of the cluster (most cpu, most devices). Each of them
picks devices inside a node as the paper's runs did: best-fit (the least left once taken)
for all but random (a random order) and FGD (the least fragmentation growth).

Beside them, kubedra's earlier options as entries of the same registry: ``first-fit``
(upstream), ``spread`` (devices only), ``most-allocated`` and ``least-allocated`` (a node
score over devices added beside the default plugins, as ``--node-score`` always did).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from typing import Any

from kubedra.allocator.policy import (
    DeviceCandidate,
    DeviceKey,
    device_utilization,
    largest_left,
    node_score,
    smallest_left,
)
from kubedra.scheduler.policies.base import (
    NodeScorer,
    NodeView,
    NodeViews,
    PodView,
    Policy,
    PolicyContext,
    Registry,
)
from kubedra.scheduler.policies.fragmentation import Fragmentation, NodeClasses
from kubedra.scheduler.policies.workload import pod_claim_specs
from kubedra.scheduler.resources import CPU

MAX_SCORE = 100
FGD_SCORE_DIGITS = 9
"""FGD's growth is rounded to this many decimals (of a device-equivalent) before it is scored:
it is the difference of two sums of weighted free shares, and equal growths on nodes of
different fullness differ in the last bits (0.6 - 0.5 against 0.5 - 0.4); unrounded, that
noise, not the tie rule, picked the node (always the emptier one)."""


def _sigmoid(x: float) -> float:
    if x < -700:  # exp would overflow; the score is 0 long before
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


# --- helpers over a node's devices ------------------------------------------------------------


def _relevant(pod: PodView, node: NodeView) -> list[Any]:
    """The node's devices a pod's requests could use (all of them for a pod without any)."""
    devices = node.devices
    if not pod.uses_devices:
        return devices
    return [d for d in devices if d.wanted]


def _max_spec(context: PolicyContext) -> tuple[float, float]:
    """(most cpu, most devices) of one node in the cluster, remembered until nodes come or go."""
    version = context.nodes.order_version
    found = context.cache.get("max-spec")
    if found is not None and found[0] == version:
        return found[1]
    allocator = context.allocator()
    cpu = 0
    devices = 0
    for state in context.nodes.ordered():
        cpu = max(cpu, state.allocatable.get(CPU, 0))
        view = allocator.inventory.node_view(state.info)
        devices = max(devices, sum(len(p.devices) for p in view.pools if not p.invalid))
    spec = (float(cpu or 1), float(devices or 1))
    context.cache["max-spec"] = (version, spec)
    return spec


# --- node scores ------------------------------------------------------------------------------


class BestFit(NodeScorer):
    """The least cpu and devices left on the node once the pod is placed (equal weights, each
    normalised by the largest node): the fullest node that fits wins. Score:
    ``int(100 * (1 - left))``, the framework's integer as the authors' plugin truncates it."""

    plugin = "BestFitScore"
    ties = "name"

    def __init__(self, context: PolicyContext) -> None:
        self.context = context

    def score(self, pod: PodView, node: NodeView) -> float:
        max_cpu, max_devices = _max_spec(self.context)
        cpu_left = node.cpu_free - pod.cpu
        devices_left = sum(d.free_after for d in _relevant(pod, node))
        left = 0.5 * cpu_left / max_cpu + 0.5 * devices_left / max_devices
        # The framework's integer, truncated as the authors' plugin (best_fit_score.go) does.
        return int(MAX_SCORE * (1.0 - left))


class DotProduct(NodeScorer):
    """Tetris' alignment as the paper ran it: the dot product of the node's free (cpu,
    devices) and the pod's request, both normalised by the largest node; the smallest wins.
    Score: ``int(100 * (1 - dot / 2))``, truncated as the authors' plugin does."""

    plugin = "DotProductScore"
    ties = "name"

    def __init__(self, context: PolicyContext) -> None:
        self.context = context

    def score(self, pod: PodView, node: NodeView) -> float:
        max_cpu, max_devices = _max_spec(self.context)
        relevant = _relevant(pod, node)
        devices_free = sum(d.free for d in relevant)
        devices_wanted = sum(d.free - d.free_after for d in relevant)
        dot = (node.cpu_free / max_cpu) * (pod.cpu / max_cpu) + (devices_free / max_devices) * (
            devices_wanted / max_devices
        )
        # The framework's integer, truncated as the authors' plugin (dot_product_score.go) does.
        return int(MAX_SCORE * (1.0 - dot / 2))


class GpuPacking(NodeScorer):
    """Partly used devices first, then free devices on a partly used node, then an idle node
    (the smallest first): keeps whole devices and idle nodes free for large tasks."""

    plugin = "GpuPackingScore"
    ties = "name"

    def score(self, pod: PodView, node: NodeView) -> float:
        if not pod.uses_devices:
            return 0
        relevant = _relevant(pod, node)
        fully_free = sum(1 for d in relevant if d.free >= 1.0)
        if fully_free == len(relevant):
            return max(MAX_SCORE // 3 - fully_free, fully_free)
        used = [d for d in relevant if d.taken]
        whole = sum(1 for d in used if d.free >= 1.0)
        if whole:
            return max(MAX_SCORE // 2 - whole, MAX_SCORE // 3)
        free_percent = sum(int(d.free * 100) for d in used)
        return max(MAX_SCORE - free_percent // 10, MAX_SCORE // 2)


def pod_tag(specs: list[dict[str, Any]]) -> tuple[tuple[str, str, bool], ...] | None:
    """What GPU clustering groups pods by: per device request its class, how many devices
    and whether it asks for a share (a capacity request); None for a pod without requests."""
    out: list[tuple[str, str, bool]] = []
    for spec in specs:
        for request in (spec.get("devices") or {}).get("requests") or []:
            exactly = request.get("exactly")
            if exactly is None:
                exactly = (request.get("firstAvailable") or [{}])[0]
            count = (
                "all" if exactly.get("allocationMode") == "All" else str(exactly.get("count") or 1)
            )
            out.append(
                (str(exactly.get("deviceClassName") or ""), count, bool(exactly.get("capacity")))
            )
    return tuple(sorted(out)) or None


class GpuClustering(NodeScorer):
    """Pods with the same device request (class, count, share or whole) together: a node
    running only such pods first, then one running them among others, then an idle node, then
    one running other kinds; within each, the fuller node."""

    plugin = "GpuClusteringScore"
    ties = "name"

    def __init__(self, context: PolicyContext) -> None:
        self.context = context
        self._pods: dict[str, tuple[str, Any]] = {}
        self._nodes: dict[str, Counter[Any]] = {}

    def pod_added(self, key: str, pod: Mapping[str, Any], node: str) -> None:
        self.pod_removed(key, "")
        tag = pod_tag(pod_claim_specs(pod, self.context.store) or [])
        if tag is None:
            return
        self._pods[key] = (node, tag)
        self._nodes.setdefault(node, Counter())[tag] += 1

    def pod_removed(self, key: str, node: str) -> None:
        found = self._pods.pop(key, None)
        if found is None:
            return
        tags = self._nodes[found[0]]
        tags[found[1]] -= 1
        if not tags[found[1]]:
            del tags[found[1]]

    def score(self, pod: PodView, node: NodeView) -> float:
        tag = pod_tag([c.get("spec") or {} for c in pod.claims])
        if tag is None:
            return 0
        _, max_devices = _max_spec(self.context)
        free = sum(d.free for d in _relevant(pod, node))
        # In integers as the authors' plugin (gpu_clustering_score.go): 25 * (max - free) / max
        # in milli-devices, truncated, so nodes within 4% of a full node's devices tie.
        max_milli = round(max_devices * 1000)
        fullness = (MAX_SCORE // 4) * (max_milli - round(free * 1000)) // max_milli
        tags: Mapping[Any, int] = self._nodes.get(node.name) or {}
        # Bands: only this kind, this kind among others, an idle node, other kinds only.
        band = (3 if len(tags) == 1 else 2) if tags.get(tag) else (0 if tags else 1)
        return band * MAX_SCORE // 4 + fullness


class RandomScore(NodeScorer):
    """A node drawn at random among the feasible ones (seeded)."""

    plugin = "RandomScore"
    cacheable = False

    def __init__(self, context: PolicyContext) -> None:
        self.rng = context.rng

    def score(self, pod: PodView, node: NodeView) -> float:
        return self.rng.random()

    def score_all(self, pod: PodView, nodes: NodeViews) -> list[float]:
        # One draw per node in order, as score() would make them, without the views.
        draw = self.rng.random
        return [draw() for _ in range(len(nodes))]


class DeviceUtilization(NodeScorer):
    """kubedra's DRADeviceUtilization: the share of the node's devices in use (or free) once
    the pod's allocation is added, 0..100, beside the default plugins (weight 1)."""

    plugin = "DRADeviceUtilization"
    replaces_defaults = False

    def __init__(self, context: PolicyContext, mode: str) -> None:
        self.context = context
        self.mode = mode

    def score(self, pod: PodView, node: NodeView) -> float:
        allocator = self.context.dra.allocator
        if allocator is None:
            return 0
        view = allocator.inventory.node_view(node.node.info)
        used, total = device_utilization(
            view.pools, allocator.state.in_use, allocator.state.shared, node.allocations
        )
        return node_score(self.mode, used, total)


# --- FGD ----------------------------------------------------------------------------------------


class FgdModel:
    """The fragmentation measure of one run, rebuilt when the allocator is (shared by FGD's
    node score and device ranking)."""

    def __init__(self, context: PolicyContext) -> None:
        self.context = context
        self._measure: Fragmentation | None = None

    def measure(self) -> Fragmentation | None:
        # Scoring and Filter run after PreFilter built the allocator: its attribute is current.
        allocator = self.context.dra.allocator or self.context.allocator()
        if self._measure is None or self._measure.allocator is not allocator:
            workload = self.context.workload()
            if workload is None:
                return None
            self._measure = Fragmentation(workload, allocator, self.context.static_fits())
        return self._measure


def _fgd_model(context: PolicyContext) -> FgdModel:
    found = context.cache.get("fgd")
    if found is None:
        found = context.cache["fgd"] = FgdModel(context)
    return found


class FgdScore(NodeScorer):
    """Fragmentation Gradient Descent: the node where the workload's expected fragmentation
    grows least once the pod is placed. Score: ``int(100 * sigmoid(-growth))``, the growth in
    device-equivalents, as the authors' plugin scores it (0..100, 50 for no change)."""

    plugin = "FGDScore"
    ties = "name"

    def __init__(self, context: PolicyContext) -> None:
        self.context = context
        self.model = _fgd_model(context)

    def score(self, pod: PodView, node: NodeView) -> float:
        measure = self.model.measure()
        if measure is None:
            return 0.0
        allocator = measure.allocator
        view = allocator.inventory.node_view(node.node.info)
        classes = measure.node(node.name, view, allocator.state)
        cpu, memory = node.cpu_free, node.memory_free
        now = classes.measured.get((cpu, memory))
        if now is None:  # the node as it is: the same for every pod scored on it
            now = measure.measure(measure.fragments(classes.counts), cpu, memory)
            classes.measured[(cpu, memory)] = now
        allocations = node.allocations
        kept = classes.after.get(id(allocations))
        if kept is not None and kept[0] is allocations:
            after = kept[1]
        else:
            after = measure.after(classes, node.results, self.context.amounts)
            classes.after[id(allocations)] = (allocations, after)
        decrease = now - measure.measure(after, cpu - pod.cpu, memory - pod.memory)
        # The authors' plugin (fgd_score.go): int64(sigmoid(decrease / 1000 milli-GPU) * 100),
        # the framework's integer. Decreases closer than about 0.04 of a GPU score alike and
        # tie (the tie rule decides, by name); the paper's figures come from this score.
        return int(MAX_SCORE * _sigmoid(round(decrease, FGD_SCORE_DIGITS)))


class FgdDevices:
    """FGD inside a node: the device whose taking makes the node's device fragmentation grow
    least first (ties: pool order)."""

    def __init__(self, context: PolicyContext) -> None:
        self.model = _fgd_model(context)
        self._search: Any = None
        self._node: NodeClasses | None = None

    def __call__(self, candidate: DeviceCandidate) -> Any:
        measure = self.model.measure()
        if measure is None:
            return 0.0
        return measure.taking(
            self._at(candidate.search, measure), candidate.device, candidate.request
        )

    def orders(self, search: Any, data: Any) -> dict[Any, list[Any]] | None:
        """Orders kept per node state (allocator.policy.Ordering): the keys depend on the
        node's devices and the request's capacity request only. On a node whose devices are
        all alike (one class, every pool usable) every key is equal: pool order."""
        measure = self.model.measure()
        if measure is None:
            return None
        node = self._at(search, measure)
        if (
            data.capacity_id not in node.orders
            and len(node.counts) == 1
            and len(node.classes) == len(node.devices.devices)
            and not any(p.incomplete or p.invalid for p in search.view.pools)
        ):
            node.orders[data.capacity_id] = search.view.pools
        return node.orders

    def _at(self, search: Any, measure: Fragmentation) -> NodeClasses:
        node = self._node
        if search is not self._search or node is None:
            node = measure.node(search.node.name, search.view, search.state)
            self._search, self._node = search, node
        return node


# --- the registry -------------------------------------------------------------------------------


def _best_fit_devices(context: PolicyContext) -> DeviceKey:
    return smallest_left


def _random_devices(context: PolicyContext) -> DeviceKey:
    rng = context.rng
    return lambda candidate: rng.random()


BUILTINS: tuple[Policy, ...] = (
    Policy(
        "first-fit",
        "Upstream's default profile, with devices taken in pool order (the default).",
    ),
    Policy(
        "best-fit",
        "Fills the fullest node that fits (least cpu and devices left) and, inside it, the "
        "device with the least capacity left.",
        BestFit,
        _best_fit_devices,
    ),
    Policy(
        "spread",
        "Devices only: takes the device with the most capacity left (nodes as upstream).",
        devices=lambda context: largest_left,
    ),
    Policy(
        "random",
        "Picks a random feasible node and random fitting devices (seeded).",
        RandomScore,
        _random_devices,
    ),
    Policy(
        "dot-product",
        "Tetris: the node whose free cpu and devices align least with the pod's request "
        "(smallest dot product), best-fit devices.",
        DotProduct,
        _best_fit_devices,
    ),
    Policy(
        "gpu-packing",
        "Partly used devices first, then free devices on a used node, then an idle node: "
        "keeps whole devices and idle nodes free.",
        lambda context: GpuPacking(),
        _best_fit_devices,
    ),
    Policy(
        "gpu-clustering",
        "Puts pods with the same device request (count, share or whole) on the same nodes, "
        "fuller nodes first.",
        GpuClustering,
        _best_fit_devices,
    ),
    Policy(
        "fgd",
        "Fragmentation Gradient Descent: the node and devices where the workload's expected "
        "unusable free device capacity grows least.",
        FgdScore,
        FgdDevices,
    ),
    Policy(
        "most-allocated",
        "Adds DRADeviceUtilization beside the default scores: prefers nodes with most devices "
        "in use (packs).",
        lambda context: DeviceUtilization(context, "most-allocated"),
    ),
    Policy(
        "least-allocated",
        "Adds DRADeviceUtilization beside the default scores: prefers nodes with most devices "
        "free (spreads).",
        lambda context: DeviceUtilization(context, "least-allocated"),
    ),
)


def register_builtins(registry: Registry) -> None:
    for policy in BUILTINS:
        registry.register(policy, replace=True)
