"""PodGroup ``resourceClaims`` (KEP-5729, ``scheduling.k8s.io/v1alpha2``, gate
``DRAWorkloadResourceClaims``): a claim listed in a PodGroup is shared by the group's pods and
reserved for the PodGroup instead of its individual pods.

A pod consumes the PodGroup's claim by an entry in its own ``spec.resourceClaims`` that matches
the PodGroup's entry exactly (same ``name`` and the same ``resourceClaimName``). The scheduler
then writes one ``reservedFor`` entry ``{apiGroup: scheduling.k8s.io, resource: podgroups,
name, uid}`` for the whole group; the kubelet accepts a claim reserved for the pod's PodGroup.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kubedra.cluster.store import Store

API_GROUP = "scheduling.k8s.io"
RESOURCE = "podgroups"


def group_name(pod: Mapping[str, Any]) -> str | None:
    group = (pod.get("spec") or {}).get("schedulingGroup") or {}
    name = group.get("podGroupName") if isinstance(group, dict) else None
    return str(name) if name else None


def _entry_for(pod: Mapping[str, Any], claim_name: str) -> dict[str, Any] | None:
    for entry in (pod.get("spec") or {}).get("resourceClaims") or []:
        if entry.get("resourceClaimName") == claim_name:
            return dict(entry)
    return None


def group_claim_ref(
    store: Store, pod: Mapping[str, Any], claim: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The PodGroup reference to reserve ``claim`` for, when the pod's PodGroup lists it with
    the same name and claim as the pod does; else None (reserve for the pod)."""
    name = group_name(pod)
    claim_name = str((claim.get("metadata") or {}).get("name") or "")
    entry = _entry_for(pod, claim_name)
    if name is None or entry is None:
        return None
    namespace = (pod.get("metadata") or {}).get("namespace")
    group = store.get("PodGroup", name, namespace)
    if group is None:
        return None
    for listed in (group.get("spec") or {}).get("resourceClaims") or []:
        if listed.get("name") == entry.get("name") and listed.get("resourceClaimName") == (
            claim_name
        ):
            meta = group.get("metadata") or {}
            return {"apiGroup": API_GROUP, "resource": RESOURCE, "name": name, "uid": meta["uid"]}
    return None


def reserved_for_group(pod: Mapping[str, Any], claim: Mapping[str, Any]) -> bool:
    """The claim is reserved for the pod's PodGroup (by name: same namespace)."""
    name = group_name(pod)
    if name is None:
        return False
    return any(
        r.get("apiGroup") == API_GROUP and r.get("resource") == RESOURCE and r.get("name") == name
        for r in (claim.get("status") or {}).get("reservedFor") or []
    )
