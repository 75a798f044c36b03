"""A small fake Kubernetes API server for the live-cluster reader's tests.

It serves discovery for ``resource.k8s.io`` in ``v1beta2`` only, paginated lists
(``limit``/``continue``) of the objects it is given, a 403 ``Status`` for the resources named
forbidden, and 401 without the right bearer token. Every request is recorded so that tests can
check that the reader only ever sends GETs.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

TOKEN = "fake-token"
RESOURCE_VERSION = "v1beta2"

PLURALS = {
    "Namespace": ("", "namespaces", False),
    "Node": ("", "nodes", False),
    "Pod": ("", "pods", True),
    "PriorityClass": ("scheduling.k8s.io", "priorityclasses", False),
    "DeviceClass": ("resource.k8s.io", "deviceclasses", False),
    "ResourceSlice": ("resource.k8s.io", "resourceslices", False),
    "DeviceTaintRule": ("resource.k8s.io", "devicetaintrules", False),
    "ResourceClaim": ("resource.k8s.io", "resourceclaims", True),
    "ResourceClaimTemplate": ("resource.k8s.io", "resourceclaimtemplates", True),
}


@dataclass
class FakeCluster:
    objects: list[dict[str, Any]]
    forbidden: set[str] = field(default_factory=set)
    """Plurals that answer 403."""
    requests: list[tuple[str, str, dict[str, list[str]]]] = field(default_factory=list)
    resource_versions: tuple[str, ...] = (RESOURCE_VERSION,)
    """The resource.k8s.io versions served (objects are kept in v1's shape, which v1beta2
    shares); none means the group is not served at all."""

    def items(self, plural: str, namespace: str | None) -> list[dict[str, Any]]:
        found = []
        for obj in self.objects:
            _group, obj_plural, _namespaced = PLURALS[obj["kind"]]
            obj_namespace = obj.get("metadata", {}).get("namespace")
            if obj_plural == plural and (namespace is None or obj_namespace == namespace):
                item = {
                    key: value for key, value in obj.items() if key not in ("apiVersion", "kind")
                }
                item["metadata"] = dict(item.get("metadata", {})) | {
                    "managedFields": [{"manager": "kubectl", "operation": "Apply"}]
                }
                found.append(item)
        return found


def _status(code: int, reason: str, message: str) -> dict[str, Any]:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }


def _route(cluster: FakeCluster, path: str, query: dict[str, list[str]]) -> tuple[int, Any]:
    if path == "/apis/resource.k8s.io":
        if not cluster.resource_versions:
            return 404, _status(404, "NotFound", "the server could not find the requested resource")
        versions = [
            {"groupVersion": f"resource.k8s.io/{version}", "version": version}
            for version in cluster.resource_versions
        ]
        return 200, {
            "kind": "APIGroup",
            "apiVersion": "v1",
            "name": "resource.k8s.io",
            "versions": versions,
            "preferredVersion": versions[0],
        }
    served = {f"/apis/resource.k8s.io/{version}" for version in cluster.resource_versions}
    if path in served:
        names = ["deviceclasses", "resourceslices", "devicetaintrules", "resourceclaims"]
        names += ["resourceclaims/status", "resourceclaimtemplates"]
        return 200, {
            "kind": "APIResourceList",
            "groupVersion": path.removeprefix("/apis/"),
            "resources": [{"name": name, "verbs": ["get", "list"]} for name in names],
        }
    parts = path.strip("/").split("/")
    if parts[0] == "api" and len(parts) >= 3 and parts[1] == "v1":
        group, rest = "", parts[2:]
    elif parts[0] == "apis" and len(parts) >= 4:
        group, rest = parts[1], parts[3:]
        expected = cluster.resource_versions if group == "resource.k8s.io" else ("v1",)
        if parts[2] not in expected:
            return 404, _status(404, "NotFound", "the server could not find the requested resource")
    else:
        return 404, _status(404, "NotFound", "the server could not find the requested resource")
    namespace = None
    if len(rest) == 3 and rest[0] == "namespaces":
        namespace, rest = rest[1], rest[2:]
    if len(rest) != 1:
        return 404, _status(404, "NotFound", "the server could not find the requested resource")
    plural = rest[0]
    if plural in cluster.forbidden:
        resource = f"{plural}.{group}" if group else plural
        message = (
            f'{resource} is forbidden: User "viewer" cannot list resource "{plural}" in API '
            f'group "{group}" at the cluster scope'
        )
        return 403, _status(403, "Forbidden", message)
    items = cluster.items(plural, namespace)
    limit = int(query.get("limit", ["0"])[0]) or len(items) or 1
    start = int(query.get("continue", ["0"])[0])
    page = items[start : start + limit]
    metadata: dict[str, Any] = {"resourceVersion": "42"}
    if start + limit < len(items):
        metadata["continue"] = str(start + limit)
    return 200, {"kind": "List", "apiVersion": "v1", "metadata": metadata, "items": page}


def _handler(cluster: FakeCluster) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            url = urlsplit(self.path)
            query = parse_qs(url.query)
            cluster.requests.append((self.command, url.path, query))
            if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                code, body = 401, _status(401, "Unauthorized", "Unauthorized")
            elif self.command != "GET":
                code, body = 405, _status(405, "MethodNotAllowed", "read-only fake")
            else:
                code, body = _route(cluster, url.path, query)
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet."""

    return Handler


@contextmanager
def serve(cluster: FakeCluster) -> Iterator[str]:
    """Run the fake on 127.0.0.1 (a free port) and yield its URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(cluster))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def write_kubeconfig(path: Path, server: str, token: str = TOKEN, context: str = "fake") -> Path:
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "fake", "cluster": {"server": server}}],
        "users": [{"name": "viewer", "user": {"token": token}}],
        "contexts": [{"name": context, "context": {"cluster": "fake", "user": "viewer"}}],
        "current-context": context,
    }
    path.write_text(json.dumps(config))
    return path
