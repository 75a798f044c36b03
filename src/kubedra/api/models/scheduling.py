"""``scheduling.k8s.io/v1beta1`` Workload and PodGroup and ``v1alpha3`` CompositePodGroup, as
Kubernetes 1.37 serves them (KEP-4671 gang scheduling, KEP-5832 PodGroup API, KEP-6012
CompositePodGroup, KEP-5729 PodGroup ResourceClaims), every field of k8s.io/api
``scheduling/v1beta1/types.go`` and ``scheduling/v1alpha3/types.go``.

``v1alpha3`` Workload and PodGroup have the same fields as ``v1beta1`` and are stored as
``v1beta1`` (:mod:`kubedra.api.scheduling_versions`). 1.36's ``v1alpha2`` shapes live in
:mod:`kubedra.api.models.scheduling_v1alpha2`. Empty structs (``basic: {}``, ``single: {}``,
``all: {}``) are models without fields, so that anything written inside them is an unknown
field, as for the apiserver's strict decoding.
"""

from __future__ import annotations

from typing import Literal

from kubedra.api.models.base import Int32, KubeModel, KubeObject
from kubedra.api.models.meta import Condition, ObjectMeta

SCHEDULING_V1BETA1 = "scheduling.k8s.io/v1beta1"
SCHEDULING_V1ALPHA3 = "scheduling.k8s.io/v1alpha3"


class Empty(KubeModel):
    """An intentionally empty struct whose presence selects an option (``basic``, ``all``)."""


class TypedLocalObjectReference(KubeModel):
    api_group: str | None = None
    kind: str | None = None
    name: str | None = None


class TopologyConstraint(KubeModel):
    key: str | None = None


class PodGroupSchedulingConstraints(KubeModel):
    """Also ``CompositePodGroupSchedulingConstraints`` (the same single field)."""

    topology: list[TopologyConstraint] | None = None


class GangSchedulingPolicy(KubeModel):
    min_count: Int32 | None = None


class PodGroupSchedulingPolicy(KubeModel):
    basic: Empty | None = None
    gang: GangSchedulingPolicy | None = None


class CompositeGangSchedulingPolicy(KubeModel):
    min_group_count: Int32 | None = None


class CompositePodGroupSchedulingPolicy(KubeModel):
    basic: Empty | None = None
    gang: CompositeGangSchedulingPolicy | None = None


class PodGroupResourceClaim(KubeModel):
    name: str | None = None
    resource_claim_name: str | None = None
    resource_claim_template_name: str | None = None


class DisruptionMode(KubeModel):
    """``DisruptionMode`` and ``CompositeDisruptionMode``: exactly one of ``single``, ``all``."""

    single: Empty | None = None
    all: Empty | None = None


class PodGroupTemplate(KubeModel):
    name: str | None = None
    scheduling_policy: PodGroupSchedulingPolicy | None = None
    scheduling_constraints: PodGroupSchedulingConstraints | None = None
    resource_claims: list[PodGroupResourceClaim] | None = None
    disruption_mode: DisruptionMode | None = None
    priority_class_name: str | None = None
    priority: Int32 | None = None
    preemption_policy: str | None = None


class CompositePodGroupTemplate(KubeModel):
    name: str | None = None
    scheduling_policy: CompositePodGroupSchedulingPolicy | None = None
    scheduling_constraints: PodGroupSchedulingConstraints | None = None
    disruption_mode: DisruptionMode | None = None
    priority_class_name: str | None = None
    priority: Int32 | None = None
    preemption_policy: str | None = None
    pod_group_templates: list[PodGroupTemplate] | None = None
    composite_pod_group_templates: list[CompositePodGroupTemplate] | None = None


class WorkloadSpec(KubeModel):
    controller_ref: TypedLocalObjectReference | None = None
    pod_group_templates: list[PodGroupTemplate] | None = None
    composite_pod_group_templates: list[CompositePodGroupTemplate] | None = None


class Workload(KubeObject):
    api_version: Literal["scheduling.k8s.io/v1beta1"] = "scheduling.k8s.io/v1beta1"
    kind: Literal["Workload"] = "Workload"
    metadata: ObjectMeta | None = None
    spec: WorkloadSpec | None = None


class WorkloadReference(KubeModel):
    workload_name: str | None = None
    template_name: str | None = None


class PodGroupSpec(KubeModel):
    parent_composite_pod_group_name: str | None = None
    workload_ref: WorkloadReference | None = None
    scheduling_policy: PodGroupSchedulingPolicy | None = None
    scheduling_constraints: PodGroupSchedulingConstraints | None = None
    resource_claims: list[PodGroupResourceClaim] | None = None
    disruption_mode: DisruptionMode | None = None
    priority_class_name: str | None = None
    priority: Int32 | None = None
    preemption_policy: str | None = None


class PodGroupResourceClaimStatus(KubeModel):
    name: str | None = None
    resource_claim_name: str | None = None


class PodGroupStatus(KubeModel):
    conditions: list[Condition] | None = None
    resource_claim_statuses: list[PodGroupResourceClaimStatus] | None = None


class PodGroup(KubeObject):
    api_version: Literal["scheduling.k8s.io/v1beta1"] = "scheduling.k8s.io/v1beta1"
    kind: Literal["PodGroup"] = "PodGroup"
    metadata: ObjectMeta | None = None
    spec: PodGroupSpec | None = None
    status: PodGroupStatus | None = None


class CompositePodGroupSpec(KubeModel):
    parent_composite_pod_group_name: str | None = None
    workload_ref: WorkloadReference | None = None
    scheduling_policy: CompositePodGroupSchedulingPolicy | None = None
    scheduling_constraints: PodGroupSchedulingConstraints | None = None
    disruption_mode: DisruptionMode | None = None
    priority_class_name: str | None = None
    priority: Int32 | None = None
    preemption_policy: str | None = None


class CompositePodGroupStatus(KubeModel):
    conditions: list[Condition] | None = None


class CompositePodGroup(KubeObject):
    api_version: Literal["scheduling.k8s.io/v1alpha3"] = "scheduling.k8s.io/v1alpha3"
    kind: Literal["CompositePodGroup"] = "CompositePodGroup"
    metadata: ObjectMeta | None = None
    spec: CompositePodGroupSpec | None = None
    status: CompositePodGroupStatus | None = None
