"""Evaluate one conformance case: kubedra's answer in the shape of the case's ``expected``."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from kubedra.allocator import inputs
from kubedra.allocator.engine import Allocator
from kubedra.allocator.features import Features
from kubedra.allocator.schedule import FirstFitScheduler
from kubedra.allocator.search import DEFAULT_TIMEOUT
from kubedra.api.defaults import apply_defaults
from kubedra.conformance.errors import CaseError

MODES = ("allocate", "schedule", "cel")


def _features(case: Mapping[str, Any]) -> Features:
    gates = case.get("features") or {}
    if not isinstance(gates, Mapping):
        raise CaseError("features: must be an object of feature gate names to booleans")
    try:
        return Features.from_gates(gates)
    except ValueError as err:
        raise CaseError(f"features: {err}") from None


def _list(
    data: Mapping[str, Any], key: str, required: bool = True, where: str = "input"
) -> list[Any]:
    value = data.get(key)
    if value is None:
        if required:
            raise CaseError(f"{where}.{key}: required")
        return []
    if not isinstance(value, list):
        raise CaseError(f"{where}.{key}: must be a list")
    return value


def _checked(
    data: Mapping[str, Any],
    key: str,
    kind: str,
    schema: Any,
    required: bool = False,
    where: str = "input",
) -> list[Any]:
    """``<where>.<key>``, a list of ``kind`` objects whose fields have the right types."""
    objs = _list(data, key, required=required, where=where)
    for i, obj in enumerate(objs):
        if not isinstance(obj, Mapping):
            raise CaseError(f"{where}.{key}[{i}]: must be an object")
        found = inputs.problem(obj, schema)
        if found is not None:
            raise CaseError(f"{inputs.describe(kind, obj)}: {found}")
    return objs


def _allocator(
    case: Mapping[str, Any], data: Mapping[str, Any], timeout: float | None
) -> Allocator:
    """The allocator over the cluster state shared by the allocate and schedule modes."""
    return Allocator(
        _features(case),
        _checked(data, "deviceClasses", "DeviceClass", inputs.DEVICE_CLASS),
        _checked(data, "resourceSlices", "ResourceSlice", inputs.RESOURCE_SLICE),
        _defaulted(_checked(data, "allocatedClaims", "ResourceClaim", inputs.RESOURCE_CLAIM)),
        _checked(data, "deviceTaintRules", "DeviceTaintRule", inputs.DEVICE_TAINT_RULE),
        timeout=timeout,
    )


def evaluate_allocate(
    case: Mapping[str, Any], timeout: float | None = DEFAULT_TIMEOUT
) -> dict[str, Any]:
    data = _input(case)
    node = data.get("node")
    if not isinstance(node, Mapping):
        raise CaseError("input.node: required Node object")
    found = inputs.problem(node, inputs.NODE)
    if found is not None:
        raise CaseError(f"{inputs.describe('Node', node)}: {found}")
    allocator = _allocator(case, data, timeout)
    claims = _checked(data, "claims", "ResourceClaim", inputs.RESOURCE_CLAIM, required=True)
    outcome = allocator.allocate(node, _defaulted(claims))
    if outcome.ok:
        return {
            "ok": True,
            "unschedulable": False,
            "error": None,
            "allocations": outcome.allocations,
        }
    if outcome.error is not None:
        return {
            "ok": False,
            "unschedulable": False,
            "error": outcome.error,
            "errorIsNodeLocal": outcome.node_local,
            "allocations": [],
        }
    return {"ok": False, "unschedulable": True, "error": None, "allocations": []}


def evaluate_schedule(
    case: Mapping[str, Any], timeout: float | None = DEFAULT_TIMEOUT
) -> dict[str, Any]:
    data = _input(case)
    allocator = _allocator(case, data, timeout)
    scheduler = FirstFitScheduler(allocator, _checked(data, "nodes", "Node", inputs.NODE, True))
    placements = []
    for i, pod in enumerate(_list(data, "pods")):
        if not isinstance(pod, Mapping):
            raise CaseError(f"input.pods[{i}]: must be an object")
        if not isinstance(pod.get("name"), (str, type(None))):
            raise CaseError(f"input.pods[{i}].name: must be a string")
        pod_claims = _checked(
            pod, "claims", "ResourceClaim", inputs.RESOURCE_CLAIM, where=f"input.pods[{i}]"
        )
        claims = _defaulted(pod_claims)
        placements.append(scheduler.schedule(str(pod.get("name") or ""), claims).to_dict())
    return {"placements": placements}


def _defaulted(objs: list[Any]) -> list[Any]:
    """API defaulting, as the API server applies it before anything else."""
    return [apply_defaults(o) if isinstance(o, dict) else o for o in objs]


def _input(case: Mapping[str, Any]) -> Mapping[str, Any]:
    data = case.get("input")
    if not isinstance(data, Mapping):
        raise CaseError("input: required object")
    return data


def _cel_mode() -> Callable[[dict[str, Any]], dict[str, Any]]:
    """``kubedra.conformance.cel_mode.evaluate_cel_case`` (the CEL libraries' part)."""
    try:
        module = importlib.import_module("kubedra.conformance.cel_mode")
    except ImportError as err:
        raise CaseError(f"mode cel is not available: {err}") from None
    evaluate: Callable[[dict[str, Any]], dict[str, Any]] = module.evaluate_cel_case
    return evaluate


def evaluate_case(
    case: Mapping[str, Any], timeout: float | None = DEFAULT_TIMEOUT
) -> dict[str, Any]:
    """kubedra's result for ``case`` (any mode); ``timeout`` bounds each Allocate call."""
    mode = case.get("mode")
    if mode == "allocate":
        return evaluate_allocate(case, timeout)
    if mode == "schedule":
        return evaluate_schedule(case, timeout)
    if mode == "cel":
        return _cel_mode()(dict(case))
    raise CaseError(f"mode: must be one of {', '.join(MODES)}, got {mode!r}")
