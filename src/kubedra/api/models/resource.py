"""``resource.k8s.io/v1``: every type and field of the API (k8s.io/api/resource/v1), as the
union of the supported releases; :mod:`kubedra.api.io.release_fields` says which has which.

Enumerations are plain strings here: an unknown enum value is a validation error with the
apiserver's wording (``Unsupported value``), not a decoding error, so the model must accept it.
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import Field

from kubedra.api.models.base import Int64, KubeModel, KubeObject, QuantityStr, RawJSON, Time
from kubedra.api.models.core import NodeSelector
from kubedra.api.models.meta import Condition, ObjectMeta

API_VERSION: Final = "resource.k8s.io/v1"


# --- ResourceSlice ------------------------------------------------------------------------


class ResourcePool(KubeModel):
    name: str | None = None
    generation: Int64 | None = None
    resource_slice_count: Int64 | None = None


class Counter(KubeModel):
    value: QuantityStr | None = None


class CounterSet(KubeModel):
    name: str | None = None
    counters: dict[str, Counter] | None = None


class DeviceAttribute(KubeModel):
    """Exactly one value: a scalar (int, bool, string, version) or a list of one of those."""

    int_value: Int64 | None = Field(default=None, alias="int")
    bool_value: bool | None = Field(default=None, alias="bool")
    string_value: str | None = Field(default=None, alias="string")
    version_value: str | None = Field(default=None, alias="version")
    int_values: list[Int64] | None = Field(default=None, alias="ints")
    bool_values: list[bool] | None = Field(default=None, alias="bools")
    string_values: list[str] | None = Field(default=None, alias="strings")
    version_values: list[str] | None = Field(default=None, alias="versions")


class CapacityRequestPolicyRange(KubeModel):
    min: QuantityStr | None = None
    max: QuantityStr | None = None
    step: QuantityStr | None = None


class CapacityRequestPolicy(KubeModel):
    default: QuantityStr | None = None
    valid_values: list[QuantityStr] | None = None
    valid_range: CapacityRequestPolicyRange | None = None


class DeviceCapacity(KubeModel):
    value: QuantityStr | None = None
    request_policy: CapacityRequestPolicy | None = None


class DeviceCounterConsumption(KubeModel):
    counter_set: str | None = None
    counters: dict[str, Counter] | None = None
    compatibility_groups: list[str] | None = None


class DeviceTaint(KubeModel):
    key: str | None = None
    value: str | None = None
    effect: str | None = None
    time_added: Time | None = None


class NodeAllocatableMapping(KubeModel):
    capacity_key: str | None = None
    capacity_multiplier: QuantityStr | None = None
    device_multiplier: QuantityStr | None = None


class NodeAllocatableOverhead(KubeModel):
    per_pod: QuantityStr | None = None
    per_container: QuantityStr | None = None


class NodeAllocatableResource(KubeModel):
    mapping: NodeAllocatableMapping | None = None
    overhead: NodeAllocatableOverhead | None = None


class NodeAllocatableResourceMapping(KubeModel):
    """Kubernetes 1.36 only: replaced by :class:`NodeAllocatableResource` in 1.37."""

    capacity_key: str | None = None
    allocation_multiplier: QuantityStr | None = None


class Device(KubeModel):
    name: str | None = None
    attributes: dict[str, DeviceAttribute] | None = None
    capacity: dict[str, DeviceCapacity] | None = None
    consumes_counters: list[DeviceCounterConsumption] | None = None
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool | None = None
    taints: list[DeviceTaint] | None = None
    binds_to_node: bool | None = None
    binding_conditions: list[str] | None = None
    binding_failure_conditions: list[str] | None = None
    allow_multiple_allocations: bool | None = None
    node_allocatable_resources: dict[str, NodeAllocatableResource] | None = None
    node_allocatable_resource_mappings: dict[str, NodeAllocatableResourceMapping] | None = None
    """Kubernetes 1.36 only (see :mod:`kubedra.api.io.release_fields`)."""


class ResourceSliceSpec(KubeModel):
    driver: str | None = None
    pool: ResourcePool | None = None
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool | None = None
    devices: list[Device] | None = None
    per_device_node_selection: bool | None = None
    shared_counters: list[CounterSet] | None = None
    partition_type_attribute: str | None = None
    skip_node_operations: list[str] | None = None


class ResourceSlice(KubeObject):
    """Devices of one pool (or counter sets shared by its devices) published by a driver."""

    api_version: Literal["resource.k8s.io/v1"] = API_VERSION
    kind: Literal["ResourceSlice"] = "ResourceSlice"
    metadata: ObjectMeta | None = None
    spec: ResourceSliceSpec | None = None


# --- DeviceClass and claims ---------------------------------------------------------------


class CELDeviceSelector(KubeModel):
    expression: str | None = None


class DeviceSelector(KubeModel):
    cel: CELDeviceSelector | None = None


class OpaqueDeviceConfiguration(KubeModel):
    driver: str | None = None
    parameters: RawJSON | None = None


class DeviceClassConfiguration(KubeModel):
    opaque: OpaqueDeviceConfiguration | None = None


class DeviceClassSpec(KubeModel):
    selectors: list[DeviceSelector] | None = None
    config: list[DeviceClassConfiguration] | None = None
    extended_resource_name: str | None = None


class DeviceClass(KubeObject):
    api_version: Literal["resource.k8s.io/v1"] = API_VERSION
    kind: Literal["DeviceClass"] = "DeviceClass"
    metadata: ObjectMeta | None = None
    spec: DeviceClassSpec | None = None


class DeviceToleration(KubeModel):
    key: str | None = None
    operator: str | None = None
    value: str | None = None
    effect: str | None = None
    toleration_seconds: Int64 | None = None


class CapacityRequirements(KubeModel):
    requests: dict[str, QuantityStr] | None = None


class DeviceDerivedAttribute(KubeModel):
    name: str | None = None
    expression: str | None = None


class ExactDeviceRequest(KubeModel):
    device_class_name: str | None = None
    selectors: list[DeviceSelector] | None = None
    allocation_mode: str | None = None
    count: Int64 | None = None
    admin_access: bool | None = None
    tolerations: list[DeviceToleration] | None = None
    capacity: CapacityRequirements | None = None
    derived_attributes: list[DeviceDerivedAttribute] | None = None


class DeviceSubRequest(KubeModel):
    name: str | None = None
    device_class_name: str | None = None
    selectors: list[DeviceSelector] | None = None
    allocation_mode: str | None = None
    count: Int64 | None = None
    tolerations: list[DeviceToleration] | None = None
    capacity: CapacityRequirements | None = None
    derived_attributes: list[DeviceDerivedAttribute] | None = None


class DeviceRequest(KubeModel):
    """One request: ``exactly`` one kind of device, or a prioritized ``firstAvailable`` list."""

    name: str | None = None
    exactly: ExactDeviceRequest | None = None
    first_available: list[DeviceSubRequest] | None = None


class DeviceConstraint(KubeModel):
    requests: list[str] | None = None
    match_attribute: str | None = None
    distinct_attribute: str | None = None


class DeviceClaimConfiguration(KubeModel):
    requests: list[str] | None = None
    opaque: OpaqueDeviceConfiguration | None = None


class DeviceClaim(KubeModel):
    requests: list[DeviceRequest] | None = None
    constraints: list[DeviceConstraint] | None = None
    config: list[DeviceClaimConfiguration] | None = None


class ResourceClaimSpec(KubeModel):
    devices: DeviceClaim | None = None


class DeviceRequestAllocationResult(KubeModel):
    request: str | None = None
    driver: str | None = None
    pool: str | None = None
    device: str | None = None
    admin_access: bool | None = None
    tolerations: list[DeviceToleration] | None = None
    binding_conditions: list[str] | None = None
    binding_failure_conditions: list[str] | None = None
    share_id: str | None = Field(default=None, alias="shareID")
    consumed_capacity: dict[str, QuantityStr] | None = None
    skip_node_operations: list[str] | None = None


class DeviceAllocationConfiguration(KubeModel):
    source: str | None = None
    requests: list[str] | None = None
    opaque: OpaqueDeviceConfiguration | None = None


class DeviceAllocationResult(KubeModel):
    results: list[DeviceRequestAllocationResult] | None = None
    config: list[DeviceAllocationConfiguration] | None = None


class AllocationResult(KubeModel):
    devices: DeviceAllocationResult | None = None
    node_selector: NodeSelector | None = None
    allocation_timestamp: Time | None = None


class ResourceClaimConsumerReference(KubeModel):
    api_group: str | None = None
    resource: str | None = None
    name: str | None = None
    uid: str | None = None


class NetworkDeviceData(KubeModel):
    interface_name: str | None = None
    ips: list[str] | None = None
    hardware_address: str | None = None


class AllocatedDeviceStatus(KubeModel):
    driver: str | None = None
    pool: str | None = None
    device: str | None = None
    share_id: str | None = Field(default=None, alias="shareID")
    conditions: list[Condition] | None = None
    data: RawJSON | None = None
    network_data: NetworkDeviceData | None = None


class ResourceClaimStatus(KubeModel):
    allocation: AllocationResult | None = None
    reserved_for: list[ResourceClaimConsumerReference] | None = None
    devices: list[AllocatedDeviceStatus] | None = None


class ResourceClaim(KubeObject):
    api_version: Literal["resource.k8s.io/v1"] = API_VERSION
    kind: Literal["ResourceClaim"] = "ResourceClaim"
    metadata: ObjectMeta | None = None
    spec: ResourceClaimSpec | None = None
    status: ResourceClaimStatus | None = None


class ResourceClaimTemplateSpec(KubeModel):
    metadata: ObjectMeta | None = None
    spec: ResourceClaimSpec | None = None


class ResourceClaimTemplate(KubeObject):
    api_version: Literal["resource.k8s.io/v1"] = API_VERSION
    kind: Literal["ResourceClaimTemplate"] = "ResourceClaimTemplate"
    metadata: ObjectMeta | None = None
    spec: ResourceClaimTemplateSpec | None = None


# --- DeviceTaintRule ----------------------------------------------------------------------


class DeviceTaintSelector(KubeModel):
    driver: str | None = None
    pool: str | None = None
    device: str | None = None


class DeviceTaintRuleSpec(KubeModel):
    device_selector: DeviceTaintSelector | None = None
    taint: DeviceTaint | None = None


class DeviceTaintRuleStatus(KubeModel):
    conditions: list[Condition] | None = None


class DeviceTaintRule(KubeObject):
    """Adds one taint to every device its selector matches, as if the driver had set it."""

    api_version: Literal["resource.k8s.io/v1"] = API_VERSION
    kind: Literal["DeviceTaintRule"] = "DeviceTaintRule"
    metadata: ObjectMeta | None = None
    spec: DeviceTaintRuleSpec | None = None
    status: DeviceTaintRuleStatus | None = None
