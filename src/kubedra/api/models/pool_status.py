"""``resource.k8s.io/v1alpha3`` ResourcePoolStatusRequest (KEP-5677, gate DRAResourcePoolStatus):
a one-shot request for the availability of a driver's pools, answered in its status by a
controller and immutable once answered.

Every field of k8s.io/api ``resource/v1alpha3/types.go`` as of the 1.37 development branch
(kubernetes/api master of 2026-07-24, after v0.37.0-beta.0). 1.36 served the kind without
``spec.defaultPartitionTypeAttribute`` and the pools' ``partitionSummary`` and
``shareableSummary`` (:mod:`kubedra.api.io.release_fields`).
"""

from __future__ import annotations

from typing import Final, Literal

from kubedra.api.models.base import Int32, Int64, KubeModel, KubeObject, QuantityStr
from kubedra.api.models.meta import Condition, ObjectMeta

API_VERSION: Final = "resource.k8s.io/v1alpha3"


class ResourcePoolStatusRequestSpec(KubeModel):
    driver: str | None = None
    pool_name: str | None = None
    limit: Int32 | None = None
    default_partition_type_attribute: str | None = None


class PartitionTypeStatus(KubeModel):
    attribute: str | None = None
    type: str | None = None
    total: Int32 | None = None
    allocatable: Int32 | None = None


class ShareableCapacityStatus(KubeModel):
    name: str | None = None
    total: QuantityStr | None = None
    consumed: QuantityStr | None = None
    available: QuantityStr | None = None


class ShareableSummaryStatus(KubeModel):
    fully_available_devices: Int32 | None = None
    partially_available_devices: Int32 | None = None
    capacity: list[ShareableCapacityStatus] | None = None


class PoolStatus(KubeModel):
    driver: str | None = None
    pool_name: str | None = None
    generation: Int64 | None = None
    resource_slice_count: Int32 | None = None
    total_devices: Int32 | None = None
    allocated_devices: Int32 | None = None
    available_devices: Int32 | None = None
    unavailable_devices: Int32 | None = None
    node_name: str | None = None
    validation_error: str | None = None
    partition_summary: list[PartitionTypeStatus] | None = None
    shareable_summary: ShareableSummaryStatus | None = None


class ResourcePoolStatusRequestStatus(KubeModel):
    pool_count: Int32 | None = None
    pools: list[PoolStatus] | None = None
    conditions: list[Condition] | None = None


class ResourcePoolStatusRequest(KubeObject):
    """Cluster-scoped; the spec is immutable, and the whole object once status is set."""

    api_version: Literal["resource.k8s.io/v1alpha3"] = API_VERSION
    kind: Literal["ResourcePoolStatusRequest"] = "ResourcePoolStatusRequest"
    metadata: ObjectMeta | None = None
    spec: ResourcePoolStatusRequestSpec | None = None
    status: ResourcePoolStatusRequestStatus | None = None
