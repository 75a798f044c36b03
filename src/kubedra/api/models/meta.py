"""``metav1`` types: ObjectMeta as Kubernetes has it, ListMeta and Condition."""

from __future__ import annotations

from pydantic import Field

from kubedra.api.models.base import Int64, KubeModel, RawJSON, Time


class OwnerReference(KubeModel):
    api_version: str | None = None
    kind: str | None = None
    name: str | None = None
    uid: str | None = None
    controller: bool | None = None
    block_owner_deletion: bool | None = None


class ManagedFieldsEntry(KubeModel):
    manager: str | None = None
    operation: str | None = None
    api_version: str | None = None
    time: Time | None = None
    fields_type: str | None = None
    fields_v1: RawJSON | None = Field(default=None, alias="fieldsV1")
    subresource: str | None = None


class ObjectMeta(KubeModel):
    """Standard object metadata; every field of ``metav1.ObjectMeta``."""

    name: str | None = None
    generate_name: str | None = None
    namespace: str | None = None
    self_link: str | None = None
    uid: str | None = None
    resource_version: str | None = None
    generation: Int64 | None = None
    creation_timestamp: Time | None = None
    deletion_timestamp: Time | None = None
    deletion_grace_period_seconds: Int64 | None = None
    labels: dict[str, str] | None = None
    annotations: dict[str, str] | None = None
    owner_references: list[OwnerReference] | None = None
    finalizers: list[str] | None = None
    managed_fields: list[ManagedFieldsEntry] | None = None


class ListMeta(KubeModel):
    self_link: str | None = None
    resource_version: str | None = None
    continue_: str | None = Field(default=None, alias="continue")
    remaining_item_count: Int64 | None = None


class Condition(KubeModel):
    """``metav1.Condition``, used in device and taint-rule status."""

    type: str | None = None
    status: str | None = None
    observed_generation: Int64 | None = None
    last_transition_time: Time | None = None
    reason: str | None = None
    message: str | None = None
