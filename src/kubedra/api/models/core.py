"""The ``core/v1`` and ``scheduling.k8s.io/v1`` subset that DRA scheduling needs.

Pod and Node carry far more fields than kubedra models; those stay in the object (the models
allow extra fields) and are neither checked nor reported. The parts DRA scheduling reads are
typed: node selection, tolerations and taints, priority, resource claims and requests.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from kubedra.api.models.base import Int32, Int64, KubeModel, KubeObject, QuantityStr, Time
from kubedra.api.models.meta import ObjectMeta

ResourceList = dict[str, QuantityStr]


class NodeSelectorRequirement(KubeModel):
    key: str | None = None
    operator: str | None = None
    values: list[str] | None = None


class NodeSelectorTerm(KubeModel):
    match_expressions: list[NodeSelectorRequirement] | None = None
    match_fields: list[NodeSelectorRequirement] | None = None


class NodeSelector(KubeModel):
    """``v1.NodeSelector``: the terms are ORed, the requirements of one term ANDed."""

    node_selector_terms: list[NodeSelectorTerm] | None = None


class PreferredSchedulingTerm(KubeModel):
    weight: Int32 | None = None
    preference: NodeSelectorTerm | None = None


class NodeAffinity(KubeModel):
    required_during_scheduling_ignored_during_execution: NodeSelector | None = None
    preferred_during_scheduling_ignored_during_execution: list[PreferredSchedulingTerm] | None = (
        None
    )


class Affinity(KubeModel):
    node_affinity: NodeAffinity | None = None


class Toleration(KubeModel):
    key: str | None = None
    operator: str | None = None
    value: str | None = None
    effect: str | None = None
    toleration_seconds: Int64 | None = None


class Taint(KubeModel):
    key: str | None = None
    value: str | None = None
    effect: str | None = None
    time_added: Time | None = None


class ContainerResourceClaim(KubeModel):
    """``v1.ResourceClaim`` in ``containers[].resources.claims``: a pod claim (and request) used."""

    name: str | None = None
    request: str | None = None


class ResourceRequirements(KubeModel):
    limits: ResourceList | None = None
    requests: ResourceList | None = None
    claims: list[ContainerResourceClaim] | None = None


class Container(KubeModel):
    name: str | None = None
    image: str | None = None
    resources: ResourceRequirements | None = None


class PodResourceClaim(KubeModel):
    """``pod.spec.resourceClaims[]``: a claim by name, or one generated from a template."""

    name: str | None = None
    resource_claim_name: str | None = None
    resource_claim_template_name: str | None = None


class PodSpec(KubeModel):
    node_name: str | None = None
    node_selector: dict[str, str] | None = None
    affinity: Affinity | None = None
    tolerations: list[Toleration] | None = None
    priority: Int32 | None = None
    priority_class_name: str | None = None
    preemption_policy: str | None = None
    scheduler_name: str | None = None
    resource_claims: list[PodResourceClaim] | None = None
    containers: list[Container] | None = None
    init_containers: list[Container] | None = None
    overhead: ResourceList | None = None
    resources: ResourceRequirements | None = None
    restart_policy: str | None = None
    dns_policy: str | None = None
    termination_grace_period_seconds: Int64 | None = None


class PodResourceClaimStatus(KubeModel):
    name: str | None = None
    resource_claim_name: str | None = None


class PodCondition(KubeModel):
    type: str | None = None
    status: str | None = None
    reason: str | None = None
    message: str | None = None
    last_probe_time: Time | None = None
    last_transition_time: Time | None = None


class PodStatus(KubeModel):
    phase: str | None = None
    conditions: list[PodCondition] | None = None
    nominated_node_name: str | None = None
    resource_claim_statuses: list[PodResourceClaimStatus] | None = None


class Pod(KubeObject):
    api_version: Literal["v1"] = "v1"
    kind: Literal["Pod"] = "Pod"
    metadata: ObjectMeta | None = None
    spec: PodSpec | None = None
    status: PodStatus | None = None


class NodeSpec(KubeModel):
    unschedulable: bool | None = None
    taints: list[Taint] | None = None
    provider_id: str | None = Field(default=None, alias="providerID")
    pod_cidr: str | None = Field(default=None, alias="podCIDR")


class NodeCondition(KubeModel):
    type: str | None = None
    status: str | None = None
    reason: str | None = None
    message: str | None = None
    last_heartbeat_time: Time | None = None
    last_transition_time: Time | None = None


class NodeStatus(KubeModel):
    capacity: ResourceList | None = None
    allocatable: ResourceList | None = None
    conditions: list[NodeCondition] | None = None
    declared_features: list[str] | None = None
    """Features the kubelet declares (KEP-5328), e.g. DRAOptionalNodeOperations (1.37)."""


class Node(KubeObject):
    api_version: Literal["v1"] = "v1"
    kind: Literal["Node"] = "Node"
    metadata: ObjectMeta | None = None
    spec: NodeSpec | None = None
    status: NodeStatus | None = None


class NamespaceSpec(KubeModel):
    finalizers: list[str] | None = None


class NamespaceCondition(KubeModel):
    type: str | None = None
    status: str | None = None
    reason: str | None = None
    message: str | None = None
    last_transition_time: Time | None = None


class NamespaceStatus(KubeModel):
    phase: str | None = None
    conditions: list[NamespaceCondition] | None = None


class Namespace(KubeObject):
    api_version: Literal["v1"] = "v1"
    kind: Literal["Namespace"] = "Namespace"
    metadata: ObjectMeta | None = None
    spec: NamespaceSpec | None = None
    status: NamespaceStatus | None = None


class PriorityClass(KubeObject):
    api_version: Literal["scheduling.k8s.io/v1"] = "scheduling.k8s.io/v1"
    kind: Literal["PriorityClass"] = "PriorityClass"
    metadata: ObjectMeta | None = None
    value: Int32 | None = None
    global_default: bool | None = None
    description: str | None = None
    preemption_policy: str | None = None


class ObjectReference(KubeModel):
    """``v1.ObjectReference``: the object an Event is about."""

    kind: str | None = None
    namespace: str | None = None
    name: str | None = None
    uid: str | None = None
    api_version: str | None = None
    resource_version: str | None = None
    field_path: str | None = None


class EventSource(KubeModel):
    component: str | None = None
    host: str | None = None


class EventSeries(KubeModel):
    count: Int32 | None = None
    last_observed_time: Time | None = None


class Event(KubeObject):
    """``v1.Event``: what happened to an object (kubedra's apiserver records the scheduler's
    decisions as Events; they are served, not stored or loaded)."""

    api_version: Literal["v1"] = "v1"
    kind: Literal["Event"] = "Event"
    metadata: ObjectMeta | None = None
    involved_object: ObjectReference | None = None
    reason: str | None = None
    message: str | None = None
    source: EventSource | None = None
    first_timestamp: Time | None = None
    last_timestamp: Time | None = None
    count: Int32 | None = None
    type: str | None = None
    event_time: Time | None = None
    series: EventSeries | None = None
    action: str | None = None
    related: ObjectReference | None = None
    reporting_component: str | None = None
    reporting_instance: str | None = None
