"""OpenAPI v2 and v3 documents of the served kinds, for the release ``/version`` reports.

v3 (what kubectl reads): ``/openapi/v3`` lists one document per group/version, each holding
the schemas of its kinds (:mod:`kubedra.apiserver.schemas`, which ``kubectl explain`` walks)
and each resource's PATCH operation naming its group/version/kind and the ``fieldValidation``
parameter, so that kubectl leaves field validation to the server (strict decoding here).
The operations list no patch media types, so kubectl computes its patches as it does for a
server without schemas (from its own types) instead of from kubedra's partial Pod and Node.

v2: one Swagger 2.0 document in JSON. kubectl asks for v2 only in protobuf, which is not
served (406, as an apiserver answers a media type it cannot produce); kubectl then goes on
without v2, as it does against a server that has none.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from kubedra.api.releases import DEFAULT
from kubedra.apiserver import discovery, schemas
from kubedra.cluster.kinds import KindInfo

V3_REF = "#/components/schemas/"
V2_REF = "#/definitions/"
QUERY_PARAMETERS = ("dryRun", "fieldManager", "fieldValidation", "force")


def gv_path(api_version: str) -> str:
    """``api/v1`` or ``apis/GROUP/VERSION``: the key kubectl looks a version up by."""
    return f"apis/{api_version}" if "/" in api_version else f"api/{api_version}"


def content_hash(document: dict[str, Any]) -> str:
    """Upstream's document hash: it changes with the content (another release, new kinds), so
    that clients caching documents by URL never keep a stale one."""
    encoded = json.dumps(document, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha512(encoded).hexdigest().upper()


def root(release: str | None = None, hidden: frozenset[str] = frozenset()) -> dict[str, Any]:
    """``/openapi/v3``: where each group/version's document is (gated kinds whose gate is off,
    ``hidden``, left out as discovery leaves them out)."""
    paths = {}
    for gv in discovery.group_versions(release, hidden):
        key = gv_path(gv.group_version)
        body = document(key, release, hidden)
        assert body is not None
        paths[key] = {"serverRelativeURL": f"/openapi/v3/{key}?hash={content_hash(body)}"}
    return {"paths": paths}


def _info(release: str | None) -> dict[str, str]:
    return {"title": "Kubernetes", "version": discovery.server_version(release)["gitVersion"]}


def _operations(key: str, kinds: list[KindInfo], v3: bool) -> dict[str, Any]:
    """Each resource's GET (every kind) and PATCH (the writable ones) operation, with its
    group/version/kind: kubectl explain finds a resource's kind through them."""
    if v3:
        parameters = [
            {"name": name, "in": "query", "schema": {"type": "string"}} for name in QUERY_PARAMETERS
        ]
    else:
        parameters = [{"name": name, "in": "query", "type": "string"} for name in QUERY_PARAMETERS]
    paths: dict[str, Any] = {}
    for info in kinds:
        prefix = f"/{key}/namespaces/{{namespace}}" if info.namespaced else f"/{key}"
        common = {
            "responses": {"200": {"description": "OK"}},
            "x-kubernetes-group-version-kind": schemas.gvk(info),
        }
        operations: dict[str, Any] = {
            "get": {"operationId": f"read{info.kind}", "x-kubernetes-action": "get", **common}
        }
        if info not in discovery.READ_ONLY:
            operations["patch"] = {
                "operationId": f"patch{info.kind}",
                "parameters": parameters,
                "x-kubernetes-action": "patch",
                **common,
            }
        paths[f"{prefix}/{info.resource}/{{name}}"] = operations
    return paths


def _kinds(api_version: str, release: str | None, hidden: frozenset[str]) -> list[KindInfo]:
    served = discovery.served_kinds(release, hidden)
    return [info for info in served if info.api_version == api_version]


def document(
    key: str, release: str | None = None, hidden: frozenset[str] = frozenset()
) -> dict[str, Any] | None:
    """``/openapi/v3/api/v1`` and the like; None for versions not served."""
    versions = {gv_path(gv.group_version): gv for gv in discovery.group_versions(release, hidden)}
    gv = versions.get(key)
    if gv is None:
        return None
    kinds = _kinds(gv.group_version, release, hidden)
    components = schemas.schemas(
        gv.group_version, kinds, release or DEFAULT, lambda name: V3_REF + name
    )
    return {
        "openapi": "3.0.0",
        "info": _info(release),
        "paths": _operations(key, kinds, v3=True),
        "components": {"schemas": dict(sorted(components.items()))},
    }


def swagger(release: str | None = None, hidden: frozenset[str] = frozenset()) -> dict[str, Any]:
    """``/openapi/v2``: every served kind's schema in one Swagger 2.0 document."""
    paths: dict[str, Any] = {}
    definitions: dict[str, Any] = {}
    for gv in discovery.group_versions(release, hidden):
        kinds = _kinds(gv.group_version, release, hidden)
        paths.update(_operations(gv_path(gv.group_version), kinds, v3=False))
        definitions.update(
            schemas.schemas(gv.group_version, kinds, release or DEFAULT, lambda n: V2_REF + n)
        )
    return {
        "swagger": "2.0",
        "info": _info(release),
        "paths": paths,
        "definitions": dict(sorted(definitions.items())),
    }


def wants_json(accept: str | None) -> bool:
    """Whether an Accept header takes JSON (kubectl's v2 request takes protobuf only)."""
    if not accept:
        return True
    for part in accept.split(","):
        media = part.split(";")[0].strip().lower()
        if media in ("application/json", "application/*", "*/*"):
            return True
    return False
