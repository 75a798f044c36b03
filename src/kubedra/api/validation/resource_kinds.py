"""Top-level validators of the resource.k8s.io/v1 kinds."""

from __future__ import annotations

from kubedra.api.validation.claim_status import validate_claim_status
from kubedra.api.validation.device_claim import validate_device_claim
from kubedra.api.validation.errors import FieldError, child, invalid
from kubedra.api.validation.meta import validate_object_meta, validate_template_object_meta
from kubedra.api.validation.names import is_qualified_name, name_is_dns_subdomain
from kubedra.api.validation.resource_common import (
    DEVICE_CONFIG_MAX_SIZE,
    as_dict,
    as_list,
    as_str,
    validate_device_configuration,
    validate_device_name,
    validate_device_taint,
    validate_driver_name,
    validate_list,
    validate_pool_name,
    validate_selectors,
)
from kubedra.api.validation.resource_slice import validate_resource_slice_spec


def _meta(obj: dict) -> dict:
    return as_dict(obj.get("metadata"))


def validate_device_class(obj: dict) -> list[FieldError]:
    errs = validate_object_meta(
        _meta(obj), False, name_is_dns_subdomain, generate_name_checked=False
    )
    spec = as_dict(obj.get("spec"))
    errs.extend(validate_selectors(as_list(spec.get("selectors")), "spec.selectors"))
    errs.extend(
        validate_list(
            as_list(spec.get("config")),
            DEVICE_CONFIG_MAX_SIZE,
            validate_device_configuration,
            "spec.config",
        )
    )
    extended = spec.get("extendedResourceName")
    if extended is not None and not is_extended_resource_name(as_str(extended)):
        errs.append(
            invalid("spec.extendedResourceName", extended, "must be a valid extended resource name")
        )
    return errs


def is_extended_resource_name(name: str) -> bool:
    """A domain-prefixed resource name outside kubernetes.io that quota can also express."""
    if "/" not in name or "kubernetes.io/" in name or name.startswith("requests."):
        return False
    return not is_qualified_name("requests." + name)


def validate_resource_claim(obj: dict) -> list[FieldError]:
    errs = validate_object_meta(_meta(obj), True, name_is_dns_subdomain)
    devices = as_dict(as_dict(obj.get("spec")).get("devices"))
    errs.extend(validate_device_claim(devices, "spec.devices"))
    status = obj.get("status")
    if status:
        errs.extend(validate_claim_status(as_dict(status), devices, "status"))
    return errs


def validate_resource_claim_template(obj: dict) -> list[FieldError]:
    errs = validate_object_meta(_meta(obj), True, name_is_dns_subdomain)
    spec = as_dict(obj.get("spec"))
    errs.extend(validate_template_object_meta(as_dict(spec.get("metadata")), "spec.metadata"))
    devices = as_dict(as_dict(spec.get("spec")).get("devices"))
    errs.extend(validate_device_claim(devices, "spec.spec.devices"))
    return errs


def validate_resource_slice(obj: dict) -> list[FieldError]:
    errs = validate_object_meta(_meta(obj), False, name_is_dns_subdomain)
    errs.extend(validate_resource_slice_spec(as_dict(obj.get("spec")), "spec"))
    return errs


def validate_device_taint_rule(obj: dict) -> list[FieldError]:
    errs = validate_object_meta(_meta(obj), False, name_is_dns_subdomain)
    spec = as_dict(obj.get("spec"))
    selector = spec.get("deviceSelector")
    if selector is not None:
        selector = as_dict(selector)
        path = "spec.deviceSelector"
        if selector.get("driver") is not None:
            errs.extend(validate_driver_name(as_str(selector["driver"]), child(path, "driver")))
        if selector.get("pool") is not None:
            errs.extend(validate_pool_name(as_str(selector["pool"]), child(path, "pool")))
        if selector.get("device") is not None:
            errs.extend(validate_device_name(as_str(selector["device"]), child(path, "device")))
    errs.extend(validate_device_taint(as_dict(spec.get("taint")), "spec.taint"))
    return errs
