"""Which ``resource.k8s.io/v1`` fields and kinds each supported Kubernetes release has.

The models describe the union of the releases in :data:`kubedra.api.releases.SUPPORTED`, so that
an object written for any of them decodes. After decoding, a field the selected release does
not have is reported as the unknown field it would be for that release's apiserver, with the
releases that do have it, and dropped from the object.

Facts from k8s.io/api ``resource/v1/types.go`` at the tags v0.34.0, v0.35.0, v0.36.0 and the
1.37 development branch (after v0.37.0-beta.0), and for ``compatibilityGroups`` from
KEP-5963 (kubernetes/kubernetes#139795, alpha in 1.37).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kubedra.api.releases import SUPPORTED
from kubedra.api.scheduling_versions import SERVED as WORKLOAD_API_SERVED

ITEMS = "[]"
"""A path step meaning "every item of this list"."""

VALUES = "{}"
"""A path step meaning "every value of this map"."""

_FROM_1_36 = ("1.36", "1.37")


@dataclass(frozen=True)
class ReleaseField:
    """A field that exists only in some releases."""

    kind: str
    path: tuple[str, ...]
    releases: tuple[str, ...]
    note: str = ""


RELEASE_FIELDS: tuple[ReleaseField, ...] = (
    ReleaseField(
        "ResourceSlice",
        ("spec", "devices", ITEMS, "nodeAllocatableResourceMappings"),
        ("1.36",),
        "renamed to nodeAllocatableResources in 1.37",
    ),
    ReleaseField(
        "ResourceSlice",
        ("spec", "devices", ITEMS, "nodeAllocatableResources"),
        ("1.37",),
        "it replaced 1.36's nodeAllocatableResourceMappings",
    ),
    ReleaseField("ResourceSlice", ("spec", "skipNodeOperations"), ("1.37",)),
    ReleaseField("ResourceSlice", ("spec", "partitionTypeAttribute"), ("1.37",)),
    ReleaseField(
        "ResourceSlice",
        ("spec", "devices", ITEMS, "consumesCounters", ITEMS, "compatibilityGroups"),
        ("1.37",),
    ),
    *(
        ReleaseField(
            "ResourceSlice", ("spec", "devices", ITEMS, "attributes", VALUES, name), _FROM_1_36
        )
        for name in ("ints", "bools", "strings", "versions")
    ),
    ReleaseField(
        "ResourceClaim",
        ("status", "allocation", "devices", "results", ITEMS, "skipNodeOperations"),
        ("1.37",),
    ),
    # k8s.io/api resource/v1alpha3 at v0.36.0 and the 1.37 development branch (KEP-5677's
    # second alpha added the partition and shareable views).
    ReleaseField("ResourcePoolStatusRequest", ("spec", "defaultPartitionTypeAttribute"), ("1.37",)),
    ReleaseField(
        "ResourcePoolStatusRequest", ("status", "pools", ITEMS, "partitionSummary"), ("1.37",)
    ),
    ReleaseField(
        "ResourcePoolStatusRequest", ("status", "pools", ITEMS, "shareableSummary"), ("1.37",)
    ),
)
"""Every field of a supported kind that some supported release lacks."""

RELEASE_KINDS: dict[tuple[str, str], tuple[str, ...]] = {
    ("resource.k8s.io/v1", "DeviceTaintRule"): ("1.37",),
    ("resource.k8s.io/v1beta2", "DeviceTaintRule"): _FROM_1_36,
    **WORKLOAD_API_SERVED,
    # Alpha since 1.36 behind DRAResourcePoolStatus (prerelease-lifecycle introduced=1.36).
    ("resource.k8s.io/v1alpha3", "ResourcePoolStatusRequest"): _FROM_1_36,
}
"""Kinds served only by some releases (every other supported kind is served by all); the
Workload API's versions come from :mod:`kubedra.api.scheduling_versions`."""

assert all(set(f.releases) <= set(SUPPORTED) for f in RELEASE_FIELDS)


def kind_problem(api_version: str, kind: str, release: str) -> str | None:
    """The apiserver's answer when ``release`` does not serve this kind, else None."""
    releases = RELEASE_KINDS.get((api_version, kind))
    if releases is None or release in releases:
        return None
    return (
        f'no matches for kind "{kind}" in version "{api_version}" '
        f"(served by Kubernetes {_list(releases)}; selected release: {release})"
    )


_MISSING: dict[tuple[str, str], tuple[ReleaseField, ...]] = {
    (kind, release): tuple(
        spec for spec in RELEASE_FIELDS if spec.kind == kind and release not in spec.releases
    )
    for kind in {spec.kind for spec in RELEASE_FIELDS}
    for release in SUPPORTED
}
"""The table above by (kind, release): the fields that release lacks."""


def strip_other_release_fields(wire: dict[str, Any], release: str) -> list[str]:
    """Remove the fields ``release`` lacks from a decoded v1 object; describe each one."""
    problems: list[str] = []
    for spec in _MISSING.get((str(wire.get("kind")), release), ()):
        for path in _remove(wire, spec.path, ""):
            note = f", {spec.note}" if spec.note else ""
            problems.append(
                f'unknown field "{path}" (a Kubernetes {_list(spec.releases)} field{note}; '
                f"selected release: {release})"
            )
    return problems


def _remove(node: Any, steps: tuple[str, ...], prefix: str) -> Iterator[str]:
    """Delete the field at ``steps`` under ``node`` wherever present; yield each field path."""
    step, rest = steps[0], steps[1:]
    if step == ITEMS:
        if isinstance(node, list):
            for position, item in enumerate(node):
                yield from _remove(item, rest, f"{prefix}[{position}]")
        return
    if step == VALUES:
        if isinstance(node, dict):
            for name, value in node.items():
                yield from _remove(value, rest, f"{prefix}[{name}]")
        return
    if not isinstance(node, dict) or step not in node:
        return
    path = f"{prefix}.{step}" if prefix else step
    if not rest:
        del node[step]
        yield path
    else:
        yield from _remove(node[step], rest, path)


def _list(releases: tuple[str, ...]) -> str:
    if len(releases) == 1:
        return releases[0]
    if releases[-1] == SUPPORTED[-1]:
        return f"{releases[0]}+"
    return " and ".join(releases)
