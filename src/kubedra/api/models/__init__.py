"""Typed wire models of the Kubernetes objects kubedra understands.

Every model maps camelCase JSON fields to snake_case attributes, keeps unknown fields, and
writes itself back with :meth:`KubeModel.to_wire`. :data:`KINDS` maps ``(apiVersion, kind)`` of
each supported top-level object to its model.
"""

from __future__ import annotations

from kubedra.api.models.base import KubeModel, KubeObject
from kubedra.api.models.coordination import Lease
from kubedra.api.models.core import (
    Affinity,
    Container,
    ContainerResourceClaim,
    Event,
    Namespace,
    Node,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PodResourceClaim,
    PodSpec,
    PodStatus,
    PriorityClass,
    ResourceRequirements,
    Taint,
    Toleration,
)
from kubedra.api.models.meta import Condition, ListMeta, ObjectMeta, OwnerReference
from kubedra.api.models.policy import PodDisruptionBudget
from kubedra.api.models.pool_status import ResourcePoolStatusRequest
from kubedra.api.models.resource import (
    AllocatedDeviceStatus,
    AllocationResult,
    CapacityRequestPolicy,
    CapacityRequestPolicyRange,
    CapacityRequirements,
    CELDeviceSelector,
    Counter,
    CounterSet,
    Device,
    DeviceAllocationConfiguration,
    DeviceAllocationResult,
    DeviceAttribute,
    DeviceCapacity,
    DeviceClaim,
    DeviceClaimConfiguration,
    DeviceClass,
    DeviceClassConfiguration,
    DeviceClassSpec,
    DeviceConstraint,
    DeviceCounterConsumption,
    DeviceDerivedAttribute,
    DeviceRequest,
    DeviceRequestAllocationResult,
    DeviceSelector,
    DeviceSubRequest,
    DeviceTaint,
    DeviceTaintRule,
    DeviceTaintRuleSpec,
    DeviceTaintRuleStatus,
    DeviceTaintSelector,
    DeviceToleration,
    ExactDeviceRequest,
    NetworkDeviceData,
    OpaqueDeviceConfiguration,
    ResourceClaim,
    ResourceClaimConsumerReference,
    ResourceClaimSpec,
    ResourceClaimStatus,
    ResourceClaimTemplate,
    ResourceClaimTemplateSpec,
    ResourcePool,
    ResourceSlice,
    ResourceSliceSpec,
)
from kubedra.api.models.scheduling import CompositePodGroup, PodGroup, Workload
from kubedra.api.models.scheduling_v1alpha2 import PodGroupV1Alpha2, WorkloadV1Alpha2

KINDS: dict[tuple[str, str], type[KubeObject]] = {
    ("resource.k8s.io/v1", "DeviceClass"): DeviceClass,
    ("resource.k8s.io/v1", "ResourceClaim"): ResourceClaim,
    ("resource.k8s.io/v1", "ResourceClaimTemplate"): ResourceClaimTemplate,
    ("resource.k8s.io/v1", "ResourceSlice"): ResourceSlice,
    ("resource.k8s.io/v1", "DeviceTaintRule"): DeviceTaintRule,
    ("resource.k8s.io/v1alpha3", "ResourcePoolStatusRequest"): ResourcePoolStatusRequest,
    ("v1", "Pod"): Pod,
    ("v1", "Node"): Node,
    ("v1", "Namespace"): Namespace,
    ("scheduling.k8s.io/v1", "PriorityClass"): PriorityClass,
    ("scheduling.k8s.io/v1beta1", "Workload"): Workload,
    ("scheduling.k8s.io/v1beta1", "PodGroup"): PodGroup,
    ("scheduling.k8s.io/v1alpha3", "CompositePodGroup"): CompositePodGroup,
    ("scheduling.k8s.io/v1alpha2", "Workload"): WorkloadV1Alpha2,
    ("scheduling.k8s.io/v1alpha2", "PodGroup"): PodGroupV1Alpha2,
    ("policy/v1", "PodDisruptionBudget"): PodDisruptionBudget,
}
"""The model of each supported object in the version it is stored as, by (apiVersion, kind).

``Event`` and ``Lease`` have models too but are not here: kubedra's apiserver serves them (made
from the simulation), nothing loads or stores them.

The Workload API kinds have a model per release's version (``kubedra.api.scheduling_versions``
says which release serves which)."""

NAMESPACED_KINDS = frozenset(
    {
        "ResourceClaim",
        "ResourceClaimTemplate",
        "Pod",
        "Workload",
        "PodGroup",
        "PodGroupV1Alpha2",
        "CompositePodGroup",
        "PodDisruptionBudget",
    }
)
"""Kinds whose objects live in a namespace; every other supported kind is cluster-scoped."""

FULLY_MODELED_GROUPS = frozenset({"resource.k8s.io", "scheduling.k8s.io"})
"""API groups whose models cover every field, so that an unknown field is an error."""

__all__ = [
    "FULLY_MODELED_GROUPS",
    "KINDS",
    "NAMESPACED_KINDS",
    "Affinity",
    "AllocatedDeviceStatus",
    "AllocationResult",
    "CELDeviceSelector",
    "CapacityRequestPolicy",
    "CapacityRequestPolicyRange",
    "CapacityRequirements",
    "CompositePodGroup",
    "Condition",
    "Container",
    "ContainerResourceClaim",
    "Counter",
    "CounterSet",
    "Device",
    "DeviceAllocationConfiguration",
    "DeviceAllocationResult",
    "DeviceAttribute",
    "DeviceCapacity",
    "DeviceClaim",
    "DeviceClaimConfiguration",
    "DeviceClass",
    "DeviceClassConfiguration",
    "DeviceClassSpec",
    "DeviceConstraint",
    "DeviceCounterConsumption",
    "DeviceDerivedAttribute",
    "DeviceRequest",
    "DeviceRequestAllocationResult",
    "DeviceSelector",
    "DeviceSubRequest",
    "DeviceTaint",
    "DeviceTaintRule",
    "DeviceTaintRuleSpec",
    "DeviceTaintRuleStatus",
    "DeviceTaintSelector",
    "DeviceToleration",
    "Event",
    "ExactDeviceRequest",
    "KubeModel",
    "KubeObject",
    "Lease",
    "ListMeta",
    "Namespace",
    "NetworkDeviceData",
    "Node",
    "NodeAffinity",
    "NodeSelector",
    "NodeSelectorRequirement",
    "NodeSelectorTerm",
    "ObjectMeta",
    "OpaqueDeviceConfiguration",
    "OwnerReference",
    "Pod",
    "PodDisruptionBudget",
    "PodGroup",
    "PodGroupV1Alpha2",
    "PodResourceClaim",
    "PodSpec",
    "PodStatus",
    "PriorityClass",
    "ResourceClaim",
    "ResourceClaimConsumerReference",
    "ResourceClaimSpec",
    "ResourceClaimStatus",
    "ResourceClaimTemplate",
    "ResourceClaimTemplateSpec",
    "ResourcePool",
    "ResourcePoolStatusRequest",
    "ResourceRequirements",
    "ResourceSlice",
    "ResourceSliceSpec",
    "Taint",
    "Toleration",
    "Workload",
    "WorkloadV1Alpha2",
]
