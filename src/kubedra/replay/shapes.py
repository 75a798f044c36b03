"""What the pods of a trace ask for, before they exist: their claims' specs and the workload
(kubedra.scheduler.policies.Workload) a placement policy such as FGD plans for.

A pod's claims come from ResourceClaimTemplates (one claim per pod) or name ResourceClaims;
either is looked up first among the objects of the pod's own trace entry, then among the
cluster's objects (a trace imported from the Alibaba CSVs keeps its templates in
cluster.yaml).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from kubedra.api.workloads import expand_pods, is_workload
from kubedra.replay.trace import Entry, Trace
from kubedra.scheduler.policies import DEFAULT_COVERAGE, TaskShape, Workload
from kubedra.scheduler.policies.workload import ObjectIndex, canonical
from kubedra.scheduler.resources import CPU, QuantityCache, pod_requests

Lookup = Callable[[str, str, "str | None"], "Mapping[str, Any] | None"]
"""Finds an object by kind, name and namespace."""


def chained(*lookups: Lookup) -> Lookup:
    """The first answer of ``lookups``, in order."""

    def get(kind: str, name: str, namespace: str | None) -> Mapping[str, Any] | None:
        for lookup in lookups:
            found = lookup(kind, name, namespace)
            if found is not None:
                return found
        return None

    return get


def entry_pods(
    objects: Iterable[dict[str, Any]], nodes: Iterable[dict[str, Any]] = ()
) -> list[dict[str, Any]]:
    """The pods among ``objects``, workloads (Job, Deployment, ...) expanded to the pods their
    controllers would create (a DaemonSet's over ``nodes``)."""
    pods: list[dict[str, Any]] = []
    node_list = list(nodes)
    for obj in objects:
        if obj.get("kind") == "Pod":
            pods.append(obj)
        elif is_workload(obj):
            pods.extend(expand_pods(obj, nodes=node_list))
    return pods


def claim_specs(pod: Mapping[str, Any], lookup: Lookup) -> list[dict[str, Any]]:
    """The specs of the claims ``pod`` refers to that ``lookup`` finds (a claim that is
    already allocated counts as none: its devices are taken)."""
    namespace = (pod.get("metadata") or {}).get("namespace") or "default"
    specs: list[dict[str, Any]] = []
    for entry in (pod.get("spec") or {}).get("resourceClaims") or []:
        template_name = entry.get("resourceClaimTemplateName")
        if template_name:
            template = lookup("ResourceClaimTemplate", str(template_name), namespace)
            spec = ((template or {}).get("spec") or {}).get("spec")
            if isinstance(spec, dict):
                specs.append(spec)
            continue
        claim_name = entry.get("resourceClaimName")
        claim = lookup("ResourceClaim", str(claim_name), namespace) if claim_name else None
        if claim is not None and not (claim.get("status") or {}).get("allocation"):
            spec = claim.get("spec")
            if isinstance(spec, dict):
                specs.append(spec)
    return specs


def spec_key(spec: Mapping[str, Any]) -> str:
    """A claim spec as the JSON text that names it in a pod shape (kubedra.replay.devices)."""
    return json.dumps(spec, sort_keys=True)


def trace_workload(
    trace: Trace,
    cluster_objects: Iterable[Mapping[str, Any]],
    coverage: float = DEFAULT_COVERAGE,
) -> Workload | None:
    """The task shapes of every pod the trace's arrivals create (an entry with ``count``
    counts that many times), claims and templates found in the entry, then the cluster;
    None when the trace creates no pod. As for ``Workload.from_objects``, shapes carry cpu and
    claims, not memory, and only the most popular shapes covering ``coverage`` of the pods
    are kept."""
    cluster = list(cluster_objects)
    index = ObjectIndex(cluster)
    nodes = [dict(o) for o in cluster if o.get("kind") == "Node"]
    q = QuantityCache()
    canonical_of: dict[str, str] = {}
    counts: Counter[TaskShape] = Counter()
    for entry in trace.entries:
        if entry.action is not None:
            continue
        lookup = chained(ObjectIndex(entry.objects).get, index.get)
        for pod in entry_pods(entry.objects, nodes):
            requests = pod_requests(pod, q)
            claims = []
            for spec in claim_specs(pod, lookup):
                key = spec_key(spec)
                if key not in canonical_of:
                    canonical_of[key] = canonical(spec)
                claims.append(canonical_of[key])
            # No memory: the paper's task shapes (kubedra.scheduler.policies.workload).
            shape = TaskShape(requests.get(CPU, 0), 0, tuple(claims))
            counts[shape] += entry.copies
    if not counts:
        return None
    return Workload(counts, coverage)


def arrivals(trace: Trace) -> list[Entry]:
    """The trace's arrival entries, in the order they happen."""
    return [entry for entry in trace.entries if entry.action is None]
