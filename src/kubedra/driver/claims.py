"""Reading allocated ResourceClaims the way a kubelet plugin needs them.

The helper looks each claim up by namespace/name, checks that it is still the claim the kubelet
meant (same UID) and that it is allocated, then keeps only the allocation results of this
driver, each with the opaque configs that apply to its request.

Namespaces, names and UIDs come from the kubelet (or whoever can reach the socket) and end up in
file names (cluster directory, CDI specs, checkpoint keys), so each is checked first: namespaces
as DNS labels and names as DNS subdomains with apimachinery's messages, UIDs as what the
apiserver hands out (a UUID, or for hand-written objects a token of letters, digits, ``-``,
``_`` and ``.`` that starts and ends with a letter or digit, at most 128 bytes).
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from kubedra.api.io.decoding import SUPPORTED_KINDS, DecodeError, decode_lenient
from kubedra.api.naming import byte_len, is_dns1123_label, is_dns1123_subdomain
from kubedra.driver.types import AllocatedDevice, ClaimRef, OpaqueConfig, PrepareClaim
from kubedra.gofmt import quote

SOURCE_CLASS = "FromClass"
SOURCE_CLAIM = "FromClaim"
UID_MAX_LENGTH = 128
_UID_RE = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")


def uid_problems(uid: str) -> list[str]:
    """Why ``uid`` cannot be a claim UID (empty when it can); safe as a file name part."""
    if not uid:
        return ["uid: Required value"]
    if byte_len(uid) > UID_MAX_LENGTH:
        return [f"uid: Too long: may not be more than {UID_MAX_LENGTH} bytes"]
    if _UID_RE.fullmatch(uid) is None:
        return [
            f"uid: Invalid value: {quote(uid)}: must consist of alphanumeric characters, '-', "
            "'_' or '.', and must start and end with an alphanumeric character"
        ]
    return []


def ref_problems(ref: ClaimRef) -> list[str]:
    """Why the kubelet's claim reference cannot be used (empty when it can)."""
    problems = []
    for field, value, check in (
        ("namespace", ref.namespace, is_dns1123_label),
        ("name", ref.name, is_dns1123_subdomain),
    ):
        if not value:
            problems.append(f"{field}: Required value")
        else:
            problems.extend(f"{field}: Invalid value: {quote(value)}: {m}" for m in check(value))
    return problems + uid_problems(ref.uid)


def describe(ref: ClaimRef) -> str:
    """``"namespace/name"`` with Go's quoting, so that odd characters show."""
    return quote(str(ref))


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
        share_id = result.get("shareID")
        devices.append(
            AllocatedDevice(
                request=request,
                pool=str(result.get("pool", "")),
                device=str(result.get("device", "")),
                admin_access=bool(result.get("adminAccess")),
                configs=tuple(c for c in configs if _config_applies(c.requests, request)),
                share_id=None if share_id is None else str(share_id),
            )
        )
    return tuple(devices)


def decoded_claim(claim: Any, ref: ClaimRef) -> dict[str, Any]:
    """The claim as the apiserver would hand it out: decoded into resource.k8s.io/v1 with
    every field of the right type (a cluster directory holds whatever was written, e.g. a
    ``config`` that is a string); raises :class:`ClaimLookupError` naming the field."""
    if not isinstance(claim, dict):
        raise ClaimLookupError(f"claim {ref}: not an object")
    content = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", **claim}
    version = content["apiVersion"]
    if content["kind"] != "ResourceClaim" or (
        not isinstance(version, str) or (version, "ResourceClaim") not in SUPPORTED_KINDS
    ):
        raise ClaimLookupError(
            f"claim {ref}: not a ResourceClaim ({content['apiVersion']}, {content['kind']})"
        )
    try:
        return decode_lenient(content)[0]
    except DecodeError as error:
        raise ClaimLookupError(f"claim {ref}: {error}") from None


def lookup_claim(source: ClaimSource, ref: ClaimRef, driver: str) -> PrepareClaim:
    """Fetch and check one claim; raises :class:`ClaimLookupError` with the reason."""
    try:
        claim = source.get_resource_claim(ref.namespace, ref.name)
    except Exception as error:  # the store's own failure becomes this claim's error
        raise ClaimLookupError(f"retrieve claim {ref}: {error}") from error
    if claim is None:
        raise ClaimLookupError(f"retrieve claim {ref}: not found")
    claim = decoded_claim(claim, ref)
    uid = (claim.get("metadata") or {}).get("uid")
    if uid != ref.uid:
        raise ClaimLookupError(f"claim {ref} got replaced (UID {uid!r}, expected {ref.uid!r})")
    if not (claim.get("status") or {}).get("allocation"):
        raise ClaimLookupError(f"claim {ref} not allocated")
    return PrepareClaim(ref=ref, claim=claim, devices=allocated_devices(claim, driver))
