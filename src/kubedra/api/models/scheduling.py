"""``scheduling.k8s.io/v1alpha2`` Workload and PodGroup (KEP-4671 gang scheduling), partially
modeled: the fields the scheduler reads (``podGroupTemplates``, ``schedulingPolicy.gang
.minCount``, ``podGroupTemplateRef``); other fields are kept as written."""

from __future__ import annotations

from typing import Any, Literal

from kubedra.api.models.base import Int32, KubeModel, KubeObject
from kubedra.api.models.meta import ObjectMeta

SCHEDULING_V1ALPHA2 = "scheduling.k8s.io/v1alpha2"


class GangSchedulingPolicy(KubeModel):
    min_count: Int32 | None = None


class PodGroupSchedulingPolicy(KubeModel):
    basic: dict[str, Any] | None = None
    gang: GangSchedulingPolicy | None = None


class PodGroupTemplate(KubeModel):
    name: str | None = None
    scheduling_policy: PodGroupSchedulingPolicy | None = None


class WorkloadSpec(KubeModel):
    pod_group_templates: list[PodGroupTemplate] | None = None


class Workload(KubeObject):
    api_version: Literal["scheduling.k8s.io/v1alpha2"] = "scheduling.k8s.io/v1alpha2"
    kind: Literal["Workload"] = "Workload"
    metadata: ObjectMeta | None = None
    spec: WorkloadSpec | None = None


class PodGroupSpec(KubeModel):
    pod_group_template_ref: dict[str, Any] | None = None
    scheduling_policy: PodGroupSchedulingPolicy | None = None


class PodGroup(KubeObject):
    api_version: Literal["scheduling.k8s.io/v1alpha2"] = "scheduling.k8s.io/v1alpha2"
    kind: Literal["PodGroup"] = "PodGroup"
    metadata: ObjectMeta | None = None
    spec: PodGroupSpec | None = None
    status: dict[str, Any] | None = None
