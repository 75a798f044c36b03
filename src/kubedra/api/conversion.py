"""Conversion of ``resource.k8s.io/v1beta1`` and ``v1beta2`` objects to ``v1``.

``v1beta2`` has the same shape as ``v1``. ``v1beta1`` differs in two places: a device wraps its
fields in ``basic``, and a request carries the single-request fields (``deviceClassName``,
``selectors``, ``allocationMode``, ``count``, ...) directly instead of inside ``exactly``.
``v1beta1`` slices also write "no node name" and "not all nodes" as ``""`` and ``false``.

The functions work on wire dicts of unchecked shape: whatever does not look like the expected
structure is left where it is, so that type checking later reports it at its position.
"""

from __future__ import annotations

from typing import Any

GROUP = "resource.k8s.io"
V1 = f"{GROUP}/v1"
V1BETA1 = f"{GROUP}/v1beta1"
V1BETA2 = f"{GROUP}/v1beta2"

CONVERTIBLE_VERSIONS = frozenset({V1BETA1, V1BETA2})

EXACT_REQUEST_FIELDS = (
    "deviceClassName",
    "selectors",
    "allocationMode",
    "count",
    "adminAccess",
    "tolerations",
    "capacity",
    "derivedAttributes",
)
"""The v1beta1 request fields that v1 moved into ``exactly``, in v1's field order."""


def to_v1(obj: dict[str, Any]) -> dict[str, Any]:
    """Return ``obj`` as a ``resource.k8s.io/v1`` object (a new dict; ``obj`` is not changed).

    Objects of any other apiVersion are returned unchanged.
    """
    api_version = obj.get("apiVersion")
    if api_version == V1BETA2:
        return obj | {"apiVersion": V1}
    if api_version != V1BETA1:
        return obj
    out = obj | {"apiVersion": V1}
    kind = obj.get("kind")
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return out
    if kind == "ResourceSlice":
        out["spec"] = _slice_spec_to_v1(spec)
    elif kind == "ResourceClaim":
        out["spec"] = _claim_spec_to_v1(spec)
    elif kind == "ResourceClaimTemplate" and isinstance(spec.get("spec"), dict):
        out["spec"] = spec | {"spec": _claim_spec_to_v1(spec["spec"])}
    return out


def _slice_spec_to_v1(spec: dict[str, Any]) -> dict[str, Any]:
    out = dict(spec)
    if out.get("nodeName") == "":
        del out["nodeName"]
    if out.get("allNodes") is False:
        del out["allNodes"]
    devices = out.get("devices")
    if isinstance(devices, list):
        out["devices"] = [_device_to_v1(device) for device in devices]
    return out


def _device_to_v1(device: Any) -> Any:
    """Lift the fields of ``basic`` into the device itself."""
    if not isinstance(device, dict) or "basic" not in device:
        return device
    basic = device["basic"]
    if not isinstance(basic, dict):
        return device
    rest = {key: value for key, value in device.items() if key != "basic"}
    return rest | basic


def _claim_spec_to_v1(spec: dict[str, Any]) -> dict[str, Any]:
    devices = spec.get("devices")
    if not isinstance(devices, dict) or not isinstance(devices.get("requests"), list):
        return spec
    requests = [_request_to_v1(request) for request in devices["requests"]]
    return spec | {"devices": devices | {"requests": requests}}


def _request_to_v1(request: Any) -> Any:
    """Move the single-request fields into ``exactly`` when any of them is set.

    As upstream, "set" means a non-empty class name or mode, a non-zero count, or a present
    list or pointer.
    """
    if not isinstance(request, dict):
        return request
    if not _has_exact_fields(request):
        return {key: value for key, value in request.items() if key not in EXACT_REQUEST_FIELDS}
    exactly = {key: request[key] for key in EXACT_REQUEST_FIELDS if key in request}
    out = {key: value for key, value in request.items() if key not in EXACT_REQUEST_FIELDS}
    out["exactly"] = exactly
    return out


def _has_exact_fields(request: dict[str, Any]) -> bool:
    return (
        request.get("deviceClassName") not in (None, "")
        or request.get("allocationMode") not in (None, "")
        or request.get("count") not in (None, 0)
        or any(
            request.get(key) is not None
            for key in ("selectors", "adminAccess", "tolerations", "capacity", "derivedAttributes")
        )
    )
