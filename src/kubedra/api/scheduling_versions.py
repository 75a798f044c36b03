"""Which ``scheduling.k8s.io`` versions of the Workload API each release serves, and how an object
moves between a served version and the one kubedra stores.

From k8s.io/api at the release tags: v0.34.0 has no Workload; v0.35.0 has ``v1alpha1``
Workload only (with its pod groups inline, not modelled by kubedra); v0.36.0 has ``v1alpha2``
Workload and PodGroup; 1.37 (after v0.37.0-beta.0, commit 10b39a39b) has ``v1beta1`` Workload
and PodGroup and ``v1alpha3`` Workload, PodGroup and CompositePodGroup, ``v1alpha2`` being
gone (kubernetes/kubernetes#138572).

Storage: 1.37's ``v1alpha3`` Workload and PodGroup have exactly the fields of ``v1beta1`` and are
stored as ``v1beta1`` (the apiserver's storage version); CompositePodGroup exists only in
``v1alpha3``. A 1.36 cluster stores ``v1alpha2``. No release serves both ``v1alpha2`` and
``v1beta1``, so no object ever converts between them.
"""

from __future__ import annotations

from typing import Any

GROUP = "scheduling.k8s.io"
V1ALPHA2 = f"{GROUP}/v1alpha2"
V1ALPHA3 = f"{GROUP}/v1alpha3"
V1BETA1 = f"{GROUP}/v1beta1"

WORKLOAD_API_KINDS = ("Workload", "PodGroup", "CompositePodGroup")

SERVED: dict[tuple[str, str], tuple[str, ...]] = {
    (V1ALPHA2, "Workload"): ("1.36",),
    (V1ALPHA2, "PodGroup"): ("1.36",),
    (V1BETA1, "Workload"): ("1.37",),
    (V1BETA1, "PodGroup"): ("1.37",),
    (V1ALPHA3, "Workload"): ("1.37",),
    (V1ALPHA3, "PodGroup"): ("1.37",),
    (V1ALPHA3, "CompositePodGroup"): ("1.37",),
}
"""(apiVersion, kind) -> the supported releases that serve it, preferred version first."""

STORED_AS: dict[tuple[str, str], str] = {
    (V1ALPHA3, "Workload"): V1BETA1,
    (V1ALPHA3, "PodGroup"): V1BETA1,
}
"""Served versions kubedra stores as another version with the same fields."""

CONVERTIBLE: frozenset[tuple[str, str]] = frozenset(STORED_AS)


def to_storage(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` in the version it is stored as (a new dict when that differs)."""
    stored = STORED_AS.get((str(obj.get("apiVersion")), str(obj.get("kind"))))
    return obj if stored is None else obj | {"apiVersion": stored}


def served_versions(kind: str, release: str) -> list[str]:
    """The versions of ``kind`` that ``release`` serves, preferred (stable-most) first."""
    return [v for (v, k), releases in SERVED.items() if k == kind and release in releases]


def storage_version(kind: str, release: str) -> str | None:
    """The version ``release`` stores ``kind`` in (None when it does not serve the kind)."""
    versions = served_versions(kind, release)
    if not versions:
        return None
    first = versions[0]
    return STORED_AS.get((first, kind), first)


def to_version(obj: dict[str, Any], api_version: str) -> dict[str, Any] | None:
    """A stored object as ``api_version`` shows it, or None when that version cannot show it
    (another release's version)."""
    current = str(obj.get("apiVersion"))
    kind = str(obj.get("kind"))
    if api_version == current:
        return obj
    if STORED_AS.get((api_version, kind)) == current:
        return obj | {"apiVersion": api_version}
    return None
