"""Reading allocated ResourceClaims the way a kubelet plugin needs them.

The helper looks each claim up by namespace/name, checks that it is still the claim the kubelet
meant (same UID) and that it is allocated, then keeps only the allocation results of this
driver, each with the opaque configs that apply to its request.
"""

from __future__ import annotations

from typing import Any, Protocol

from kubedra.driver.types import AllocatedDevice, ClaimRef, OpaqueConfig, PrepareClaim

SOURCE_CLASS = "FromClass"
SOURCE_CLAIM = "FromClaim"


class ClaimSource(Protocol):
    """Where the helper reads ResourceClaims (a cluster directory or the Kubernetes API)."""

    def get_resource_claim(self, namespace: str, name: str) -> dict[str, Any] | None: ...


class ClaimLookupError(Exception):
    """A claim the kubelet asked for cannot be prepared; reported for that claim only."""


def base_request(name: str) -> str:
    """``"req/sub"`` -> ``"req"``: the kubelet only knows the requests of the claim spec."""
    return name.split("/", 1)[0]


def _config_applies(requests: tuple[str, ...], request: str) -> bool:
    # Empty means every request; naming the main request covers all of its subrequests.
    return not requests or request in requests or base_request(request) in requests


def driver_configs(claim: dict[str, Any], driver: str) -> list[OpaqueConfig]:
    """This driver's opaque configs of the allocation, class configs first, then claim configs."""
    allocation = (claim.get("status") or {}).get("allocation") or {}
    entries = (allocation.get("devices") or {}).get("config") or []
    by_source: dict[str, list[OpaqueConfig]] = {SOURCE_CLASS: [], SOURCE_CLAIM: []}
    for index, entry in enumerate(entries):
        source = entry.get("source")
        if source not in by_source:
            raise ClaimLookupError(
                f"status.allocation.devices.config[{index}].source: unsupported value {source!r}"
            )
        opaque = entry.get("opaque")
        if not opaque or opaque.get("driver") != driver:
            continue
        by_source[source].append(
            OpaqueConfig(
                driver=driver,
                parameters=opaque.get("parameters"),
                source=source,
                requests=tuple(entry.get("requests") or ()),
            )
        )
    return by_source[SOURCE_CLASS] + by_source[SOURCE_CLAIM]


def allocated_devices(claim: dict[str, Any], driver: str) -> tuple[AllocatedDevice, ...]:
    """The allocation results that belong to ``driver``, each with its applicable configs."""
    allocation = (claim.get("status") or {}).get("allocation") or {}
    configs = driver_configs(claim, driver)
    devices = []
    for result in (allocation.get("devices") or {}).get("results") or []:
        if result.get("driver") != driver:
            continue
        request = str(result.get("request", ""))
        devices.append(
            AllocatedDevice(
                request=request,
                pool=str(result.get("pool", "")),
                device=str(result.get("device", "")),
                admin_access=bool(result.get("adminAccess")),
                configs=tuple(c for c in configs if _config_applies(c.requests, request)),
            )
        )
    return tuple(devices)


def lookup_claim(source: ClaimSource, ref: ClaimRef, driver: str) -> PrepareClaim:
    """Fetch and check one claim; raises :class:`ClaimLookupError` with the reason."""
    try:
        claim = source.get_resource_claim(ref.namespace, ref.name)
    except Exception as error:  # the store's own failure becomes this claim's error
        raise ClaimLookupError(f"retrieve claim {ref}: {error}") from error
    if claim is None:
        raise ClaimLookupError(f"retrieve claim {ref}: not found")
    uid = (claim.get("metadata") or {}).get("uid")
    if uid != ref.uid:
        raise ClaimLookupError(f"claim {ref} got replaced (UID {uid!r}, expected {ref.uid!r})")
    if not (claim.get("status") or {}).get("allocation"):
        raise ClaimLookupError(f"claim {ref} not allocated")
    return PrepareClaim(ref=ref, claim=claim, devices=allocated_devices(claim, driver))
