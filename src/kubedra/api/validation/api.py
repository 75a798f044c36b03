"""Entry points: validate one object, render the apiserver's "is invalid" message."""

from __future__ import annotations

from collections.abc import Callable

from kubedra.api.validation.core_kinds import (
    validate_namespace,
    validate_node,
    validate_pod,
    validate_priority_class,
)
from kubedra.api.validation.errors import FieldError, go_quote, not_supported, type_invalid
from kubedra.api.validation.policy_kinds import validate_pod_disruption_budget
from kubedra.api.validation.pool_status import (
    validate_pool_status_request_update,
    validate_resource_pool_status_request,
)
from kubedra.api.validation.resource_kinds import (
    validate_device_class,
    validate_device_taint_rule,
    validate_resource_claim,
    validate_resource_claim_template,
    validate_resource_slice,
)
from kubedra.api.validation.scheduling_kinds import (
    validate_composite_pod_group,
    validate_pod_group,
    validate_workload,
)
from kubedra.api.validation.schema import KIND_SCHEMAS
from kubedra.api.validation.typecheck import check_types, json_type_name

Validator = Callable[[dict], list[FieldError]]

VALIDATORS: dict[str, Validator] = {
    "DeviceClass": validate_device_class,
    "ResourceClaim": validate_resource_claim,
    "ResourceClaimTemplate": validate_resource_claim_template,
    "ResourceSlice": validate_resource_slice,
    "DeviceTaintRule": validate_device_taint_rule,
    "Pod": validate_pod,
    "Node": validate_node,
    "Namespace": validate_namespace,
    "PriorityClass": validate_priority_class,
    "Workload": validate_workload,
    "PodGroup": validate_pod_group,
    "CompositePodGroup": validate_composite_pod_group,
    "PodDisruptionBudget": validate_pod_disruption_budget,
    "ResourcePoolStatusRequest": validate_resource_pool_status_request,
}

UpdateValidator = Callable[[dict, dict], list[FieldError]]

UPDATE_VALIDATORS: dict[str, UpdateValidator] = {
    "ResourcePoolStatusRequest": validate_pool_status_request_update,
}
"""Rules of an update beyond those of a create (immutable fields), by kind."""


def validate_update(new: dict, old: dict) -> list[FieldError]:
    """The errors of replacing ``old`` with ``new``: the create rules, then the kind's
    update rules (for the kinds that have any)."""
    errors = validate_object(new)
    if errors:
        return errors
    rule = UPDATE_VALIDATORS.get(str(new.get("kind")))
    return rule(new, old) if rule is not None else []


def validate_object(obj: dict) -> list[FieldError]:
    """Every validation error of one defaulted v1 wire object, in upstream order.

    Wrong types are reported first and alone, as the apiserver cannot decode such an object
    and never reaches validation.
    """
    if not isinstance(obj, dict):
        return [type_invalid("", json_type_name(obj), "must be of type object")]
    kind = obj.get("kind")
    if not isinstance(kind, str) or kind not in VALIDATORS:
        return [not_supported("kind", kind, sorted(VALIDATORS))]
    validator = VALIDATORS[kind]
    type_errors = check_types(obj, KIND_SCHEMAS[kind], "")
    if type_errors:
        return type_errors
    return validator(obj)


def qualified_kind(obj: dict) -> str:
    """``Kind.group`` as the apiserver names a kind in messages (``Pod`` for the core group)."""
    kind = _text(obj.get("kind"))
    api_version = _text(obj.get("apiVersion"))
    group = api_version.rpartition("/")[0]
    return f"{kind}.{group}" if group else f"{kind}"


def object_name(obj: dict) -> str:
    """``namespace/name`` for namespaced objects, ``name`` otherwise."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        meta = {}
    name = _text(meta.get("name")) or _text(meta.get("generateName"))
    namespace = _text(meta.get("namespace"))
    return f"{namespace}/{name}" if namespace else name


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def format_invalid(obj: dict, errors: list[FieldError]) -> str:
    """``<Kind.group> "<name>" is invalid: ...`` like ``apierrors.NewInvalid``.

    Identical messages are reported once; several distinct ones are bracketed and joined with
    ", " like ``utilerrors.NewAggregate``.
    """
    header = f"{qualified_kind(obj)} {go_quote(object_name(obj))} is invalid"
    messages: list[str] = []
    for error in errors:
        text = str(error)
        if text not in messages:
            messages.append(text)
    if not messages:
        return header
    if len(messages) == 1:
        return f"{header}: {messages[0]}"
    return f"{header}: [{', '.join(messages)}]"
