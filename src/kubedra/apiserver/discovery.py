"""Discovery: which groups, versions and resources the simulated cluster serves.

kubectl asks ``/api`` and ``/apis`` for aggregated discovery (``apidiscovery.k8s.io/v2``,
every resource in one answer); other clients get the legacy documents (``APIVersions``,
``APIGroupList``, one ``APIResourceList`` per version).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from kubedra.api.releases import DEFAULT
from kubedra.api.scheduling_versions import WORKLOAD_API_KINDS, served_versions
from kubedra.cluster.kinds import KINDS, KindInfo

VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]

SHORT_NAMES: dict[str, list[str]] = {
    "pods": ["po"],
    "nodes": ["no"],
    "namespaces": ["ns"],
    "priorityclasses": ["pc"],
    "events": ["ev"],
}
"""Upstream's short names (resource.k8s.io defines none)."""

WITH_STATUS = frozenset(
    {
        "Pod",
        "Node",
        "Namespace",
        "ResourceClaim",
        "PodGroup",
        "CompositePodGroup",
        "ResourcePoolStatusRequest",
    }
)
"""Kinds with a ``/status`` subresource: their main endpoint keeps the stored status."""

EVENT = KindInfo("Event", "v1", "events", True)
"""Core events: served read-only, made from the scheduler's decisions."""

LEASE = KindInfo("Lease", "coordination.k8s.io/v1", "leases", True)
"""Node leases: served read-only, renewed by the simulated kubelets (apiserver.heartbeat)."""

READ_ONLY = (EVENT, LEASE)
"""Kinds the server makes itself; clients may get, list and watch them."""


@dataclass(frozen=True)
class GroupVersion:
    group: str
    version: str

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version


GATED_KINDS: dict[str, str] = {"ResourcePoolStatusRequest": "DRAResourcePoolStatus"}
"""Kinds served only when their feature gate is on (alpha APIs, e.g. KEP-5677's v1alpha3)."""


def hidden_kinds(enabled: Callable[[str], bool]) -> frozenset[str]:
    """The gated kinds whose gate ``enabled`` says is off: not served at all."""
    return frozenset(kind for kind, gate in GATED_KINDS.items() if not enabled(gate))


def served_kinds(
    release: str | None = None, hidden: frozenset[str] = frozenset()
) -> list[KindInfo]:
    """Every served kind, once per served version: the Workload API's kinds in the versions
    ``release`` serves (kubedra.api.scheduling_versions), preferred version first; gated kinds
    whose gate is off (``hidden``) left out."""
    out: list[KindInfo] = []
    for info in KINDS.values():
        if info.kind in hidden:
            continue
        if info.kind in WORKLOAD_API_KINDS:
            versions = served_versions(info.kind, release or DEFAULT)
            out.extend(replace(info, api_version=v, other_versions=()) for v in versions)
        else:
            out.append(info)
    return [*out, *READ_ONLY]


def group_versions(
    release: str | None = None, hidden: frozenset[str] = frozenset()
) -> list[GroupVersion]:
    """The served group/versions, the core group first, in first-seen order."""
    seen: dict[str, GroupVersion] = {}
    for info in served_kinds(release, hidden):
        group, _, version = info.api_version.rpartition("/")
        seen.setdefault(info.api_version, GroupVersion(group, version))
    return list(seen.values())


def resource_of_kind(kind: str) -> str:
    info = KINDS.get(kind)
    return info.resource if info else kind.lower() + "s"


def find_resource(
    api_version: str,
    resource: str,
    release: str | None = None,
    hidden: frozenset[str] = frozenset(),
) -> KindInfo | None:
    for info in served_kinds(release, hidden):
        if info.api_version == api_version and info.resource == resource:
            return info
    return None


def api_versions(host: str) -> dict[str, Any]:
    """``/api``."""
    return {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": host}],
    }


def api_group(
    group: str, release: str | None = None, hidden: frozenset[str] = frozenset()
) -> dict[str, Any]:
    versions = [
        {"groupVersion": gv.group_version, "version": gv.version}
        for gv in group_versions(release, hidden)
        if gv.group == group
    ]
    return {
        "kind": "APIGroup",
        "apiVersion": "v1",
        "name": group,
        "versions": versions,
        "preferredVersion": versions[0],
    }


def api_groups(release: str | None = None, hidden: frozenset[str] = frozenset()) -> dict[str, Any]:
    """``/apis``: every named group (the core group is under ``/api``)."""
    groups: list[str] = []
    for gv in group_versions(release, hidden):
        if gv.group and gv.group not in groups:
            groups.append(gv.group)
    items = []
    for group in groups:
        body = api_group(group, release, hidden)
        del body["kind"], body["apiVersion"]
        items.append(body)
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": items}


def resource_list(
    api_version: str, release: str | None = None, hidden: frozenset[str] = frozenset()
) -> dict[str, Any] | None:
    """``/api/v1`` or ``/apis/GROUP/VERSION``; None when the version is not served."""
    resources: list[dict[str, Any]] = []
    for info in served_kinds(release, hidden):
        if info.api_version != api_version:
            continue
        singular = info.kind.lower()
        verbs = ["get", "list", "watch"] if info in READ_ONLY else VERBS
        entry: dict[str, Any] = {
            "name": info.resource,
            "singularName": singular,
            "namespaced": info.namespaced,
            "kind": info.kind,
            "verbs": verbs,
        }
        if info.resource in SHORT_NAMES:
            entry["shortNames"] = SHORT_NAMES[info.resource]
        if info.kind == "Pod":
            entry["categories"] = ["all"]
        resources.append(entry)
        if info.kind in WITH_STATUS:
            resources.append(
                {
                    "name": f"{info.resource}/status",
                    "singularName": "",
                    "namespaced": info.namespaced,
                    "kind": info.kind,
                    "verbs": ["get", "patch", "update"],
                }
            )
    if not resources:
        return None
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": api_version,
        "resources": resources,
    }


def server_version(release: str | None = None) -> dict[str, str]:
    """``major``, ``minor`` and ``gitVersion`` of ``release`` (``1.37``), or of the default
    release: the one whose kinds and fields are served when none was chosen."""
    major, _, minor = (release or DEFAULT).partition(".")
    return {"major": major, "minor": minor, "gitVersion": f"v{major}.{minor}.0+kubedra"}


def version_info(release: str | None = None) -> dict[str, Any]:
    """``/version``: ``release`` is the one ``--kubernetes-version`` chose, if any."""
    return {
        **server_version(release),
        "gitCommit": "",
        "gitTreeState": "clean",
        "buildDate": "2026-01-01T00:00:00Z",
        "goVersion": "",
        "compiler": "python",
        "platform": "linux/amd64",
    }


AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
"""The media type of aggregated discovery, which kubectl asks ``/api`` and ``/apis`` for."""


def wants_aggregated(accept: str | None) -> bool:
    """Whether the Accept header takes ``apidiscovery.k8s.io/v2`` (kubectl lists it first)."""
    for part in (accept or "").split(","):
        params = {p.strip() for p in part.split(";")}
        if {"g=apidiscovery.k8s.io", "v=v2", "as=APIGroupDiscoveryList"} <= params:
            return True
    return False


def _resource_discovery(info: KindInfo, group: str, version: str) -> dict[str, Any]:
    kind = {"group": group, "version": version, "kind": info.kind}
    entry: dict[str, Any] = {
        "resource": info.resource,
        "responseKind": kind,
        "scope": "Namespaced" if info.namespaced else "Cluster",
        "singularResource": info.kind.lower(),
        "verbs": ["get", "list", "watch"] if info in READ_ONLY else VERBS,
    }
    if info.resource in SHORT_NAMES:
        entry["shortNames"] = SHORT_NAMES[info.resource]
    if info.kind == "Pod":
        entry["categories"] = ["all"]
    if info.kind in WITH_STATUS:
        entry["subresources"] = [
            {"subresource": "status", "responseKind": kind, "verbs": ["get", "patch", "update"]}
        ]
    return entry


def aggregated(
    core: bool, release: str | None = None, hidden: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """``/api`` (``core``) or ``/apis`` as an ``apidiscovery.k8s.io/v2`` list in one answer."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for gv in group_versions(release, hidden):
        if (gv.group == "") != core:
            continue
        resources = [
            _resource_discovery(info, gv.group, gv.version)
            for info in served_kinds(release, hidden)
            if info.api_version == gv.group_version
        ]
        versions = groups.setdefault(gv.group, [])
        versions.append({"version": gv.version, "resources": resources, "freshness": "Current"})
    items = [
        {"metadata": {"name": group} if group else {}, "versions": versions}
        for group, versions in groups.items()
    ]
    return {
        "kind": "APIGroupDiscoveryList",
        "apiVersion": "apidiscovery.k8s.io/v2",
        "metadata": {},
        "items": items,
    }
