"""Which node-local operations (kubelet gRPC calls) a claim needs per driver (KEP-5945).

A ResourceSlice may list ``skipNodeOperations``; the scheduler copies the list into each
allocation result of a device of that slice (``DeviceRequestAllocationResult``). The kubelet
skips NodePrepareResources (NodeUnprepareResources) for a driver when every allocated device
of that driver in the claim skips it: the value names it or is ``*``. Unknown values are
ignored, as the API asks of kubelets. With the kubelet's DRAOptionalNodeOperations gate off,
nothing is skipped.

Source: k8s.io/api ``resource/v1/types.go`` (``SkipNodeOperations``) at the 1.37 development
branch (kubernetes/kubernetes#139933).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PREPARE = "NodePrepareResources"
UNPREPARE = "NodeUnprepareResources"
ALL = "*"


def skips(operations: Any, operation: str) -> bool:
    """Whether one result's ``skipNodeOperations`` list skips ``operation``."""
    if not isinstance(operations, list):
        return False
    return ALL in operations or operation in operations


def allocation_results(claim: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    allocation = (claim.get("status") or {}).get("allocation") or {}
    results = (allocation.get("devices") or {}).get("results") or []
    return [r for r in results if isinstance(r, Mapping)]


def claim_drivers(claim: Mapping[str, Any]) -> list[str]:
    """The drivers of the claim's allocated devices, sorted."""
    return sorted({str(r.get("driver") or "") for r in allocation_results(claim)})


def skipped_drivers(claim: Mapping[str, Any], operation: str, enabled: bool = True) -> list[str]:
    """The drivers for which the kubelet skips ``operation`` on this claim, sorted."""
    if not enabled:
        return []
    by_driver: dict[str, bool] = {}
    for result in allocation_results(claim):
        driver = str(result.get("driver") or "")
        by_driver[driver] = by_driver.get(driver, True) and skips(
            result.get("skipNodeOperations"), operation
        )
    return sorted(driver for driver, skip in by_driver.items() if skip)
