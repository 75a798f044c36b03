"""The workload a placement policy plans for: the distribution of task shapes.

Fragmentation (Weng et al., USENIX ATC '23) is measured against the tasks a cluster expects:
free device capacity counts as fragmented for a task shape that cannot use it, weighted by
how popular that shape is. A ``TaskShape`` is what scheduling sees of one pod: its cpu and
memory requests and the specs of its ResourceClaims (device requests, selectors, capacity
requests). A ``Workload`` is a normalised distribution over shapes.

Shapes made from pods (``shape_of``, ``Workload.from_pods``, the replay's trace workload) carry
the pod's cpu and claims but no memory, as the paper's typical pods do (the authors'
simulator: ``GetPodResource`` keys a pod by cpu, GPU share, GPU count and model, and
``GetNodePodFrag`` tests cpu and GPUs only). Memory would split one popular shape into many
rarer ones (on the Alibaba trace, 53 kept shapes instead of 35, and a different set) and make
FGD shun nodes for memory the paper's measure does not count. A shape written with memory
(``TaskShape.of(cpu, memory, specs)``) is still checked against the node's free memory.

Callers pass a Workload explicitly (e.g. built from a trace); without one, a policy that
needs it builds it from the pods in the store when it first scores a pod
(``Workload.from_store``). As the paper's simulator does (typical pods, popularity threshold
95%), only the most popular shapes that together cover ``coverage`` of the pods are kept, and
their weights renormalised.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kubedra.api.defaults import apply_defaults
from kubedra.cluster.clock import START
from kubedra.cluster.store import Store
from kubedra.scheduler.resources import CPU, QuantityCache, pod_requests

DEFAULT_COVERAGE = 0.95
"""Share of the pods the kept shapes cover (the paper's simulator: popularity threshold 95)."""


class WorkloadError(ValueError):
    """A workload that cannot be used: no shapes, negative weights, a bad coverage."""


@dataclass(frozen=True, order=True)
class TaskShape:
    """What scheduling sees of one pod: cpu (millicores), memory (bytes) and its claims' specs.

    ``claims`` holds each claim spec (``ResourceClaim.spec``) as canonical JSON, so that equal
    shapes compare and hash equal; ``specs`` gives them back as dicts."""

    cpu: int = 0
    memory: int = 0
    claims: tuple[str, ...] = ()

    @classmethod
    def of(
        cls, cpu: int = 0, memory: int = 0, claim_specs: Iterable[Mapping[str, Any]] = ()
    ) -> TaskShape:
        """A shape from requests and claim specs (``{"devices": {"requests": [...]}}``)."""
        return cls(int(cpu), int(memory), tuple(canonical(spec) for spec in claim_specs))

    @property
    def specs(self) -> list[dict[str, Any]]:
        return [json.loads(c) for c in self.claims]

    @property
    def uses_devices(self) -> bool:
        return bool(self.claims)


def canonical(spec: Mapping[str, Any]) -> str:
    """A claim spec as canonical JSON: defaulted as the API server stores it (so a spec
    written by hand equals the one a template in the store holds), ``devices`` only."""
    claim = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {},
        "spec": {"devices": dict(spec.get("devices") or {})},
    }
    defaulted = apply_defaults(claim, now=START)
    return json.dumps({"devices": defaulted["spec"].get("devices") or {}}, sort_keys=True)


Lookup = Callable[[str, str, "str | None"], "Mapping[str, Any] | None"]
"""Finds an object by kind, name and namespace (``Store.get``, or ``ObjectIndex.get``)."""


class ObjectIndex:
    """Objects given as manifests (not in a store), found by kind, name and namespace (an
    object without a namespace is in ``default``)."""

    def __init__(self, objects: Iterable[Mapping[str, Any]]) -> None:
        self._objects: dict[tuple[str, str, str], Mapping[str, Any]] = {}
        for obj in objects:
            meta = obj.get("metadata") or {}
            key = (str(obj.get("kind")), str(meta.get("name")), meta.get("namespace") or "default")
            self._objects[key] = obj

    def get(self, kind: str, name: str, namespace: str | None) -> Mapping[str, Any] | None:
        return self._objects.get((kind, name, namespace or "default"))


def pod_claim_specs(pod: Mapping[str, Any], lookup: Store | Lookup) -> list[dict[str, Any]] | None:
    """The specs of the claims a pod refers to (templates' specs for template references),
    found with ``lookup`` (a Store or a function like ``Store.get``); None when a referenced
    claim or template is missing."""
    get = lookup.get if isinstance(lookup, Store) else lookup
    namespace = (pod.get("metadata") or {}).get("namespace")
    specs: list[dict[str, Any]] = []
    for entry in (pod.get("spec") or {}).get("resourceClaims") or []:
        if entry.get("resourceClaimTemplateName"):
            template = get(
                "ResourceClaimTemplate", str(entry["resourceClaimTemplateName"]), namespace
            )
            if template is None:
                return None
            specs.append(dict((template.get("spec") or {}).get("spec") or {}))
        elif entry.get("resourceClaimName"):
            claim = get("ResourceClaim", str(entry["resourceClaimName"]), namespace)
            if claim is None:
                return None
            specs.append(dict(claim.get("spec") or {}))
    return specs


def shape_of(
    pod: Mapping[str, Any], lookup: Store | Lookup, q: QuantityCache | None = None
) -> TaskShape:
    """The shape of a pod: its cpu request and claims, no memory (module docstring); claims it
    refers to that ``lookup`` cannot find count as none."""
    requests = pod_requests(pod, q or QuantityCache())
    specs = pod_claim_specs(pod, lookup) or []
    return TaskShape.of(requests.get(CPU, 0), 0, specs)


class Workload:
    """A distribution of task shapes: ``shapes`` pairs each shape with its weight (summing
    to 1, most popular first; ties in shape order, so the same input gives the same list)."""

    def __init__(
        self,
        counts: Mapping[TaskShape, float] | Iterable[tuple[TaskShape, float]],
        coverage: float = 1.0,
    ) -> None:
        if not 0 < coverage <= 1:
            raise WorkloadError(f"coverage {coverage!r}: must be in (0, 1]")
        items = list(counts.items()) if isinstance(counts, Mapping) else list(counts)
        merged: dict[TaskShape, float] = {}
        for shape, weight in items:
            if not isinstance(shape, TaskShape):
                raise WorkloadError(f"{shape!r} is not a TaskShape")
            if weight < 0:
                raise WorkloadError(f"shape {shape}: weight {weight!r} is negative")
            merged[shape] = merged.get(shape, 0.0) + float(weight)
        ranked = sorted((kv for kv in merged.items() if kv[1] > 0), key=lambda kv: (-kv[1], kv[0]))
        total = sum(w for _, w in ranked)
        if total <= 0:
            raise WorkloadError("a workload needs at least one shape with a positive weight")
        kept: list[tuple[TaskShape, float]] = []
        covered = 0.0
        for shape, weight in ranked:
            kept.append((shape, weight))
            covered += weight
            if covered >= coverage * total - 1e-12:
                break
        self.shapes: tuple[tuple[TaskShape, float], ...] = tuple(
            (shape, weight / covered) for shape, weight in kept
        )
        self.coverage = coverage

    @classmethod
    def of(cls, shapes: Sequence[TaskShape], coverage: float = 1.0) -> Workload:
        """Each listed shape counted once per occurrence."""
        return cls(Counter(shapes), coverage)

    @classmethod
    def from_pods(
        cls,
        pods: Iterable[Mapping[str, Any]],
        lookup: Store | Lookup,
        coverage: float = DEFAULT_COVERAGE,
    ) -> Workload:
        """The shapes of ``pods`` (their claims and templates found with ``lookup``)."""
        q = QuantityCache()
        return cls(Counter(shape_of(pod, lookup, q) for pod in pods), coverage)

    @classmethod
    def from_objects(
        cls, objects: Iterable[Mapping[str, Any]], coverage: float = DEFAULT_COVERAGE
    ) -> Workload:
        """The shapes of the Pods among manifests (e.g. a trace's), their claims and claim
        templates found among the same manifests."""
        items = list(objects)
        index = ObjectIndex(items)
        return cls.from_pods([o for o in items if o.get("kind") == "Pod"], index.get, coverage)

    @classmethod
    def from_store(cls, store: Store, coverage: float = DEFAULT_COVERAGE) -> Workload | None:
        """The shapes of every pod in ``store`` (None when it holds no pod)."""
        pods = store.list("Pod")
        if not pods:
            return None
        return cls.from_pods(pods, store, coverage)

    def __len__(self) -> int:
        return len(self.shapes)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Workload):
            return NotImplemented
        return self.shapes == other.shapes

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Workload({len(self.shapes)} shapes, coverage {self.coverage})"
