"""Which claim a pod's ``spec.resourceClaims`` entry stands for (k8s.io/dynamic-resource-allocation
``resourceclaim.Name``, ``IsForPod``, ``IsReservedForPod``), shared by the controllers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubedra.cluster.podgroupclaims import owned_by_group, reserved_for_group

POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name"
TERMINAL_PHASES = frozenset({"Succeeded", "Failed"})


class ClaimNotCreated(Exception):
    """The entry names a template and the pod status does not record its claim yet."""


@dataclass(frozen=True, slots=True)
class ClaimRef:
    """``name`` is None when the pod status says that no claim is needed."""

    name: str | None
    check_owner: bool


def claim_name(pod: dict[str, Any], entry: dict[str, Any]) -> ClaimRef:
    """The claim behind one ``spec.resourceClaims`` entry; raises ClaimNotCreated."""
    direct = entry.get("resourceClaimName")
    if direct:
        return ClaimRef(direct, False)
    if entry.get("resourceClaimTemplateName"):
        for status in (pod.get("status") or {}).get("resourceClaimStatuses") or []:
            if status.get("name") == entry.get("name"):
                return ClaimRef(status.get("resourceClaimName") or None, True)
        raise ClaimNotCreated(f'pod "{pod_key(pod)}": ResourceClaim not created yet')
    raise ValueError(f"{pod_key(pod)}: resource claim {entry.get('name')!r} has no source")


def pod_claim_names(pod: dict[str, Any]) -> list[tuple[str, bool]]:
    """(claim name, check owner) for every entry whose claim is known."""
    out: list[tuple[str, bool]] = []
    for entry in (pod.get("spec") or {}).get("resourceClaims") or []:
        try:
            ref = claim_name(pod, entry)
        except (ClaimNotCreated, ValueError):
            continue
        if ref.name is not None:
            out.append((ref.name, ref.check_owner))
    return out


def is_for_pod(pod: dict[str, Any], claim: dict[str, Any]) -> bool:
    """The claim's controlling owner is this pod (by uid), or its PodGroup (KEP-5729)."""
    uid = pod["metadata"].get("uid")
    for ref in claim["metadata"].get("ownerReferences") or []:
        if ref.get("controller") and ref.get("uid") == uid:
            return True
    return owned_by_group(pod, claim)


def not_for_pod_message(pod: dict[str, Any], claim: dict[str, Any]) -> str:
    return (
        f"ResourceClaim {claim_key(claim)} was not created for pod {pod_key(pod)} "
        "(pod is not owner)"
    )


def is_reserved_for_pod(pod: dict[str, Any], claim: dict[str, Any]) -> bool:
    """Reserved for the pod, or for its PodGroup (KEP-5729)."""
    uid = pod["metadata"].get("uid")
    reserved = (claim.get("status") or {}).get("reservedFor") or []
    return any(ref.get("uid") == uid for ref in reserved) or reserved_for_group(pod, claim)


def is_pod_done(pod: dict[str, Any]) -> bool:
    """No container runs or will run: terminal phase, or deleted before being scheduled."""
    if (pod.get("status") or {}).get("phase") in TERMINAL_PHASES:
        return True
    return "deletionTimestamp" in pod["metadata"] and not (pod.get("spec") or {}).get("nodeName")


def pod_key(pod: dict[str, Any]) -> str:
    meta = pod["metadata"]
    return f"{meta.get('namespace')}/{meta.get('name')}"


claim_key = pod_key


def owning_pod(claim: dict[str, Any]) -> tuple[str, str] | None:
    """(name, uid) of the pod that controls a generated claim."""
    for ref in claim["metadata"].get("ownerReferences") or []:
        if ref.get("controller") and ref.get("apiVersion") == "v1" and ref.get("kind") == "Pod":
            return str(ref.get("name")), str(ref.get("uid"))
    return None
