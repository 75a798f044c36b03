"""Building blocks shared by the resource.k8s.io validators: names, list/map limits,
selectors, opaque configuration, taints, tolerations and binding conditions."""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable
from functools import lru_cache
from typing import Any

from kubedra.api.validation.cel_checks import validate_selector_expression
from kubedra.api.validation.errors import (
    ErrorType,
    FieldError,
    child,
    duplicate,
    index,
    invalid,
    key,
    not_supported,
    required,
    too_long,
    too_many,
)
from kubedra.api.validation.names import (
    byte_len,
    is_c_identifier,
    is_dns1123_subdomain,
    validate_dns1123_label,
    validate_dns1123_subdomain,
    validate_label_name,
    validate_label_value,
)

DRIVER_NAME_MAX_LENGTH = 63
POOL_NAME_MAX_LENGTH = 253
DEVICE_MAX_DOMAIN_LENGTH = 63
DEVICE_MAX_ID_LENGTH = 32
ATTRIBUTE_AND_CAPACITY_MAX_KEY_LENGTH = DEVICE_MAX_DOMAIN_LENGTH + 1 + DEVICE_MAX_ID_LENGTH
DEVICE_SELECTORS_MAX_SIZE = 32
DEVICE_CONFIG_MAX_SIZE = 32
OPAQUE_PARAMETERS_MAX_LENGTH = 10 * 1024
BINDING_CONDITIONS_MAX_SIZE = 4
BINDING_FAILURE_CONDITIONS_MAX_SIZE = 4

DEVICE_TAINT_EFFECTS = ["NoExecute", "NoSchedule", "None"]  # sorted, as sets.List prints them
DEVICE_TOLERATION_OPERATORS = ["Equal", "Exists"]

ItemValidator = Callable[[Any, str], list[FieldError]]


def as_list(value: object) -> list:
    return value if isinstance(value, list) else []


def as_dict(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def as_str(value: object) -> str:
    return value if isinstance(value, str) else ""


def validate_list(items: list, max_size: int, validate_item: ItemValidator, path: str) -> list:
    """``validateSlice``: too many items short-circuits, otherwise each item is validated."""
    if max_size >= 0 and len(items) > max_size:
        return [too_many(path, len(items), max_size)]
    errs: list[FieldError] = []
    for i, item in enumerate(items):
        errs.extend(validate_item(item, index(path, i)))
    return errs


def validate_set(
    items: list,
    max_size: int,
    validate_item: ItemValidator,
    item_key: Callable[[Any], Hashable],
    path: str,
) -> list[FieldError]:
    """``validateSet``: like ``validate_list`` plus a Duplicate error per repeated key."""
    if max_size >= 0 and len(items) > max_size:
        return [too_many(path, len(items), max_size)]
    errs: list[FieldError] = []
    for i, item in enumerate(items):
        errs.extend(validate_item(item, index(path, i)))
    seen: set[Hashable] = set()
    for i, item in enumerate(items):
        item_id = item_key(item)
        if item_id in seen:
            errs.append(duplicate(index(path, i), item_id))
        else:
            seen.add(item_id)
    return errs


def truncate_key(text: str, max_len: int) -> str:
    """Map keys in error paths are shortened in the middle, as upstream does."""
    max_len = max(max_len, 16)
    if len(text) <= max_len:
        return text
    remaining = max_len - 3
    return text[: (remaining + 1) // 2] + "..." + text[len(text) - remaining // 2 :]


def validate_map(
    mapping: dict,
    max_size: int,
    truncate_len: int,
    validate_key: Callable[[str, str], list[FieldError]],
    validate_item: ItemValidator,
    path: str,
) -> list[FieldError]:
    """``validateMap``: key errors point at the map, item errors at ``map[key]``."""
    if max_size >= 0 and len(mapping) > max_size:
        return [too_many(path, len(mapping), max_size)]
    errs: list[FieldError] = []
    for map_key, item in mapping.items():
        errs.extend(validate_key(map_key, path))
        errs.extend(validate_item(item, key(path, truncate_key(map_key, truncate_len))))
    return errs


def no_item_checks(_item: object, _path: str) -> list[FieldError]:
    return []


def validate_driver_name(name: str, path: str) -> list[FieldError]:
    """Driver names follow CSI driver names: a DNS subdomain (case-insensitive), 63 bytes."""
    if not name:
        return [required(path)]
    errs: list[FieldError] = []
    if byte_len(name) > DRIVER_NAME_MAX_LENGTH:
        errs.append(too_long(path, DRIVER_NAME_MAX_LENGTH))
    errs.extend(invalid(path, name, msg) for msg in is_dns1123_subdomain(name.lower()))
    return errs


def validate_pool_name(name: str, path: str) -> list[FieldError]:
    """One or more DNS subdomains separated by '/', at most 253 bytes in total."""
    if not name:
        return [required(path)]
    errs: list[FieldError] = []
    if byte_len(name) > POOL_NAME_MAX_LENGTH:
        errs.append(too_long(path, POOL_NAME_MAX_LENGTH))
    for part in name.split("/"):
        errs.extend(validate_dns1123_subdomain(part, path))
    return errs


def validate_device_name(name: str, path: str) -> list[FieldError]:
    return validate_dns1123_label(name, path)


def validate_request_name(name: str, path: str) -> list[FieldError]:
    return validate_dns1123_label(name, path)


def validate_counter_name(name: str, path: str) -> list[FieldError]:
    return validate_dns1123_label(name, path)


def validate_device_class_name(name: str, path: str) -> list[FieldError]:
    if not name:
        return [required(path)]
    return validate_dns1123_subdomain(name, path)


def validate_c_identifier(ident: str, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if byte_len(ident) > DEVICE_MAX_ID_LENGTH:
        errs.append(too_long(path, DEVICE_MAX_ID_LENGTH))
    errs.extend(invalid(path, ident, msg) for msg in is_c_identifier(ident))
    return errs


def validate_qualified_name(name: str, path: str) -> list[FieldError]:
    """Attribute/capacity names: a C identifier, optionally prefixed by a domain and '/'.

    The same few names repeat on every device of a slice, so the verdict is cached per name.
    """
    problems = _qualified_name_problems(name)
    if not problems:
        return []
    return [FieldError(kind, path, value, detail) for kind, value, detail in problems]


@lru_cache(maxsize=16384)
def _qualified_name_problems(name: str) -> tuple[tuple[ErrorType, object, str], ...]:
    return tuple((e.type, e.bad_value, e.detail) for e in _check_qualified_name(name, ""))


def _check_qualified_name(name: str, path: str) -> list[FieldError]:
    parts = name.split("/")
    if len(parts) == 1:
        return validate_c_identifier(parts[0], path)
    if len(parts) > 2:
        return [invalid(path, name, "must not contain more than one slash")]
    domain, ident = parts
    errs: list[FieldError] = []
    if not domain:
        errs.append(invalid(path, "", "the domain must not be empty"))
    else:
        errs.extend(validate_driver_name(domain, path))
    if not ident:
        errs.append(invalid(path, "", "the name must not be empty"))
    else:
        errs.extend(validate_c_identifier(ident, path))
    return errs


def validate_fully_qualified_name(name: str, path: str) -> list[FieldError]:
    """Like a qualified name, but the domain is mandatory."""
    errs = validate_qualified_name(name, path)
    if "/" not in name:
        errs.append(
            invalid(
                path,
                name,
                "a fully qualified name must be a domain and a name separated by a slash",
            )
        )
    return errs


def validate_selectors(selectors: list, path: str) -> list[FieldError]:
    return validate_list(selectors, DEVICE_SELECTORS_MAX_SIZE, validate_selector, path)


def validate_selector(selector: object, path: str) -> list[FieldError]:
    cel = as_dict(selector).get("cel")
    if cel is None:
        return [required(child(path, "cel"))]
    expression = as_str(as_dict(cel).get("expression"))
    return validate_selector_expression(expression, child(path, "cel", "expression"))


def validate_device_configuration(config: object, path: str) -> list[FieldError]:
    """A device configuration must carry ``opaque`` driver parameters."""
    opaque = as_dict(config).get("opaque")
    if opaque is None:
        return [required(child(path, "opaque"))]
    opaque_path = child(path, "opaque")
    opaque = as_dict(opaque)
    errs = validate_driver_name(as_str(opaque.get("driver")), child(opaque_path, "driver"))
    errs.extend(
        validate_raw_extension(
            opaque.get("parameters"), child(opaque_path, "parameters"), OPAQUE_PARAMETERS_MAX_LENGTH
        )
    )
    return errs


def validate_raw_extension(value: object, path: str, max_length: int) -> list[FieldError]:
    """Opaque JSON: required, at most ``max_length`` bytes, and a JSON object."""
    if value is None:
        return [required(path)]
    raw = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    if byte_len(raw) > max_length:
        return [too_long(path, max_length)]
    if not isinstance(value, dict):
        return [invalid(path, "<value omitted>", "must be a valid JSON object")]
    return []


def validate_device_taint(taint: object, path: str) -> list[FieldError]:
    taint = as_dict(taint)
    errs = validate_label_name(as_str(taint.get("key")), child(path, "key"))
    value = as_str(taint.get("value"))
    if value:
        errs.extend(validate_label_value(value, child(path, "value")))
    effect = as_str(taint.get("effect"))
    if not effect:
        errs.append(required(child(path, "effect")))
    elif effect not in DEVICE_TAINT_EFFECTS:
        errs.append(not_supported(child(path, "effect"), effect, DEVICE_TAINT_EFFECTS))
    return errs


def validate_device_toleration(toleration: object, path: str) -> list[FieldError]:
    toleration = as_dict(toleration)
    errs: list[FieldError] = []
    tol_key = as_str(toleration.get("key"))
    if tol_key:
        errs.extend(validate_label_name(tol_key, child(path, "key")))
    operator = as_str(toleration.get("operator"))
    value = as_str(toleration.get("value"))
    if operator == "Exists":
        if value:
            errs.append(invalid(child(path, "value"), value, "must be empty for operator `Exists`"))
    elif operator == "Equal":
        errs.extend(validate_label_value(value, child(path, "value")))
    elif not operator:
        errs.append(required(child(path, "operator")))
    else:
        errs.append(not_supported(child(path, "operator"), operator, DEVICE_TOLERATION_OPERATORS))
    effect = as_str(toleration.get("effect"))
    if effect and effect not in DEVICE_TAINT_EFFECTS:
        errs.append(not_supported(child(path, "effect"), effect, DEVICE_TAINT_EFFECTS))
    return errs


def validate_tolerations(tolerations: list, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, toleration in enumerate(tolerations):
        errs.extend(validate_device_toleration(toleration, index(path, i)))
    return errs


def validate_binding_parameters(
    raw_conditions: object, raw_failure_conditions: object, path: str
) -> list[FieldError]:
    """bindingConditions / bindingFailureConditions of a device or an allocation result.

    The raw wire values are shown in messages: an unset list prints as null, an empty one as [].
    """
    conditions = [as_str(c) for c in as_list(raw_conditions)]
    failure_conditions = [as_str(c) for c in as_list(raw_failure_conditions)]
    conditions_path = child(path, "bindingConditions")
    failures_path = child(path, "bindingFailureConditions")
    errs = validate_list(
        conditions, BINDING_CONDITIONS_MAX_SIZE, _validate_condition_name, conditions_path
    )
    errs.extend(
        validate_list(
            failure_conditions,
            BINDING_FAILURE_CONDITIONS_MAX_SIZE,
            _validate_condition_name,
            failures_path,
        )
    )
    seen: set[str] = set()
    for i, condition in enumerate(conditions):
        if condition in seen:
            errs.append(duplicate(index(conditions_path, i), condition))
        seen.add(condition)
    seen_failures: set[str] = set()
    for i, condition in enumerate(failure_conditions):
        if condition in seen_failures:
            errs.append(duplicate(index(failures_path, i), condition))
        seen_failures.add(condition)
        if condition in conditions:
            errs.append(
                invalid(
                    index(failures_path, i),
                    condition,
                    "bindingFailureConditions must not overlap with bindingConditions",
                )
            )
    if not conditions and failure_conditions:
        errs.append(
            invalid(
                conditions_path,
                raw_conditions,
                "bindingConditions are required to use bindingFailureConditions",
            )
        )
    if not failure_conditions and conditions:
        errs.append(
            invalid(
                failures_path,
                raw_failure_conditions,
                "bindingFailureConditions are required to use bindingConditions",
            )
        )
    return errs


def _validate_condition_name(condition: object, path: str) -> list[FieldError]:
    return validate_label_name(as_str(condition), path)
