"""``scheduling.k8s.io/v1alpha2`` Workload and PodGroup, as Kubernetes 1.36 serves them (every
field of k8s.io/api ``scheduling/v1alpha2/types.go`` at v0.36.0; the version was removed in
1.37, kubernetes/kubernetes#138572).

What differs from 1.37's ``v1beta1``: a PodGroup names its template as
``podGroupTemplateRef.workload{workloadName, podGroupTemplateName}`` (``workloadRef
{workloadName, templateName}`` in v1beta1), ``disruptionMode`` is the string ``Pod`` or
``PodGroup`` (a ``single``/``all`` union in v1beta1), and there is no ``preemptionPolicy``,
``parentCompositePodGroupName`` or ``compositePodGroupTemplates``.
"""

from __future__ import annotations

from typing import Literal

from kubedra.api.models.base import Int32, KubeModel, KubeObject
from kubedra.api.models.meta import ObjectMeta
from kubedra.api.models.scheduling import (
    PodGroupResourceClaim,
    PodGroupSchedulingConstraints,
    PodGroupSchedulingPolicy,
    PodGroupStatus,
    TypedLocalObjectReference,
)

SCHEDULING_V1ALPHA2 = "scheduling.k8s.io/v1alpha2"


class PodGroupTemplateV1Alpha2(KubeModel):
    name: str | None = None
    scheduling_policy: PodGroupSchedulingPolicy | None = None
    scheduling_constraints: PodGroupSchedulingConstraints | None = None
    resource_claims: list[PodGroupResourceClaim] | None = None
    disruption_mode: str | None = None
    priority_class_name: str | None = None
    priority: Int32 | None = None


class WorkloadSpecV1Alpha2(KubeModel):
    controller_ref: TypedLocalObjectReference | None = None
    pod_group_templates: list[PodGroupTemplateV1Alpha2] | None = None


class WorkloadV1Alpha2(KubeObject):
    api_version: Literal["scheduling.k8s.io/v1alpha2"] = "scheduling.k8s.io/v1alpha2"
    kind: Literal["Workload"] = "Workload"
    metadata: ObjectMeta | None = None
    spec: WorkloadSpecV1Alpha2 | None = None


class WorkloadPodGroupTemplateReference(KubeModel):
    workload_name: str | None = None
    pod_group_template_name: str | None = None


class PodGroupTemplateReference(KubeModel):
    workload: WorkloadPodGroupTemplateReference | None = None


class PodGroupSpecV1Alpha2(KubeModel):
    pod_group_template_ref: PodGroupTemplateReference | None = None
    scheduling_policy: PodGroupSchedulingPolicy | None = None
    scheduling_constraints: PodGroupSchedulingConstraints | None = None
    resource_claims: list[PodGroupResourceClaim] | None = None
    disruption_mode: str | None = None
    priority_class_name: str | None = None
    priority: Int32 | None = None


class PodGroupV1Alpha2(KubeObject):
    api_version: Literal["scheduling.k8s.io/v1alpha2"] = "scheduling.k8s.io/v1alpha2"
    kind: Literal["PodGroup"] = "PodGroup"
    metadata: ObjectMeta | None = None
    spec: PodGroupSpecV1Alpha2 | None = None
    status: PodGroupStatus | None = None
