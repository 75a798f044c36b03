"""PodGroup ``resourceClaims`` (KEP-5729, ``scheduling.k8s.io/v1alpha2`` in 1.36 and ``v1beta1``
in 1.37, gate ``DRAWorkloadResourceClaims``, off by default): a claim listed in a PodGroup is
shared by the group's pods and reserved for the PodGroup instead of its individual pods. With
the gate off the apiserver drops the field when the PodGroup is created
(:mod:`kubedra.cluster.admission`), so the group lists no claims and each pod gets its own.

A pod consumes the PodGroup's claim by an entry in its own ``spec.resourceClaims`` that matches
the PodGroup's entry exactly (same ``name`` and the same ``resourceClaimName`` or
``resourceClaimTemplateName``). For a template the ResourceClaim controller creates one claim
for the group (owned by the PodGroup, recorded in its ``status.resourceClaimStatuses``) and
records it in each member pod's ``status.resourceClaimStatuses``. The scheduler
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


def _resolved(pod: Mapping[str, Any], entry: Mapping[str, Any]) -> str | None:
    """The claim name a pod entry stands for (directly, or generated: from the pod status)."""
    if entry.get("resourceClaimName"):
        return str(entry["resourceClaimName"])
    for status in (pod.get("status") or {}).get("resourceClaimStatuses") or []:
        if status.get("name") == entry.get("name") and status.get("resourceClaimName"):
            return str(status["resourceClaimName"])
    return None


def _matches(listed: Mapping[str, Any], entry: Mapping[str, Any]) -> bool:
    """The pod's entry matches the PodGroup's exactly (same name, same claim or template)."""
    keys = ("name", "resourceClaimName", "resourceClaimTemplateName")
    return all((listed.get(k) or None) == (entry.get(k) or None) for k in keys)


def group_entry(
    store: Store, pod: Mapping[str, Any], entry: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(PodGroup, its listed claim) that the pod's ``spec.resourceClaims`` entry matches."""
    name = group_name(pod)
    if name is None:
        return None
    group = store.get("PodGroup", name, (pod.get("metadata") or {}).get("namespace"))
    if group is None:
        return None
    for listed in (group.get("spec") or {}).get("resourceClaims") or []:
        if _matches(listed, entry):
            return group, dict(listed)
    return None


def group_claim_ref(
    store: Store, pod: Mapping[str, Any], claim: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The PodGroup reference to reserve ``claim`` for, when the pod consumes it through its
    PodGroup's ``resourceClaims``; else None (reserve for the pod)."""
    claim_name = str((claim.get("metadata") or {}).get("name") or "")
    for entry in (pod.get("spec") or {}).get("resourceClaims") or []:
        if _resolved(pod, entry) != claim_name:
            continue
        found = group_entry(store, pod, entry)
        if found is not None:
            meta = found[0].get("metadata") or {}
            return {
                "apiGroup": API_GROUP,
                "resource": RESOURCE,
                "name": meta.get("name"),
                "uid": meta.get("uid"),
            }
    return None


def owned_by_group(pod: Mapping[str, Any], claim: Mapping[str, Any]) -> bool:
    """The claim was generated for the pod's PodGroup (its controlling owner)."""
    name = group_name(pod)
    return name is not None and any(
        ref.get("controller") and ref.get("kind") == "PodGroup" and ref.get("name") == name
        for ref in (claim.get("metadata") or {}).get("ownerReferences") or []
    )


def reserved_for_group(pod: Mapping[str, Any], claim: Mapping[str, Any]) -> bool:
    """The claim is reserved for the pod's PodGroup (by name: same namespace)."""
    name = group_name(pod)
    if name is None:
        return False
    return any(
        r.get("apiGroup") == API_GROUP and r.get("resource") == RESOURCE and r.get("name") == name
        for r in (claim.get("status") or {}).get("reservedFor") or []
    )
