"""Conformance mode ``cel``: evaluate each selector of a case file against its device.

Selectors are compiled and evaluated as the kube-scheduler does for DeviceClasses and claims:
with the environment for stored expressions, which exposes every library and device field of
the newest Kubernetes whatever the case's feature gates say (a cluster that turned a gate off
keeps evaluating the expressions it already stored). The gates are therefore not consulted.
"""

from __future__ import annotations

from typing import Any

from kubedra.cel import compile_selector
from kubedra.cel.device import CelDevice
from kubedra.cel.errors import CelCompileError, CelEvaluationError


def evaluate_pair(pair_input: dict[str, Any]) -> dict[str, Any]:
    """One ``{"expression", "device"}`` input -> ``{compileError, result, runtimeError, cost}``
    (``cost`` also for a runtime error: what was spent until it)."""
    outcome: dict[str, Any] = {
        "compileError": None,
        "result": None,
        "runtimeError": None,
        "cost": None,
    }
    expression = pair_input.get("expression")
    device = pair_input.get("device") or {}
    if not isinstance(expression, str):
        outcome["compileError"] = "input.expression: must be a string"
        return outcome
    try:
        selector = compile_selector(expression)
    except CelCompileError as err:
        outcome["compileError"] = str(err)
        return outcome
    driver = str(device.get("driver", ""))
    try:
        cel_device = CelDevice.from_v1(device, driver)
        result, cost = selector.evaluate(cel_device)
    except CelEvaluationError as err:
        outcome["runtimeError"] = str(err)
        outcome["cost"] = err.cost  # upstream reports the cost spent until the error
        return outcome
    outcome["result"] = result
    outcome["cost"] = cost
    return outcome


def evaluate_cel_case(case: dict[str, Any]) -> dict[str, Any]:
    """A cel case file (without expected results) -> ``{"cases": [outcome per pair]}``."""
    pairs = case.get("cases") or []
    return {"cases": [evaluate_pair(pair.get("input") or {}) for pair in pairs]}
