"""Just enough OpenAPI v3 for kubectl: each resource's PATCH operation names its
group/version/kind and the ``fieldValidation`` parameter, so kubectl leaves field
validation to the server (strict decoding here) instead of downloading schemas.
"""

from __future__ import annotations

from typing import Any

from kubedra.apiserver import discovery

OPENAPI_HASH = "kubedra"


def gv_path(api_version: str) -> str:
    """``api/v1`` or ``apis/GROUP/VERSION``: the key kubectl looks a version up by."""
    return f"apis/{api_version}" if "/" in api_version else f"api/{api_version}"


def root(release: str | None = None, hidden: frozenset[str] = frozenset()) -> dict[str, Any]:
    """``/openapi/v3``: where each group/version's document is."""
    paths = {}
    for gv in discovery.group_versions(release, hidden):
        key = gv_path(gv.group_version)
        paths[key] = {"serverRelativeURL": f"/openapi/v3/{key}?hash={OPENAPI_HASH}"}
    return {"paths": paths}


def document(
    key: str, release: str | None = None, hidden: frozenset[str] = frozenset()
) -> dict[str, Any] | None:
    """``/openapi/v3/api/v1`` and the like; None for versions not served."""
    versions = {gv_path(gv.group_version): gv for gv in discovery.group_versions(release, hidden)}
    gv = versions.get(key)
    if gv is None:
        return None
    parameters = [
        {"name": name, "in": "query", "schema": {"type": "string"}}
        for name in ("dryRun", "fieldManager", "fieldValidation", "force")
    ]
    paths: dict[str, Any] = {}
    for info in discovery.served_kinds(release, hidden):
        if info.api_version != gv.group_version or info is discovery.EVENT:
            continue
        gvk = {"group": gv.group, "version": gv.version, "kind": info.kind}
        prefix = f"/{key}/namespaces/{{namespace}}" if info.namespaced else f"/{key}"
        paths[f"{prefix}/{info.resource}/{{name}}"] = {
            "patch": {
                "operationId": f"patch{info.kind}",
                "parameters": parameters,
                "responses": {"200": {"description": "OK"}},
                "x-kubernetes-action": "patch",
                "x-kubernetes-group-version-kind": gvk,
            }
        }
    return {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": discovery.SERVER_VERSION["gitVersion"]},
        "paths": paths,
        "components": {"schemas": {}},
    }
