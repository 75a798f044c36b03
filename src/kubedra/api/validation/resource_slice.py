"""ResourceSlice spec validation: node selection, devices, attributes, capacities, counters."""

from __future__ import annotations

import re
from collections.abc import Hashable

from kubedra.api.quantity import Quantity
from kubedra.api.validation.core_common import validate_node_selector
from kubedra.api.validation.errors import (
    FieldError,
    child,
    duplicate,
    forbidden,
    go_struct,
    index,
    invalid,
    key,
    not_found,
    not_supported,
    required,
    too_long,
)
from kubedra.api.validation.names import DNS1123_LABEL_MAX_LENGTH, byte_len, name_is_dns_subdomain
from kubedra.api.validation.quantities import parse_quantity
from kubedra.api.validation.request_policy import validate_request_policy
from kubedra.api.validation.resource_common import (
    ATTRIBUTE_AND_CAPACITY_MAX_KEY_LENGTH,
    as_dict,
    as_list,
    as_str,
    no_item_checks,
    validate_binding_parameters,
    validate_counter_name,
    validate_device_name,
    validate_device_taint,
    validate_driver_name,
    validate_fully_qualified_name,
    validate_list,
    validate_map,
    validate_pool_name,
    validate_qualified_name,
    validate_set,
)

RESOURCE_SLICE_MAX_DEVICES = 128
RESOURCE_SLICE_MAX_DEVICES_WITH_ADVANCED_FEATURES = 64
MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE = 32
MAX_ATTRIBUTE_VALUES_PER_DEVICE = 48
DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH = 64
DEVICE_TAINTS_MAX_LENGTH = 16
MAX_COUNTER_SETS = 8
MAX_COUNTERS_PER_COUNTER_SET = 32
MAX_COUNTER_CONSUMPTIONS_PER_DEVICE = 2
MAX_COUNTERS_PER_COUNTER_CONSUMPTION = 32

_NODE_SELECTION_FIELDS = "`nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection`"
_DEVICE_NODE_SELECTION_DETAIL = (
    "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
    "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"
)
_NUMERIC = r"(0|[1-9]\d*)"
_PRERELEASE = r"(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)"
_BUILD = r"[0-9a-zA-Z-]+"
SEMVER_RE = re.compile(
    rf"{_NUMERIC}\.{_NUMERIC}\.{_NUMERIC}"
    rf"(-{_PRERELEASE}(\.{_PRERELEASE})*)?"
    rf"(\+{_BUILD}(\.{_BUILD})*)?"
)
_LIST_ATTRIBUTE_FIELDS = ("ints", "bools", "strings", "versions")
_LIST_ATTRIBUTE_KEYS = frozenset(_LIST_ATTRIBUTE_FIELDS)
_NODE_ALLOCATABLE_NAMES = {"cpu", "memory", "ephemeral-storage"}


def validate_resource_slice_spec(spec: dict, path: str) -> list[FieldError]:
    errs = validate_driver_name(as_str(spec.get("driver")), child(path, "driver"))
    errs.extend(_validate_pool(as_dict(spec.get("pool")), child(path, "pool")))
    errs.extend(_validate_node_selection(spec, path))
    if spec.get("sharedCounters") is not None and spec.get("devices") is not None:
        errs.append(invalid(path, "", "only one of `sharedCounters` or `devices` is allowed"))
    devices = as_list(spec.get("devices"))
    max_devices = RESOURCE_SLICE_MAX_DEVICES
    if _uses_advanced_features(devices):
        max_devices = RESOURCE_SLICE_MAX_DEVICES_WITH_ADVANCED_FEATURES
    per_device = spec.get("perDeviceNodeSelection")
    errs.extend(
        validate_set(
            devices,
            max_devices,
            lambda device, p: _validate_device(as_dict(device), p, per_device),
            lambda device: as_str(as_dict(device).get("name")),
            child(path, "devices"),
        )
    )
    errs.extend(
        validate_set(
            as_list(spec.get("sharedCounters")),
            MAX_COUNTER_SETS,
            lambda counter_set, p: _validate_counter_set(as_dict(counter_set), p),
            lambda counter_set: as_str(as_dict(counter_set).get("name")),
            child(path, "sharedCounters"),
        )
    )
    if spec.get("partitionTypeAttribute") is not None:
        errs.extend(_validate_partition_type_attribute(spec, path))
    errs.extend(
        validate_skip_node_operations(
            spec.get("skipNodeOperations"), child(path, "skipNodeOperations")
        )
    )
    return errs


def _validate_pool(pool: dict, path: str) -> list[FieldError]:
    errs = validate_pool_name(as_str(pool.get("name")), child(path, "name"))
    count = pool.get("resourceSliceCount")
    count = count if isinstance(count, int) else 0
    if count <= 0:
        errs.append(invalid(child(path, "resourceSliceCount"), count, "must be greater than zero"))
    generation = pool.get("generation")
    generation = generation if isinstance(generation, int) else 0
    if generation < 0:
        errs.append(
            invalid(child(path, "generation"), generation, "must be greater than or equal to zero")
        )
    return errs


def validate_node_name(name: str, path: str) -> list[FieldError]:
    return [invalid(path, name, msg) for msg in name_is_dns_subdomain(name, False)]


def go_node_selector_terms(terms: object) -> object:
    """NodeSelectorTerms as the internal Go structs print in messages (null when unset)."""
    if terms is None:
        return None

    def requirement(req: object) -> dict:
        req = as_dict(req)
        return {
            "Key": as_str(req.get("key")),
            "Operator": as_str(req.get("operator")),
            "Values": req.get("values"),
        }

    return [
        {
            "MatchExpressions": [
                requirement(r) for r in as_list(as_dict(t).get("matchExpressions"))
            ]
            or None,
            "MatchFields": [requirement(r) for r in as_list(as_dict(t).get("matchFields"))] or None,
        }
        for t in as_list(terms)
    ]


def _validate_node_selection(spec: dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    set_fields: list[str] = []
    node_name = spec.get("nodeName")
    if node_name is not None:
        if node_name != "":
            set_fields.append("`nodeName`")
            errs.extend(validate_node_name(as_str(node_name), child(path, "nodeName")))
        else:
            errs.append(
                invalid(
                    child(path, "nodeName"), "", "must be either unset or set to a non-empty string"
                )
            )
    node_selector = spec.get("nodeSelector")
    if node_selector is not None:
        set_fields.append("`nodeSelector`")
        selector = as_dict(node_selector)
        errs.extend(validate_node_selector(selector, child(path, "nodeSelector")))
        terms = selector.get("nodeSelectorTerms")
        if len(as_list(terms)) != 1:
            errs.append(
                invalid(
                    child(path, "nodeSelector", "nodeSelectorTerms"),
                    go_node_selector_terms(terms),
                    "must have exactly one node selector term",
                )
            )
    for field_name in ("allNodes", "perDeviceNodeSelection"):
        flag = spec.get(field_name)
        if flag is None:
            continue
        if flag is True:
            set_fields.append(f"`{field_name}`")
        else:
            errs.append(
                invalid(child(path, field_name), False, "must be either unset or set to true")
            )
    if not set_fields:
        errs.append(required(path, f"exactly one of {_NODE_SELECTION_FIELDS} is required"))
    elif len(set_fields) > 1:
        errs.append(
            invalid(
                path,
                "{" + ", ".join(set_fields) + "}",
                f"exactly one of {_NODE_SELECTION_FIELDS} is required, but multiple fields are set",
            )
        )
    return errs


def _has_list_attribute(device: dict) -> bool:
    for attr in as_dict(device.get("attributes")).values():
        attr = as_dict(attr)
        if not _LIST_ATTRIBUTE_KEYS.isdisjoint(attr) and any(
            attr.get(name) is not None for name in _LIST_ATTRIBUTE_FIELDS
        ):
            return True
    return False


def _uses_advanced_features(devices: list) -> bool:
    """Taints, counter consumption or list attributes lower the device limit to 64."""
    for device in devices:
        device = as_dict(device)
        if as_list(device.get("taints")) or as_list(device.get("consumesCounters")):
            return True
        if _has_list_attribute(device):
            return True
    return False


def _count_attribute_values(attributes: dict) -> int:
    """Scalars count one; list attributes count their items."""
    total = 0
    for attr in attributes.values():
        attr = as_dict(attr)
        if _LIST_ATTRIBUTE_KEYS.isdisjoint(attr):
            total += 1
            continue
        lists = sum(len(as_list(attr.get(name))) for name in _LIST_ATTRIBUTE_FIELDS)
        total += lists if lists else 1
    return total


def _validate_device(device: dict, path: str, per_device_selection: object) -> list[FieldError]:
    errs = validate_device_name(as_str(device.get("name")), child(path, "name"))
    attributes = as_dict(device.get("attributes"))
    capacity = as_dict(device.get("capacity"))
    combined = len(attributes) + len(capacity)
    if combined > MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE:
        errs.append(
            invalid(
                path,
                combined,
                "the total number of attributes and capacities must not exceed "
                f"{MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE}",
            )
        )
    values = _count_attribute_values(attributes)
    if values > MAX_ATTRIBUTE_VALUES_PER_DEVICE:
        errs.append(
            invalid(
                path,
                values,
                "the total number of attribute values must not exceed "
                f"{MAX_ATTRIBUTE_VALUES_PER_DEVICE}",
            )
        )
    errs.extend(
        validate_map(
            attributes,
            -1,
            ATTRIBUTE_AND_CAPACITY_MAX_KEY_LENGTH,
            validate_qualified_name,
            lambda attr, p: validate_device_attribute(as_dict(attr), p),
            child(path, "attributes"),
        )
    )
    shared = device.get("allowMultipleAllocations") is True
    errs.extend(
        validate_map(
            capacity,
            -1,
            ATTRIBUTE_AND_CAPACITY_MAX_KEY_LENGTH,
            validate_qualified_name,
            lambda cap, p: _validate_capacity(as_dict(cap), p, shared),
            child(path, "capacity"),
        )
    )
    errs.extend(
        validate_list(
            as_list(device.get("taints")),
            DEVICE_TAINTS_MAX_LENGTH,
            validate_device_taint,
            child(path, "taints"),
        )
    )
    errs.extend(
        validate_set(
            as_list(device.get("consumesCounters")),
            MAX_COUNTER_CONSUMPTIONS_PER_DEVICE,
            lambda consumption, p: _validate_counter_consumption(as_dict(consumption), p),
            lambda consumption: as_str(as_dict(consumption).get("counterSet")),
            child(path, "consumesCounters"),
        )
    )
    errs.extend(_validate_device_node_selection(device, path, per_device_selection is True))
    errs.extend(
        validate_binding_parameters(
            device.get("bindingConditions"), device.get("bindingFailureConditions"), path
        )
    )
    errs.extend(
        _validate_node_allocatable_resources(
            as_dict(device.get("nodeAllocatableResources")),
            capacity,
            child(path, "nodeAllocatableResources"),
        )
    )
    return errs


def _validate_device_node_selection(device: dict, path: str, per_device: bool) -> list:
    node_name = device.get("nodeName")
    node_selector = device.get("nodeSelector")
    all_nodes = device.get("allNodes")
    if not per_device:
        if node_name is not None or node_selector is not None or all_nodes is not None:
            return [
                invalid(
                    path,
                    None,
                    "`nodeName`, `nodeSelector` and `allNodes` can only be set if "
                    "`perDeviceNodeSelection` is set to true in the ResourceSlice spec",
                )
            ]
        return []
    errs: list[FieldError] = []
    set_fields: list[str] = []
    if node_name is not None:
        if node_name != "":
            set_fields.append("`nodeName`")
            errs.extend(validate_node_name(as_str(node_name), child(path, "nodeName")))
        else:
            errs.append(invalid(child(path, "nodeName"), "", "must not be empty"))
    if node_selector is not None:
        set_fields.append("`nodeSelector`")
        errs.extend(validate_node_selector(as_dict(node_selector), child(path, "nodeSelector")))
    if all_nodes is not None:
        if all_nodes is True:
            set_fields.append("`allNodes`")
        else:
            errs.append(
                invalid(child(path, "allNodes"), False, "must be either unset or set to true")
            )
    if not set_fields:
        errs.append(required(path, _DEVICE_NODE_SELECTION_DETAIL))
    elif len(set_fields) > 1:
        errs.append(invalid(path, "{" + ", ".join(set_fields) + "}", _DEVICE_NODE_SELECTION_DETAIL))
    return errs


def go_device_attribute(attr: dict) -> object:
    """A DeviceAttribute as the apiserver prints the internal struct in error messages."""
    return go_struct(
        ("IntValue", attr.get("int")),
        ("BoolValue", attr.get("bool")),
        ("StringValue", attr.get("string")),
        ("VersionValue", attr.get("version")),
        ("IntValues", attr.get("ints")),
        ("BoolValues", attr.get("bools")),
        ("StringValues", attr.get("strings")),
        ("VersionValues", attr.get("versions")),
    )


def validate_device_attribute(attr: dict, path: str) -> list[FieldError]:
    """Exactly one value; strings and versions at most 64 bytes; versions strict semver."""
    if len(attr) == 1 and (attr.get("int") is not None or attr.get("bool") is not None):
        return []  # the common case, and nothing to check
    errs: list[FieldError] = []
    num_fields = 0
    for scalar in ("bool", "int"):
        if attr.get(scalar) is not None:
            num_fields += 1
    if attr.get("string") is not None:
        num_fields += 1
        errs.extend(_validate_string_value(as_str(attr.get("string")), child(path, "string")))
    if attr.get("version") is not None:
        num_fields += 1
        errs.extend(_validate_version_value(as_str(attr.get("version")), child(path, "version")))
    for list_name in _LIST_ATTRIBUTE_FIELDS:
        values = attr.get(list_name)
        if values is None:
            continue
        num_fields += 1
        list_path = child(path, list_name)
        if not as_list(values):
            errs.append(invalid(list_path, values, "must not be empty if specified"))
        if list_name == "strings":
            for i, item in enumerate(as_list(values)):
                errs.extend(_validate_string_value(as_str(item), index(list_path, i)))
        elif list_name == "versions":
            for i, item in enumerate(as_list(values)):
                errs.extend(_validate_version_value(as_str(item), index(list_path, i)))
    if num_fields == 0:
        errs.append(invalid(path, "", "exactly one value must be specified"))
    elif num_fields > 1:
        errs.append(invalid(path, go_device_attribute(attr), "exactly one value must be specified"))
    return errs


def _validate_string_value(value: str, path: str) -> list[FieldError]:
    if byte_len(value) > DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH:
        return [too_long(path, DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH)]
    return []


def _validate_version_value(value: str, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if SEMVER_RE.fullmatch(value) is None:
        errs.append(invalid(path, value, "must be a string compatible with semver.org spec 2.0.0"))
    if byte_len(value) > DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH:
        errs.append(too_long(path, DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH))
    return errs


def _validate_capacity(capacity: dict, path: str, shared: bool) -> list[FieldError]:
    policy = capacity.get("requestPolicy")
    if policy is None:
        return []
    policy_path = child(path, "requestPolicy")
    if not shared:
        return [forbidden(policy_path, "allowMultipleAllocations must be true")]
    value = parse_quantity(capacity.get("value")) or Quantity.parse("0")
    return validate_request_policy(value, as_dict(policy), policy_path)


def _validate_counters(counters: dict, path: str) -> list[FieldError]:
    return validate_map(
        counters,
        MAX_COUNTERS_PER_COUNTER_SET,
        DNS1123_LABEL_MAX_LENGTH,
        validate_counter_name,
        no_item_checks,
        path,
    )


def _validate_counter_set(counter_set: dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    name = as_str(counter_set.get("name"))
    if not name:
        errs.append(required(child(path, "name")))
    else:
        errs.extend(validate_counter_name(name, child(path, "name")))
    counters = as_dict(counter_set.get("counters"))
    if not counters:
        errs.append(required(child(path, "counters")))
    else:
        errs.extend(_validate_counters(counters, child(path, "counters")))
    return errs


def _validate_counter_consumption(consumption: dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    counter_set = as_str(consumption.get("counterSet"))
    if not counter_set:
        errs.append(required(child(path, "counterSet")))
    else:
        errs.extend(validate_counter_name(counter_set, child(path, "counterSet")))
    groups = consumption.get("compatibilityGroups")
    if groups is not None:
        errs.extend(
            validate_set(
                as_list(groups),
                MAX_COMPATIBILITY_GROUPS,
                # +k8s:eachVal=+k8s:format=k8s-short-name: each a DNS label.
                lambda group, p: validate_counter_name(as_str(group), p),
                lambda group: group if isinstance(group, Hashable) else repr(group),
                child(path, "compatibilityGroups"),
            )
        )
    counters = as_dict(consumption.get("counters"))
    if not counters:
        errs.append(required(child(path, "counters")))
    else:
        errs.extend(
            validate_map(
                counters,
                MAX_COUNTERS_PER_COUNTER_CONSUMPTION,
                DNS1123_LABEL_MAX_LENGTH,
                validate_counter_name,
                no_item_checks,
                child(path, "counters"),
            )
        )
    return errs


def _validate_partition_type_attribute(spec: dict, path: str) -> list[FieldError]:
    name = as_str(spec.get("partitionTypeAttribute"))
    devices = [as_dict(d) for d in as_list(spec.get("devices"))]
    consuming = [(i, d) for i, d in enumerate(devices) if as_list(d.get("consumesCounters"))]
    if not consuming:
        return [
            invalid(
                child(path, "partitionTypeAttribute"),
                name,
                "may only be set on a slice which declares devices that consume counters",
            )
        ]
    name_errors = validate_fully_qualified_name(name, child(path, "partitionTypeAttribute"))
    if name_errors:
        return name_errors
    driver = as_str(spec.get("driver"))
    bare = name[len(driver) + 1 :] if name.startswith(driver + "/") else ""
    errs: list[FieldError] = []
    for i, device in consuming:
        attributes = as_dict(device.get("attributes"))
        attr_path = key(child(index(child(path, "devices"), i), "attributes"), name)
        attr = attributes.get(name)
        if attr is None and bare:
            attr = attributes.get(bare)
        if attr is None:
            errs.append(
                required(
                    attr_path,
                    "device consumes counters and `partitionTypeAttribute` names this attribute, "
                    "so it must be set",
                )
            )
        elif as_dict(attr).get("string") is None:
            errs.append(
                invalid(
                    attr_path,
                    go_device_attribute(as_dict(attr)),
                    "must be a string value because `partitionTypeAttribute` names this attribute",
                )
            )
    return errs


SKIP_NODE_OPERATIONS = ("*", "NodePrepareResources", "NodeUnprepareResources")
"""The ``SkipNodeOperation`` enum (``+k8s:enum``), sorted as upstream lists supported values."""


def validate_skip_node_operations(operations: object, path: str) -> list[FieldError]:
    """``+k8s:listType=set`` (a Duplicate per repeat), the enum per item, then the manual rule
    that NodePrepareResources is only skipped together with NodeUnprepareResources."""
    ops = as_list(operations)
    errs: list[FieldError] = []
    seen: set[object] = set()
    for i, op in enumerate(ops):
        if op in seen:
            errs.append(duplicate(index(path, i), op))
        elif isinstance(op, Hashable):
            seen.add(op)
    for i, op in enumerate(ops):
        if op not in SKIP_NODE_OPERATIONS:
            errs.append(not_supported(index(path, i), op, list(SKIP_NODE_OPERATIONS)))
    if "NodePrepareResources" in ops and not {"NodeUnprepareResources", "*"} & set(ops):
        errs.append(
            invalid(
                path,
                ops,
                "NodePrepareResources cannot be skipped unless NodeUnprepareResources "
                "is also skipped",
            )
        )
    return errs


MAX_COMPATIBILITY_GROUPS = 2
"""``consumesCounters[].compatibilityGroups``: at most 2 names, unique (KEP-5963, 1.37)."""


def _validate_node_allocatable_resources(mappings: dict, capacity: dict, path: str) -> list:
    errs: list[FieldError] = []
    for resource_name, mapping in mappings.items():
        mapping = as_dict(mapping)
        key_path = key(path, resource_name)
        if resource_name not in _NODE_ALLOCATABLE_NAMES and not resource_name.startswith(
            "hugepages-"
        ):
            errs.append(
                invalid(key_path, resource_name, "must be a node allocatable resource name")
            )
        if mapping.get("mapping") is None and mapping.get("overhead") is None:
            errs.append(required(key_path, "at least one of mapping or overhead must be set"))
        if mapping.get("mapping") is not None:
            errs.extend(
                _validate_allocatable_mapping(
                    as_dict(mapping["mapping"]), capacity, child(key_path, "mapping")
                )
            )
        if mapping.get("overhead") is not None:
            errs.extend(
                _validate_allocatable_overhead(
                    as_dict(mapping["overhead"]), child(key_path, "overhead")
                )
            )
    return errs


def _validate_allocatable_mapping(mapping: dict, capacity: dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    capacity_key = mapping.get("capacityKey")
    multiplier = parse_quantity(mapping.get("capacityMultiplier"))
    if capacity_key is not None:
        if capacity_key == "":
            errs.append(
                invalid(child(path, "capacityKey"), "", "capacityKey must not be an empty string")
            )
        elif capacity_key not in capacity:
            errs.append(not_found(child(path, "capacityKey"), capacity_key))
        if multiplier is None:
            errs.append(
                required(
                    child(path, "capacityMultiplier"),
                    "capacityMultiplier is required when capacityKey is set",
                )
            )
        elif multiplier.sign() <= 0:
            errs.append(
                invalid(child(path, "capacityMultiplier"), str(multiplier), "must be positive")
            )
    device_multiplier = parse_quantity(mapping.get("deviceMultiplier"))
    if device_multiplier is not None and device_multiplier.sign() <= 0:
        errs.append(
            invalid(child(path, "deviceMultiplier"), str(device_multiplier), "must be positive")
        )
    if multiplier is not None and capacity_key is None:
        errs.append(
            required(
                child(path, "capacityKey"), "capacityKey is required when capacityMultiplier is set"
            )
        )
    errs.extend(_validate_mapping_union(mapping, path))
    return errs


MAPPING_UNION = ("capacityKey", "deviceMultiplier")
"""``NodeAllocatableMapping``'s ``+k8s:unionMember`` fields: exactly one must be set."""


def _validate_mapping_union(mapping: dict, path: str) -> list[FieldError]:
    """``validate.Union``'s errors, word for word."""
    members = ", ".join(MAPPING_UNION)
    specified = [name for name in MAPPING_UNION if mapping.get(name) is not None]
    if not specified:
        return [invalid(path, "", f"must specify one of: {members}")]
    if len(specified) > 1:
        value = "{" + ", ".join(specified) + "}"
        return [invalid(path, value, f"must specify exactly one of: {members}")]
    return []


def _validate_allocatable_overhead(overhead: dict, path: str) -> list[FieldError]:
    per_pod = parse_quantity(overhead.get("perPod"))
    per_container = parse_quantity(overhead.get("perContainer"))
    if per_pod is None and per_container is None:
        return [invalid(path, "", "at least one of perPod or perContainer must be set")]
    errs: list[FieldError] = []
    if per_pod is not None and per_pod.sign() < 0:
        errs.append(invalid(child(path, "perPod"), str(per_pod), "must be non-negative"))
    if per_container is not None and per_container.sign() < 0:
        errs.append(
            invalid(child(path, "perContainer"), str(per_container), "must be non-negative")
        )
    return errs
