"""The kinds the store serves, with the names the apiserver uses for them in messages."""

from __future__ import annotations

from dataclasses import dataclass

from kubedra.api.scheduling_versions import V1ALPHA2, V1ALPHA3, V1BETA1


@dataclass(frozen=True, slots=True)
class KindInfo:
    kind: str
    api_version: str
    resource: str
    """Plural resource name, e.g. ``resourceclaims``."""
    namespaced: bool
    other_versions: tuple[str, ...] = ()
    """Versions also stored as they are: the Workload API's kinds are stored in the version of
    the selected release (``v1beta1`` for 1.37, ``v1alpha2`` for 1.36)."""

    @property
    def versions(self) -> tuple[str, ...]:
        return (self.api_version, *self.other_versions)

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0]

    @property
    def group_resource(self) -> str:
        """``resourceclaims.resource.k8s.io`` (``pods`` for the core group), as in messages."""
        return f"{self.resource}.{self.group}" if self.group else self.resource

    @property
    def qualified_kind(self) -> str:
        """``ResourceClaim.resource.k8s.io`` (``Pod`` for the core group), as in Invalid."""
        return f"{self.kind}.{self.group}" if self.group else self.kind


_RESOURCE = "resource.k8s.io/v1"

KINDS: dict[str, KindInfo] = {
    info.kind: info
    for info in (
        KindInfo("Namespace", "v1", "namespaces", False),
        KindInfo("PriorityClass", "scheduling.k8s.io/v1", "priorityclasses", False),
        KindInfo("DeviceClass", _RESOURCE, "deviceclasses", False),
        KindInfo("Node", "v1", "nodes", False),
        KindInfo("ResourceSlice", _RESOURCE, "resourceslices", False),
        KindInfo("DeviceTaintRule", _RESOURCE, "devicetaintrules", False),
        KindInfo(
            "ResourcePoolStatusRequest",
            "resource.k8s.io/v1alpha3",
            "resourcepoolstatusrequests",
            False,
        ),
        KindInfo("ResourceClaimTemplate", _RESOURCE, "resourceclaimtemplates", True),
        KindInfo("ResourceClaim", _RESOURCE, "resourceclaims", True),
        KindInfo("Workload", V1BETA1, "workloads", True, (V1ALPHA2,)),
        KindInfo("CompositePodGroup", V1ALPHA3, "compositepodgroups", True),
        KindInfo("PodGroup", V1BETA1, "podgroups", True, (V1ALPHA2,)),
        KindInfo("PodDisruptionBudget", "policy/v1", "poddisruptionbudgets", True),
        KindInfo("Pod", "v1", "pods", True),
    )
}
"""Supported kinds in the order a simulation creates them (what others depend on first)."""

CREATION_ORDER: tuple[str, ...] = tuple(KINDS)


def kind_info(kind: str) -> KindInfo | None:
    return KINDS.get(kind)
