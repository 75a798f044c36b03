"""The default profile's node plugins, as functions over the pod and one node's state.

Each filter returns None (the node passes) or a Status with upstream's reason text; each
score returns the raw score before NormalizeScore. Names and order are upstream's
(``pkg/scheduler/framework/plugins``); DynamicResources lives in its own module.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from kubedra.allocator.nodeselect import NodeSelectorError, selector_matches
from kubedra.scheduler.nodeinfo import NodeState
from kubedra.scheduler.resources import CPU, EPHEMERAL, MEMORY, Resources, is_scalar
from kubedra.scheduler.status import MAX_NODE_SCORE, Status, unresolvable, unschedulable

NODE_UNSCHEDULABLE = "NodeUnschedulable"
NODE_NAME = "NodeName"
TAINT_TOLERATION = "TaintToleration"
NODE_AFFINITY = "NodeAffinity"
NODE_RESOURCES_FIT = "NodeResourcesFit"
BALANCED_ALLOCATION = "NodeResourcesBalancedAllocation"
DYNAMIC_RESOURCES = "DynamicResources"

SCORE_WEIGHTS: dict[str, int] = {
    TAINT_TOLERATION: 3,
    NODE_AFFINITY: 2,
    NODE_RESOURCES_FIT: 1,
    BALANCED_ALLOCATION: 1,
    DYNAMIC_RESOURCES: 1,
}
"""Weights of the default profile (pkg/scheduler/apis/config/v1/default_plugins.go)."""

ERR_UNSCHEDULABLE = "node(s) were unschedulable"
ERR_NODE_NAME = "node(s) didn't match the requested node name"
ERR_TAINT = "node(s) had untolerated taint(s)"
ERR_AFFINITY = "node(s) didn't match Pod's node affinity/selector"
ERR_TOO_MANY_PODS = "Too many pods"

UNSCHEDULABLE_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}


def tolerates(toleration: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    """v1.Toleration.ToleratesTaint."""
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    if key and key != taint.get("key"):
        return False
    operator = toleration.get("operator") or "Equal"
    if operator == "Exists":
        return True
    if operator == "Equal":
        return (toleration.get("value") or "") == (taint.get("value") or "")
    return False


def tolerated(tolerations: Sequence[Mapping[str, Any]], taint: Mapping[str, Any]) -> bool:
    return any(tolerates(t, taint) for t in tolerations)


# --- filters --------------------------------------------------------------------------------


def node_unschedulable(tolerations: Sequence[Mapping[str, Any]], node: NodeState) -> Status | None:
    if node.unschedulable and not tolerated(tolerations, UNSCHEDULABLE_TAINT):
        return unresolvable(NODE_UNSCHEDULABLE, ERR_UNSCHEDULABLE)
    return None


def node_name(wanted: str, node: NodeState) -> Status | None:
    if wanted and wanted != node.name:
        return unresolvable(NODE_NAME, ERR_NODE_NAME)
    return None


def taint_toleration(tolerations: Sequence[Mapping[str, Any]], node: NodeState) -> Status | None:
    """The first NoSchedule/NoExecute taint that no toleration tolerates rejects the node."""
    for taint in node.taints:
        if taint.get("effect") in ("NoSchedule", "NoExecute") and not tolerated(tolerations, taint):
            return unresolvable(TAINT_TOLERATION, ERR_TAINT)
    return None


def required_affinity(spec: Mapping[str, Any]) -> Mapping[str, Any] | None:
    affinity = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    )
    return affinity or None


def node_affinity(spec: Mapping[str, Any], node: NodeState) -> Status | None:
    """nodeSelector (every label equal) and required node affinity (any term matches)."""
    selector = spec.get("nodeSelector") or {}
    labels = node.labels
    for key, value in selector.items():
        if labels.get(key) != value:
            return unresolvable(NODE_AFFINITY, ERR_AFFINITY)
    required = required_affinity(spec)
    if required is not None:
        try:
            ok = selector_matches(required, node.info)
        except NodeSelectorError:
            ok = False
        if not ok:
            return unresolvable(NODE_AFFINITY, ERR_AFFINITY)
    return None


def node_resources_fit(
    request: Resources, node: NodeState, dra_backed: frozenset[str] = frozenset()
) -> Status | None:
    """fitsRequest: pod count, then cpu, memory, ephemeral-storage and scalar resources.

    A scalar resource that a DeviceClass backs (``dra_backed``) and that the node does not
    offer itself is left to DynamicResources, as with DRAExtendedResource.
    """
    # Most nodes fit: when every positive request fits what is free, no check below can
    # fail, so the reasons are only worked out for a node that may not fit.
    if len(node.pods) < node.allowed_pods:
        allocatable = node.allocatable
        requested = node.requested
        for name, want in request.items():
            if want > 0 and want > allocatable.get(name, 0) - requested.get(name, 0):
                break
        else:
            return None
    reasons: list[str] = []
    unresolvable_ = False
    if len(node.pods) + 1 > node.allowed_pods:
        reasons.append(ERR_TOO_MANY_PODS)
    if request:
        allocatable = node.allocatable
        requested = node.requested
        for name in (CPU, MEMORY, EPHEMERAL):
            want = request.get(name, 0)
            if want > 0:
                have = allocatable.get(name, 0)
                if want > have - requested.get(name, 0):
                    reasons.append(f"Insufficient {name}")
                    unresolvable_ = unresolvable_ or want > have
        for name, want in request.items():
            if want == 0 or name in (CPU, MEMORY, EPHEMERAL) or not is_scalar(name):
                continue
            if name in dra_backed and name not in allocatable:
                continue
            have = allocatable.get(name, 0)
            if want > have - requested.get(name, 0):
                reasons.append(f"Insufficient {name}")
                unresolvable_ = unresolvable_ or want > have
    if not reasons:
        return None
    if unresolvable_:
        return unresolvable(NODE_RESOURCES_FIT, *reasons)
    return unschedulable(NODE_RESOURCES_FIT, *reasons)


# --- scores ---------------------------------------------------------------------------------


def taint_toleration_score(prefer_tolerations: Sequence[Mapping[str, Any]], node: NodeState) -> int:
    """How many PreferNoSchedule taints the pod does not tolerate (normalized in reverse)."""
    count = 0
    for taint in node.taints:
        if taint.get("effect") == "PreferNoSchedule" and not tolerated(prefer_tolerations, taint):
            count += 1
    return count


def preferred_terms(spec: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return list(
        ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
            "preferredDuringSchedulingIgnoredDuringExecution"
        )
        or []
    )


def node_affinity_score(terms: Sequence[Mapping[str, Any]], node: NodeState) -> int:
    """The sum of the weights of the preferred terms the node matches."""
    score = 0
    for term in terms:
        weight = int(term.get("weight") or 0)
        if weight == 0:
            continue
        preference = term.get("preference") or {}
        try:
            if selector_matches({"nodeSelectorTerms": [preference]}, node.info):
                score += weight
        except NodeSelectorError:
            continue
    return score


def least_allocated_score(non_zero_cpu: int, non_zero_memory: int, node: NodeState) -> int:
    """LeastAllocated over cpu and memory (weight 1 each), on the non-zero requests."""
    total = 0
    weights = 0
    for want, used, capacity in (
        (non_zero_cpu, node.non_zero_cpu, node.allocatable.get(CPU, 0)),
        (non_zero_memory, node.non_zero_memory, node.allocatable.get(MEMORY, 0)),
    ):
        if capacity == 0:
            continue
        requested = used + want
        score = 0 if requested > capacity else (capacity - requested) * MAX_NODE_SCORE // capacity
        total += score
        weights += 1
    return total // weights if weights else 0


def _balance(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    """``(1 - std) * MaxNodeScore`` over the used fractions (each capped at 1)."""
    fractions = []
    for used, capacity in zip(requested, allocatable, strict=True):
        if capacity == 0:
            continue
        fractions.append(min(used / capacity, 1.0))
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = sum(fractions) / len(fractions)
        std = math.sqrt(sum((f - mean) ** 2 for f in fractions) / len(fractions))
    return int((1 - std) * MAX_NODE_SCORE)


def balanced_allocation_score(cpu: int, memory: int, node: NodeState) -> int:
    """The 1.36 formula: how much placing the pod changes the node's balance.

    ``50 + (50 + with - without) / 2`` where with/without are the balance scores of the
    node's requests with and without the pod: 75 for no change, 50 for balanced to
    imbalanced, 100 for imbalanced to balanced (kubernetes/kubernetes#135573).
    """
    allocatable = (node.allocatable.get(CPU, 0), node.allocatable.get(MEMORY, 0))
    used_cpu = node.requested.get(CPU, 0)
    used_memory = node.requested.get(MEMORY, 0)
    with_pod = _balance((used_cpu + cpu, used_memory + memory), allocatable)
    without = _balance((used_cpu, used_memory), allocatable)
    half = MAX_NODE_SCORE // 2
    return half + (half + with_pod - without) // 2


def default_normalize(scores: list[int], reverse: bool) -> list[int]:
    """helper.DefaultNormalizeScore with MaxNodeScore."""
    highest = max(scores) if scores else 0
    if highest == 0:
        return [MAX_NODE_SCORE] * len(scores) if reverse else list(scores)
    out = []
    for s in scores:
        s = MAX_NODE_SCORE * s // highest
        out.append(MAX_NODE_SCORE - s if reverse else s)
    return out
