"""ResourceClaim status: allocation results, reservations and per-device status.

The apiserver checks the status when it is written (status subresource); a claim loaded from a
file is treated like a first status write, so every result is validated as new.
"""

from __future__ import annotations

import ipaddress
import re

from kubedra.api.validation.core_common import validate_node_selector
from kubedra.api.validation.device_claim import (
    DEVICE_CONFIG_MAX_SIZE,
    RequestNames,
    validate_request_name_ref,
    validate_request_refs,
)
from kubedra.api.validation.errors import (
    FieldError,
    child,
    duplicate,
    forbidden,
    index,
    invalid,
    not_supported,
    required,
    too_long,
    too_many,
)
from kubedra.api.validation.names import byte_len, validate_label_name
from kubedra.api.validation.resource_common import (
    as_dict,
    as_list,
    as_str,
    validate_binding_parameters,
    validate_device_configuration,
    validate_device_name,
    validate_driver_name,
    validate_list,
    validate_pool_name,
    validate_raw_extension,
    validate_set,
    validate_tolerations,
)
from kubedra.api.validation.resource_slice import validate_skip_node_operations

RESERVED_FOR_MAX_SIZE = 256
ALLOCATION_RESULTS_MAX_SIZE = 32
DEVICE_STATUS_MAX_CONDITIONS = 8
DEVICE_STATUS_DATA_MAX_LENGTH = 10 * 1024
NETWORK_INTERFACE_NAME_MAX_LENGTH = 256
NETWORK_HARDWARE_ADDRESS_MAX_LENGTH = 128
NETWORK_MAX_IPS = 16
CONFIG_SOURCES = ["FromClaim", "FromClass"]
CONDITION_STATUSES = ["False", "True", "Unknown"]
_HEX = re.compile(r"[0-9a-fA-F]+")
_CONDITION_REASON = re.compile(r"[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?")


def validate_claim_status(status: dict, device_claim: dict, path: str) -> list[FieldError]:
    names = RequestNames(device_claim)
    reserved_for = as_list(status.get("reservedFor"))
    errs = validate_set(
        reserved_for,
        RESERVED_FOR_MAX_SIZE,
        _validate_consumer_reference,
        lambda ref: as_str(as_dict(ref).get("uid")),
        child(path, "reservedFor"),
    )
    allocation = status.get("allocation")
    allocated = _allocated_devices(as_dict(allocation))
    errs.extend(
        validate_set(
            as_list(status.get("devices")),
            -1,
            lambda device, p: _validate_device_status(as_dict(device), p, allocated),
            _device_status_key,
            child(path, "devices"),
        )
    )
    if reserved_for and allocation is None:
        errs.append(
            forbidden(
                child(path, "reservedFor"), "may not be specified when `allocated` is not set"
            )
        )
    if allocation is not None:
        errs.extend(_validate_allocation(as_dict(allocation), child(path, "allocation"), names))
    return errs


def _validate_consumer_reference(ref: object, path: str) -> list[FieldError]:
    ref = as_dict(ref)
    return [
        required(child(path, name))
        for name in ("resource", "name", "uid")
        if not as_str(ref.get(name))
    ]


def _device_status_key(device: object) -> tuple[str, str, str, str]:
    device = as_dict(device)
    return (
        as_str(device.get("driver")),
        as_str(device.get("pool")),
        as_str(device.get("device")),
        as_str(device.get("shareID")),
    )


def _allocated_devices(allocation: dict) -> set[tuple[str, str, str, str]]:
    results = as_list(as_dict(allocation.get("devices")).get("results"))
    return {
        (
            as_str(as_dict(r).get("driver")),
            as_str(as_dict(r).get("pool")),
            as_str(as_dict(r).get("device")),
            as_str(as_dict(r).get("shareID")),
        )
        for r in results
    }


def _validate_allocation(allocation: dict, path: str, names: RequestNames) -> list[FieldError]:
    devices = as_dict(allocation.get("devices"))
    devices_path = child(path, "devices")
    errs = validate_list(
        as_list(devices.get("results")),
        ALLOCATION_RESULTS_MAX_SIZE,
        lambda result, p: _validate_result(as_dict(result), p, names),
        child(devices_path, "results"),
    )
    errs.extend(
        validate_list(
            as_list(devices.get("config")),
            2 * DEVICE_CONFIG_MAX_SIZE,
            lambda config, p: _validate_allocation_config(as_dict(config), p, names),
            child(devices_path, "config"),
        )
    )
    if allocation.get("nodeSelector") is not None:
        errs.extend(
            validate_node_selector(as_dict(allocation["nodeSelector"]), child(path, "nodeSelector"))
        )
    return errs


def _validate_result(result: dict, path: str, names: RequestNames) -> list[FieldError]:
    errs = validate_request_name_ref(as_str(result.get("request")), child(path, "request"), names)
    errs.extend(validate_driver_name(as_str(result.get("driver")), child(path, "driver")))
    errs.extend(validate_pool_name(as_str(result.get("pool")), child(path, "pool")))
    errs.extend(validate_device_name(as_str(result.get("device")), child(path, "device")))
    errs.extend(
        validate_binding_parameters(
            result.get("bindingConditions"), result.get("bindingFailureConditions"), path
        )
    )
    errs.extend(
        validate_tolerations(as_list(result.get("tolerations")), child(path, "tolerations"))
    )
    if result.get("shareID") is not None:
        errs.extend(validate_uid(as_str(result.get("shareID")), child(path, "shareID")))
    errs.extend(
        validate_skip_node_operations(
            result.get("skipNodeOperations"), child(path, "skipNodeOperations")
        )
    )
    return errs


def _validate_allocation_config(config: dict, path: str, names: RequestNames) -> list[FieldError]:
    source = as_str(config.get("source"))
    errs: list[FieldError] = []
    if not source:
        errs.append(required(child(path, "source")))
    elif source not in CONFIG_SOURCES:
        errs.append(not_supported(child(path, "source"), source, CONFIG_SOURCES))
    errs.extend(
        validate_request_refs(as_list(config.get("requests")), child(path, "requests"), names)
    )
    errs.extend(validate_device_configuration(config, path))
    return errs


def _uuid_problem(uid: str) -> str | None:
    """What google/uuid's Validate says about a UUID string, or None when it parses."""
    text = uid
    if len(text) == 45:
        if text[:9].lower() != "urn:uuid:":
            return f"invalid urn prefix: {text[:9]!r}".replace("'", '"')
        text = text[9:]
    elif len(text) == 38:
        if text[0] != "{" or text[-1] != "}":
            return "invalid bracketed UUID format"
        text = text[1:-1]
    elif len(text) == 32:
        return None if _HEX.fullmatch(text) else "invalid UUID format"
    elif len(text) != 36:
        return f"invalid UUID length: {len(uid)}"
    if any(text[i] != "-" for i in (8, 13, 18, 23)):
        return "invalid UUID format"
    if not _HEX.fullmatch(text.replace("-", "")):
        return "invalid UUID format"
    return None


def validate_uid(uid: str, path: str) -> list[FieldError]:
    problem = _uuid_problem(uid)
    if problem is not None:
        return [invalid(path, uid, f"error validating uid: {problem}")]
    if len(uid) != 36 or uid != uid.lower():
        return [
            invalid(
                path,
                uid,
                "uid must be in RFC 4122 normalized form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` "
                "with lowercase hexadecimal characters",
            )
        ]
    return []


def _validate_device_status(device: dict, path: str, allocated: set) -> list[FieldError]:
    errs = validate_driver_name(as_str(device.get("driver")), child(path, "driver"))
    errs.extend(validate_pool_name(as_str(device.get("pool")), child(path, "pool")))
    errs.extend(validate_device_name(as_str(device.get("device")), child(path, "device")))
    if device.get("shareID") is not None:
        errs.extend(validate_uid(as_str(device.get("shareID")), child(path, "shareID")))
    device_key = _device_status_key(device)
    if device_key not in allocated:
        shown = "/".join(part for part in device_key if part)
        errs.append(invalid(path, shown, "must be an allocated device in the claim"))
    conditions = as_list(device.get("conditions"))
    conditions_path = child(path, "conditions")
    if len(conditions) > DEVICE_STATUS_MAX_CONDITIONS:
        errs.append(too_many(conditions_path, len(conditions), DEVICE_STATUS_MAX_CONDITIONS))
    errs.extend(validate_conditions(conditions, conditions_path))
    if device.get("data") is not None:
        errs.extend(
            validate_raw_extension(
                device["data"], child(path, "data"), DEVICE_STATUS_DATA_MAX_LENGTH
            )
        )
    if device.get("networkData") is not None:
        errs.extend(
            _validate_network_data(as_dict(device["networkData"]), child(path, "networkData"))
        )
    return errs


def validate_conditions(conditions: list, path: str) -> list[FieldError]:
    """``metav1validation.ValidateConditions``."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, condition in enumerate(conditions):
        condition = as_dict(condition)
        item_path = index(path, i)
        condition_type = as_str(condition.get("type"))
        if condition_type in seen:
            errs.append(duplicate(child(item_path, "type"), condition_type))
        seen.add(condition_type)
        errs.extend(validate_label_name(condition_type, child(item_path, "type")))
        status = as_str(condition.get("status"))
        if status not in CONDITION_STATUSES:
            errs.append(not_supported(child(item_path, "status"), status, CONDITION_STATUSES))
        observed = condition.get("observedGeneration")
        if isinstance(observed, int) and observed < 0:
            errs.append(
                invalid(
                    child(item_path, "observedGeneration"),
                    observed,
                    "must be greater than or equal to zero",
                )
            )
        if not as_str(condition.get("lastTransitionTime")):
            errs.append(required(child(item_path, "lastTransitionTime"), "must be set"))
        reason = as_str(condition.get("reason"))
        if not reason:
            errs.append(required(child(item_path, "reason"), "must be set"))
        else:
            if _CONDITION_REASON.fullmatch(reason) is None:
                errs.append(
                    invalid(
                        child(item_path, "reason"),
                        reason,
                        "a condition reason must start with alphabetic character, optionally "
                        "followed by a string of alphanumeric characters or '_,:', and must end "
                        "with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  "
                        "or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for "
                        "validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')",
                    )
                )
            if byte_len(reason) > 1024:
                errs.append(too_long(child(item_path, "reason"), 1024))
        if byte_len(as_str(condition.get("message"))) > 32 * 1024:
            errs.append(too_long(child(item_path, "message"), 32 * 1024))
    return errs


def _validate_network_data(data: dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if byte_len(as_str(data.get("interfaceName"))) > NETWORK_INTERFACE_NAME_MAX_LENGTH:
        errs.append(too_long(child(path, "interfaceName"), NETWORK_INTERFACE_NAME_MAX_LENGTH))
    if byte_len(as_str(data.get("hardwareAddress"))) > NETWORK_HARDWARE_ADDRESS_MAX_LENGTH:
        errs.append(too_long(child(path, "hardwareAddress"), NETWORK_HARDWARE_ADDRESS_MAX_LENGTH))
    errs.extend(
        validate_set(
            as_list(data.get("ips")),
            NETWORK_MAX_IPS,
            lambda ip, p: _validate_interface_address(as_str(ip), p),
            lambda ip: as_str(ip),
            child(path, "ips"),
        )
    )
    return errs


def _validate_interface_address(address: str, path: str) -> list[FieldError]:
    try:
        interface = ipaddress.ip_interface(address)
    except ValueError:
        return [
            invalid(
                path,
                address,
                "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)",
            )
        ]
    if "/" not in address:
        return [
            invalid(
                path,
                address,
                "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)",
            )
        ]
    canonical = f"{interface.ip}/{interface.network.prefixlen}"
    if canonical != address:
        return [invalid(path, address, f'must be in canonical form ("{canonical}")')]
    return []
