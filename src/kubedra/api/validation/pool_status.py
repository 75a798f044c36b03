"""Validation of ``resource.k8s.io/v1alpha3`` ResourcePoolStatusRequest (KEP-5677).

Rules and messages from kubernetes/kubernetes ``pkg/apis/resource/validation/
validation_resourcepoolstatusrequest.go`` (the handwritten checks, which the declarative tags
of ``k8s.io/api/resource/v1alpha3/types.go`` cover with the same outcome) and the tags of
the 1.37 types for what only the tags check (``defaultPartitionTypeAttribute``,
``partitionSummary``, ``shareableSummary``, list sizes). Spec and status are immutable on
update (``spec`` always, ``status`` once it is set): :func:`validate_pool_status_request_update`.
"""

from __future__ import annotations

from kubedra.api.naming import byte_len
from kubedra.api.validation.claim_status import validate_conditions
from kubedra.api.validation.errors import (
    FieldError,
    child,
    index,
    invalid,
    required,
    too_long,
    too_many,
)
from kubedra.api.validation.meta import validate_object_meta
from kubedra.api.validation.names import name_is_dns_subdomain
from kubedra.api.validation.resource_common import (
    as_dict,
    as_list,
    as_str,
    validate_driver_name,
    validate_fully_qualified_name,
    validate_pool_name,
)
from kubedra.api.validation.resource_slice import validate_node_name

LIMIT_DEFAULT = 100
LIMIT_MAX = 1000
POOLS_MAX = 1000
CONDITIONS_MAX = 10
SUMMARY_ITEMS_MAX = 32
VALIDATION_ERROR_MAX_BYTES = 256


def validate_resource_pool_status_request(obj: dict) -> list[FieldError]:
    """A new request: metadata (cluster-scoped, a DNS subdomain name), spec, and a status if
    one is given (what ``/status`` accepts)."""
    errs = validate_object_meta(as_dict(obj.get("metadata")), False, name_is_dns_subdomain)
    errs.extend(_validate_spec(as_dict(obj.get("spec")), "spec"))
    if obj.get("status") is not None:
        errs.extend(_validate_status(as_dict(obj.get("status")), "status"))
    return errs


def validate_pool_status_request_update(new: dict, old: dict) -> list[FieldError]:
    """``ValidateResourcePoolStatusRequestUpdate`` and ``...StatusUpdate``: the spec never
    changes, the status not once it was set."""
    errs: list[FieldError] = []
    if new.get("spec") != old.get("spec"):
        errs.append(invalid("spec", new.get("spec"), "field is immutable"))
    if old.get("status") is not None and new.get("status") != old.get("status"):
        errs.append(invalid("status", new.get("status"), "field is immutable"))
    return errs


def _validate_spec(spec: dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    driver = as_str(spec.get("driver"))
    if not driver:
        errs.append(required(child(path, "driver"), "driver name is required"))
    else:
        errs.extend(validate_driver_name(driver, child(path, "driver")))
    pool = spec.get("poolName")
    if pool is not None:
        if not as_str(pool):
            errs.append(invalid(child(path, "poolName"), pool, "must not be empty when specified"))
        else:
            errs.extend(validate_pool_name(as_str(pool), child(path, "poolName")))
    limit = spec.get("limit")
    if isinstance(limit, int):
        if limit < 1:
            errs.append(invalid(child(path, "limit"), limit, "must be at least 1"))
        if limit > LIMIT_MAX:
            errs.append(invalid(child(path, "limit"), limit, f"must not exceed {LIMIT_MAX}"))
    attribute = spec.get("defaultPartitionTypeAttribute")
    if attribute is not None:
        errs.extend(
            validate_fully_qualified_name(
                as_str(attribute), child(path, "defaultPartitionTypeAttribute")
            )
        )
    return errs


def _non_negative(value: object, path: str, is_required: bool, minimum: int = 0) -> list:
    if value is None:
        return [required(path)] if is_required else []
    if isinstance(value, int) and value < minimum:
        detail = "must be non-negative" if minimum == 0 else f"must be at least {minimum}"
        return [invalid(path, value, detail)]
    return []


def _validate_status(status: dict, path: str) -> list[FieldError]:
    errs = _non_negative(status.get("poolCount"), child(path, "poolCount"), True)
    pools = as_list(status.get("pools"))
    if len(pools) > POOLS_MAX:
        errs.append(too_many(child(path, "pools"), len(pools), POOLS_MAX))
    else:
        for i, pool in enumerate(pools):
            errs.extend(_validate_pool(as_dict(pool), index(child(path, "pools"), i)))
    conditions = as_list(status.get("conditions"))
    if len(conditions) > CONDITIONS_MAX:
        errs.append(too_many(child(path, "conditions"), len(conditions), CONDITIONS_MAX))
    else:
        errs.extend(validate_conditions(conditions, child(path, "conditions")))
    return errs


def _validate_pool(pool: dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    driver = as_str(pool.get("driver"))
    if not driver:
        errs.append(required(child(path, "driver")))
    else:
        errs.extend(validate_driver_name(driver, child(path, "driver")))
    name = as_str(pool.get("poolName"))
    if not name:
        errs.append(required(child(path, "poolName")))
    else:
        errs.extend(validate_pool_name(name, child(path, "poolName")))
    node = pool.get("nodeName")
    if node is not None:
        if not as_str(node):
            errs.append(
                required(child(path, "nodeName"), "nodeName must not be empty when specified")
            )
        else:
            errs.extend(validate_node_name(as_str(node), child(path, "nodeName")))
    errs.extend(_non_negative(pool.get("generation"), child(path, "generation"), True))
    errs.extend(
        _non_negative(pool.get("resourceSliceCount"), child(path, "resourceSliceCount"), False, 1)
    )
    for field in ("totalDevices", "allocatedDevices", "availableDevices", "unavailableDevices"):
        errs.extend(_non_negative(pool.get(field), child(path, field), False))
    message = pool.get("validationError")
    if message is not None and byte_len(as_str(message)) > VALIDATION_ERROR_MAX_BYTES:
        errs.append(too_long(child(path, "validationError"), VALIDATION_ERROR_MAX_BYTES))
    errs.extend(_validate_partition_summary(pool.get("partitionSummary"), path))
    if pool.get("shareableSummary") is not None:
        errs.extend(
            _validate_shareable(as_dict(pool["shareableSummary"]), child(path, "shareableSummary"))
        )
    return errs


def _validate_partition_summary(value: object, pool_path: str) -> list[FieldError]:
    path = child(pool_path, "partitionSummary")
    entries = as_list(value)
    if len(entries) > SUMMARY_ITEMS_MAX:
        return [too_many(path, len(entries), SUMMARY_ITEMS_MAX)]
    errs: list[FieldError] = []
    seen: set[tuple[str, str]] = set()
    for i, entry in enumerate(entries):
        entry = as_dict(entry)
        item_path = index(path, i)
        for field in ("attribute", "type"):
            if not as_str(entry.get(field)):
                errs.append(required(child(item_path, field)))
        for field in ("total", "allocatable"):
            errs.extend(_non_negative(entry.get(field), child(item_path, field), True))
        pair = (as_str(entry.get("attribute")), as_str(entry.get("type")))
        if pair in seen:
            errs.append(invalid(item_path, entry, "duplicate entry"))
        seen.add(pair)
    return errs


def _validate_shareable(summary: dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for field in ("fullyAvailableDevices", "partiallyAvailableDevices"):
        errs.extend(_non_negative(summary.get(field), child(path, field), True))
    capacity = as_list(summary.get("capacity"))
    if len(capacity) > SUMMARY_ITEMS_MAX:
        errs.append(too_many(child(path, "capacity"), len(capacity), SUMMARY_ITEMS_MAX))
        return errs
    for i, entry in enumerate(capacity):
        entry = as_dict(entry)
        item_path = index(child(path, "capacity"), i)
        if not as_str(entry.get("name")):
            errs.append(required(child(item_path, "name")))
        for field in ("total", "consumed", "available"):
            if entry.get(field) is None:
                errs.append(required(child(item_path, field)))
    return errs
