"""Placement policies: what one is, what it sees, and the registry that names them.

A ``Policy`` has up to two parts, both opt-in:

* a **node score** (``NodeScorer``): a Score plugin. By default it *replaces* the default
  profile's scores, as the paper's simulator profile does (only the policy's Score plugin is
  enabled and every feasible node is scored); ``replaces_defaults = False`` adds it beside
  the default plugins with its ``weight`` instead (as ``--node-score`` always did);
* a **device ranking** (``DeviceKey``, ``kubedra.allocator.policy``): which valid devices the
  allocator tries first inside a node. It only reorders candidates: every upstream check
  still runs, so a pod fits a node exactly when it fits with first-fit.

Policies are registered by name in a ``Registry``; ``REGISTRY`` holds the built-ins and what
users add with ``register``. A scheduler instantiates its policy once per run
(``Policy.start``) with a ``PolicyContext``: the workload (task-shape distribution), a seeded
random generator and read access to the scheduler's nodes and allocator. Everything a policy
caches lives in that run, so runs with other policies or workloads never share state.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, overload

from kubedra.allocator.claims import PreparedClaim, RequestData
from kubedra.allocator.engine import Allocator
from kubedra.allocator.inventory import DeviceInfo
from kubedra.allocator.policy import DeviceKey
from kubedra.scheduler.nodeinfo import NodeList, NodeState
from kubedra.scheduler.policies.devicestate import (
    AmountParser,
    NodeDevices,
    StaticFits,
    request_signature,
)
from kubedra.scheduler.policies.workload import DEFAULT_COVERAGE, TaskShape, Workload
from kubedra.scheduler.resources import CPU, MEMORY

if TYPE_CHECKING:
    from kubedra.cluster.store import Store
    from kubedra.scheduler.dynamicresources import DynamicResources

POLICY_SEED = 0
"""The seed of a policy's random generator when the run has none (runs stay reproducible)."""


class PolicyError(ValueError):
    """An unknown policy name, or a policy that cannot be used as asked."""


# --- what a policy sees ---------------------------------------------------------------------


class PodView:
    """The pod being scheduled, once per scheduling cycle."""

    __slots__ = ("_options", "_shape", "claims", "cpu", "key", "memory", "pod", "requests")

    def __init__(
        self,
        pod: Mapping[str, Any],
        key: str,
        requests: Mapping[str, int],
        claims: list[dict[str, Any]],
        prepared: list[PreparedClaim] | None,
    ) -> None:
        self.pod = pod
        self.key = key
        self.cpu = requests.get(CPU, 0)
        """cpu request in millicores."""
        self.memory = requests.get(MEMORY, 0)
        """memory request in bytes."""
        self.claims = claims
        """The claims this cycle allocates (the pod's claims without an allocation)."""
        self.requests: list[list[RequestData]] = [
            slot.options for claim in prepared or () for slot in claim.slots
        ]
        """Per device request of those claims, its options (one, or the subrequests)."""
        self._shape: TaskShape | None = None
        self._options: tuple[list[RequestData], Any] | None = None

    @property
    def shape(self) -> TaskShape:
        if self._shape is None:
            self._shape = TaskShape.of(
                self.cpu, self.memory, [c.get("spec") or {} for c in self.claims]
            )
        return self._shape

    @property
    def uses_devices(self) -> bool:
        return bool(self.requests)

    @property
    def options(self) -> tuple[list[RequestData], Any]:
        """Every option of every device request, and what ``static_fit`` reads of them
        (hashable: pods whose options read alike want the same devices)."""
        if self._options is None:
            options = [o for slot in self.requests for o in slot]
            self._options = (options, tuple(request_signature(o) for o in options))
        return self._options


class DeviceView:
    """One device of a node, for a node score: its share free before and after the pod."""

    __slots__ = ("device", "free", "free_after", "taken", "wanted")

    def __init__(
        self, device: DeviceInfo, free: float, free_after: float, taken: bool, wanted: bool
    ) -> None:
        self.device = device
        self.free = free
        """Share of the device free now (0..1)."""
        self.free_after = free_after
        """Share free once the pod's allocation on this node is added."""
        self.taken = taken
        """Whether the pod's allocation on this node uses it."""
        self.wanted = wanted
        """Whether one of the pod's requests could ever use it (class, selectors, taints)."""


class NodeView:
    """One feasible node for the pod, for a node score: the node's state and, lazily, its
    devices before and after the pod's allocation there (``allocations``, from Filter)."""

    __slots__ = ("_devices", "_given", "allocations", "context", "node", "pod")

    def __init__(
        self,
        context: PolicyContext,
        pod: PodView,
        node: NodeState,
        allocations: list[dict[str, Any]] | None,
    ) -> None:
        self.context = context
        self.pod = pod
        self.node = node
        self._given = allocations
        self.allocations = allocations if allocations is not None else []
        self._devices: list[DeviceView] | None = None

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def cpu_capacity(self) -> int:
        return self.node.allocatable.get(CPU, 0)

    @property
    def memory_capacity(self) -> int:
        return self.node.allocatable.get(MEMORY, 0)

    @property
    def cpu_free(self) -> int:
        """Allocatable cpu (millicores) not requested by the pods on the node."""
        return self.cpu_capacity - self.node.requested.get(CPU, 0)

    @property
    def memory_free(self) -> int:
        return self.memory_capacity - self.node.requested.get(MEMORY, 0)

    @property
    def results(self) -> list[dict[str, Any]]:
        """The device results of the pod's allocation on this node."""
        return [
            r for a in self.allocations for r in ((a.get("devices") or {}).get("results") or [])
        ]

    @property
    def devices(self) -> list[DeviceView]:
        """The devices of the node's pools (see ``DeviceView``); shared by the views of pods
        with the same allocation here (read them, do not change them)."""
        if self._devices is None:
            self._devices = self.context.device_views(self.node, self.pod, self._given)
        return self._devices


class NodeViews(Sequence[NodeView]):
    """The feasible nodes of one cycle as ``NodeView`` objects, made when read (a score that
    reads no node, such as ``random``'s, makes none)."""

    __slots__ = ("allocations", "context", "nodes", "pod")

    def __init__(
        self,
        context: PolicyContext,
        pod: PodView,
        nodes: Sequence[NodeState],
        allocations: Sequence[list[dict[str, Any]] | None],
    ) -> None:
        self.context = context
        self.pod = pod
        self.nodes = nodes
        self.allocations = allocations

    def __len__(self) -> int:
        return len(self.nodes)

    @overload
    def __getitem__(self, index: int) -> NodeView: ...
    @overload
    def __getitem__(self, index: slice) -> list[NodeView]: ...
    def __getitem__(self, index: int | slice) -> NodeView | list[NodeView]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return NodeView(self.context, self.pod, self.nodes[index], self.allocations[index])

    def __iter__(self) -> Iterator[NodeView]:
        context, pod = self.context, self.pod
        for node, allocations in zip(self.nodes, self.allocations, strict=True):
            yield NodeView(context, pod, node, allocations)


# --- the parts of a policy ------------------------------------------------------------------


class NodeScorer:
    """A node score (a Score plugin). Subclasses implement ``score``; higher is better.

    ``plugin`` names it in decisions (``kubedra explain``). ``replaces_defaults``: only this
    score ranks nodes and every feasible node is scored (the paper's profile); otherwise it
    is added beside the default plugins, times ``weight``, as an integer 0..100. ``cacheable``:
    the score depends only on the pod's shape and the node's state (nodes, pods, devices), so
    the scheduler may reuse it until the node changes; a score drawing random numbers is not.
    ``ties``: how the scheduler picks among nodes of equal score: ``"random"`` as
    kube-scheduler does (a draw, seeded with ``--seed``), or ``"name"``, the first node by
    name, as the authors' simulator of the paper does (its vendored kube-scheduler's
    ``selectHost`` keeps "the smallest lexicographical order if the score remains the same",
    for reproducibility).
    """

    plugin = "PlacementPolicy"
    replaces_defaults = True
    weight = 1
    cacheable = True
    ties = "random"

    def score(self, pod: PodView, node: NodeView) -> float:
        raise NotImplementedError

    def score_all(self, pod: PodView, nodes: NodeViews) -> list[float]:
        """The scores of a cycle's feasible ``nodes``, in order: what the scheduler asks of
        a score that is not ``cacheable``. ``score`` of each node unless overridden (a score
        that need not read every node, as ``random``'s, can skip making the views)."""
        score = self.score
        return [float(score(pod, node)) for node in nodes]

    def pod_added(self, key: str, pod: Mapping[str, Any], node: str) -> None:
        """A pod was bound (or assumed) on ``node``; for scores that follow the pods."""

    def pod_removed(self, key: str, node: str) -> None:
        """A pod left ``node`` (finished, deleted, unreserved)."""


ScorerFactory = Callable[["PolicyContext"], NodeScorer]
DeviceKeyFactory = Callable[["PolicyContext"], DeviceKey]


@dataclass(frozen=True)
class Policy:
    """A named placement policy (module docstring). ``node_score`` and ``devices`` build the
    parts for one run from its ``PolicyContext``; either may be None (that part stays
    upstream's). ``summary`` says in one sentence what it optimises (shown in --help and the
    docs)."""

    name: str
    summary: str
    node_score: ScorerFactory | None = None
    devices: DeviceKeyFactory | None = None

    def start(self, context: PolicyContext) -> ActivePolicy:
        """The policy's parts for one scheduler run."""
        return ActivePolicy(
            self,
            self.node_score(context) if self.node_score is not None else None,
            self.devices(context) if self.devices is not None else None,
        )


@dataclass
class ActivePolicy:
    """A policy running in one scheduler."""

    policy: Policy
    scorer: NodeScorer | None
    device_key: DeviceKey | None


# --- what a policy may read -------------------------------------------------------------------


@dataclass
class PolicyContext:
    """A policy's view of the scheduler it runs in: the workload it plans for, a seeded
    random generator, and read access to nodes and devices. Built once per run."""

    store: Store
    nodes: NodeList
    dra: DynamicResources
    seed: int | None = None
    explicit_workload: Workload | None = None
    coverage: float = DEFAULT_COVERAGE
    rng: random.Random = field(init=False)
    amounts: AmountParser = field(init=False, default_factory=AmountParser)
    cache: dict[str, Any] = field(init=False, default_factory=dict)
    """State the parts of one run share (e.g. FGD's measure, for its score and devices)."""
    _workload: Workload | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.rng = random.Random(POLICY_SEED if self.seed is None else self.seed)

    @property
    def features(self) -> Any:
        return self.dra.features

    def allocator(self) -> Allocator:
        """The scheduler's allocator (a new one after DeviceClasses or slices changed)."""
        return self.dra.ensure_allocator()

    def workload(self) -> Workload | None:
        """The task shapes the policy plans for: the one given for the run, else those of the
        pods in the store when this is first asked (None while the store holds no pod)."""
        if self.explicit_workload is not None:
            return self.explicit_workload
        if self._workload is None:
            self._workload = Workload.from_store(self.store, self.coverage)
        return self._workload

    def static_fits(self) -> StaticFits:
        """Which requests could ever use which devices, for the current allocator."""
        allocator = self.allocator()
        found = self.cache.get("static-fits")
        if found is None or found[0] is not allocator:
            found = self.cache["static-fits"] = (allocator, StaticFits(allocator.features))
        return found[1]

    def device_views(
        self, node: NodeState, pod: PodView, allocations: list[dict[str, Any]] | None
    ) -> list[DeviceView]:
        """``NodeView.devices``: the node's devices before and after ``allocations`` (the
        pod's Filter result there), remembered per node and pod options while the node's pools
        are unchanged and the allocations are the same object. Pods of many shapes (cpu and
        memory) share a claim shape, and Filter hands each of them the same allocations for a
        node until its pools change, so their policy scores read the devices once."""
        allocator = self.allocator()
        view = allocator.inventory.node_view(node.info)
        versions = tuple(allocator.state.pool_version.get(key, 0) for key in view.pool_keys)
        options, signature = pod.options
        views: dict[tuple[str, Any], Any] = self.cache.setdefault("device-views", {})
        key = (node.name, signature)
        found = views.get(key)
        if (
            found is not None
            and found[0] is allocator
            and found[1] == versions
            and found[2] is allocations
        ):
            return found[3]
        results = [
            r for a in allocations or () for r in ((a.get("devices") or {}).get("results") or [])
        ]
        before, after = self.node_devices(node, results)
        fits = self.static_fits()
        devices = [
            DeviceView(
                d,
                before.free(d),
                after.free(d),
                d.key in after.taken,
                any(fits.fit(o, d) is not None for o in options),
            )
            for d in before.devices
        ]
        views[key] = (allocator, versions, allocations, devices)
        return devices

    def node_devices(
        self, node: NodeState, results: Iterable[Mapping[str, Any]] = ()
    ) -> tuple[NodeDevices, NodeDevices]:
        """The node's devices now (remembered until its pools change) and once ``results``
        are added."""
        allocator = self.allocator()
        view = allocator.inventory.node_view(node.info)
        versions = tuple(allocator.state.pool_version.get(key, 0) for key in view.pool_keys)
        nodes: dict[str, Any] = self.cache.setdefault("node-devices", {})
        found = nodes.get(node.name)
        if found is not None and found[0] is allocator and found[1] == versions:
            before: NodeDevices = found[2]
        else:
            before = NodeDevices(view, allocator.state, allocator.features)
            nodes[node.name] = (allocator, versions, before)
        results = list(results)
        if not results:
            return before, before
        if before.counters:
            after = NodeDevices(view, allocator.state, allocator.features, results, self.amounts)
        else:
            after = NodeDevices.with_results(before, results, self.amounts)
        return before, after


# --- the registry ---------------------------------------------------------------------------


class Registry:
    """Policies by name. ``REGISTRY`` is the one the CLI and SchedulerConfig use."""

    def __init__(self, policies: Iterable[Policy] = ()) -> None:
        self._policies: dict[str, Policy] = {}
        for policy in policies:
            self.register(policy)

    def register(self, policy: Policy, replace: bool = False) -> Policy:
        """Add ``policy``; a name already taken is refused unless ``replace``."""
        if not isinstance(policy, Policy):
            raise PolicyError(f"{policy!r} is not a Policy")
        name = policy.name
        if not name or any(c.isspace() or c in "+," for c in name):
            raise PolicyError(f"policy name {name!r}: give a name without spaces, '+' or ','")
        if name in self._policies and not replace:
            raise PolicyError(f"a policy named {name!r} is already registered")
        self._policies[name] = policy
        return policy

    def unregister(self, name: str) -> None:
        self._policies.pop(name, None)

    def names(self) -> list[str]:
        return list(self._policies)

    def get(self, name: str) -> Policy:
        found = self._policies.get(name)
        if found is None:
            raise PolicyError(f"unknown policy {name!r}: known policies: {', '.join(self.names())}")
        return found

    def __contains__(self, name: object) -> bool:
        return name in self._policies

    def __iter__(self) -> Any:
        return iter(self._policies.values())

    def device_names(self) -> list[str]:
        """Policies usable as ``--device-policy`` (first-fit, and those with a device part)."""
        return [p.name for p in self if p.devices is not None or p.name == "first-fit"]

    def score_names(self) -> list[str]:
        """Policies usable as ``--node-score`` (those with a node score)."""
        return [p.name for p in self if p.node_score is not None]

    def resolve(
        self,
        policy: str | Policy | None = None,
        device_policy: str | None = None,
        node_score: str | None = None,
    ) -> Policy | None:
        """The policy a run uses: ``policy`` (a name or a Policy), with its device part
        replaced by ``device_policy``'s and its node score by ``node_score``'s when given
        (the older ``--device-policy``/``--node-score`` flags). None: upstream's profile."""
        base = self.get(policy) if isinstance(policy, str) else policy
        devices = node = base
        if device_policy is not None:
            if device_policy not in self.device_names():
                raise PolicyError(
                    f"unknown device policy {device_policy!r}: "
                    f"use one of {', '.join(self.device_names())}"
                )
            devices = self.get(device_policy)
        if node_score is not None:
            if node_score not in self.score_names():
                raise PolicyError(
                    f"unknown node score {node_score!r}: use one of {', '.join(self.score_names())}"
                )
            node = self.get(node_score)
        if devices is node:
            return devices
        device_part = devices.devices if devices is not None else None
        node_part = node.node_score if node is not None else None
        if device_part is None and node_part is None:
            return None
        name = "+".join(
            part
            for part in (
                f"node:{node.name}" if node is not None and node_part is not None else "",
                f"devices:{devices.name}" if devices is not None and device_part else "",
            )
            if part
        )
        summary = " ".join(
            p.summary for p in (node, devices) if p is not None and (p.node_score or p.devices)
        )
        return Policy(name, summary, node_part, device_part)


REGISTRY = Registry()
"""The built-in policies (registered by ``kubedra.scheduler.policies``) and the users'."""


def register(policy: Policy, replace: bool = False) -> Policy:
    """Register ``policy`` by its name, for ``--policy NAME`` and ``SchedulerConfig``."""
    return REGISTRY.register(policy, replace)


def get(name: str) -> Policy:
    return REGISTRY.get(name)


def names() -> list[str]:
    return REGISTRY.names()
