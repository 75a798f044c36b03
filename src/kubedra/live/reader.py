"""Reading what scheduling with DRA depends on from a live cluster, read-only.

Only ``GET`` requests are ever sent (:meth:`ClusterReader._get` is the one request method).
Lists are read in pages (``limit``/``continue``, kubectl's chunk size of 500). For
``resource.k8s.io`` the reader asks discovery which versions the server serves and reads each
kind in the newest one it can convert (``v1``, else ``v1beta2``, else ``v1beta1``), converting
the items to ``v1``. Kinds the user may not list (403) or the server does not serve (404) are
reported in :attr:`Snapshot.skipped` and left out; anything else is a :class:`LiveError`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kubedra.api.conversion import to_v1
from kubedra.live.connect import LiveError

if TYPE_CHECKING:
    from kubedra.api.io import LoadResult

RESOURCE_GROUP = "resource.k8s.io"
RESOURCE_VERSIONS = ("v1", "v1beta2", "v1beta1")
"""The resource.k8s.io versions kubedra converts, in order of preference."""

CHUNK_SIZE = 500
"""Items per page, kubectl's default ``--chunk-size``."""


@dataclass(frozen=True)
class LiveKind:
    """One kind the snapshot reads: where it is served and whether it is namespaced."""

    kind: str
    group: str
    plural: str
    namespaced: bool
    versions: tuple[str, ...] = ("v1",)

    @property
    def resource(self) -> str:
        """``resourceclaims.resource.k8s.io``, as the apiserver names a resource."""
        return f"{self.plural}.{self.group}" if self.group else self.plural


KINDS: tuple[LiveKind, ...] = (
    LiveKind("Namespace", "", "namespaces", False),
    LiveKind("PriorityClass", "scheduling.k8s.io", "priorityclasses", False),
    LiveKind("Node", "", "nodes", False),
    LiveKind("DeviceClass", RESOURCE_GROUP, "deviceclasses", False, RESOURCE_VERSIONS),
    LiveKind("ResourceSlice", RESOURCE_GROUP, "resourceslices", False, RESOURCE_VERSIONS),
    # DeviceTaintRule has no v1beta1 version (it started in v1alpha3, then v1beta2).
    LiveKind("DeviceTaintRule", RESOURCE_GROUP, "devicetaintrules", False, ("v1", "v1beta2")),
    LiveKind(
        "ResourceClaimTemplate", RESOURCE_GROUP, "resourceclaimtemplates", True, RESOURCE_VERSIONS
    ),
    LiveKind("ResourceClaim", RESOURCE_GROUP, "resourceclaims", True, RESOURCE_VERSIONS),
    LiveKind("Pod", "", "pods", True),
)
"""What a snapshot holds, in the order a simulation creates it."""


@dataclass
class Snapshot:
    """The objects read (v1 wire dicts, in :data:`KINDS` order) and what had to be left out."""

    objects: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    versions: dict[str, str] = field(default_factory=dict)
    """The apiVersion each kind was read in."""

    def as_list(self) -> dict[str, Any]:
        """A ``v1`` ``List``, as ``kubectl get -o yaml`` prints several objects."""
        return {"apiVersion": "v1", "kind": "List", "metadata": {}, "items": self.objects}

    def load(self, source: str = "<cluster>") -> LoadResult:
        """The objects decoded and type-checked as if read from a saved snapshot file, for
        commands (simulate, explain) that work on loaded objects."""
        from kubedra.api.io import load_text

        return load_text(json.dumps(self.as_list()), source, json_input=True)


class _HTTPError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class ClusterReader:
    """Reads a snapshot through one ``kubernetes.client.ApiClient``."""

    def __init__(self, api_client: Any, chunk_size: int = CHUNK_SIZE) -> None:
        self.api_client = api_client
        self.chunk_size = chunk_size

    def _get(self, path: str, query: list[tuple[str, Any]] | None = None) -> dict[str, Any]:
        """GET ``path`` as JSON; the only request this reader makes."""
        from kubernetes.client.exceptions import ApiException

        headers = {"Accept": "application/json"}
        try:
            if hasattr(self.api_client, "param_serialize"):  # client 33 and newer
                request = self.api_client.param_serialize(
                    "GET",
                    path,
                    query_params=query or [],
                    header_params=headers,
                    auth_settings=["BearerToken"],
                )
                response = self.api_client.call_api(*request)
                response.read()
            else:
                response = self.api_client.call_api(
                    path,
                    "GET",
                    query_params=query or [],
                    header_params=headers,
                    auth_settings=["BearerToken"],
                    _preload_content=False,
                )
            status, data = response.status, response.data
        except ApiException as error:
            status, data = error.status, error.body
        except Exception as error:  # urllib3 connection and TLS errors
            host = getattr(self.api_client.configuration, "host", "the cluster")
            raise LiveError(f"cannot reach {host}: {_one_line(error)}") from None
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data or "")
        if not 200 <= status < 300:
            raise _HTTPError(status, _status_message(status, text))
        try:
            decoded = json.loads(text)
        except json.JSONDecodeError:
            raise LiveError(f"GET {path}: the server did not answer with JSON") from None
        if not isinstance(decoded, dict):
            raise LiveError(f"GET {path}: the server did not answer with a JSON object")
        return decoded

    def served_versions(self, group: str) -> dict[str, set[str]]:
        """``{version: {plural, ...}}`` for the group's versions kubedra can read; ``{}`` when
        the group is not served."""
        try:
            group_info = self._get(f"/apis/{group}")
        except _HTTPError as error:
            if error.status == 404:
                return {}
            raise LiveError(f"discovery of {group}: {error.message}") from None
        versions = [
            entry.get("version")
            for entry in group_info.get("versions") or []
            if isinstance(entry, dict)
        ]
        served: dict[str, set[str]] = {}
        for version in RESOURCE_VERSIONS:
            if version not in versions:
                continue
            try:
                resources = self._get(f"/apis/{group}/{version}")
            except _HTTPError as error:
                raise LiveError(f"discovery of {group}/{version}: {error.message}") from None
            served[version] = {
                str(resource.get("name"))
                for resource in resources.get("resources") or []
                if isinstance(resource, dict) and "/" not in str(resource.get("name"))
            }
        return served

    def read(self, namespace: str | None = None) -> Snapshot:
        """Every kind of :data:`KINDS`; namespaced kinds only from ``namespace`` when given."""
        snapshot = Snapshot()
        served = self.served_versions(RESOURCE_GROUP)
        for kind in KINDS:
            version = self._version_for(kind, served)
            if version is None:
                snapshot.skipped.append(
                    f"{kind.resource}: not served in a version kubedra reads "
                    f"({', '.join(f'{kind.group}/{v}' for v in kind.versions)})"
                )
                continue
            group_version = f"{kind.group}/{version}" if kind.group else version
            try:
                items = list(self._list(kind, group_version, namespace))
            except _HTTPError as error:
                if error.status in (403, 404):
                    snapshot.skipped.append(f"{kind.resource}: {error.message}")
                    continue
                raise LiveError(f"listing {kind.resource}: {error.message}") from None
            snapshot.versions[kind.kind] = group_version
            snapshot.objects.extend(items)
        return snapshot

    @staticmethod
    def _version_for(kind: LiveKind, served: dict[str, set[str]]) -> str | None:
        if kind.group != RESOURCE_GROUP:
            return kind.versions[0]
        for version in kind.versions:
            if kind.plural in served.get(version, set()):
                return version
        return None

    def _list(
        self, kind: LiveKind, group_version: str, namespace: str | None
    ) -> Iterator[dict[str, Any]]:
        prefix = f"/apis/{group_version}" if kind.group else f"/api/{group_version}"
        scope = f"/namespaces/{namespace}" if kind.namespaced and namespace else ""
        path = f"{prefix}{scope}/{kind.plural}"
        token: str | None = None
        while True:
            query: list[tuple[str, Any]] = [("limit", self.chunk_size)]
            if token:
                query.append(("continue", token))
            page = self._get(path, query)
            for item in page.get("items") or []:
                if isinstance(item, dict):
                    yield _as_v1(item, group_version, kind.kind)
            token = (page.get("metadata") or {}).get("continue")
            if not token:
                return


def _as_v1(item: dict[str, Any], group_version: str, kind: str) -> dict[str, Any]:
    """List items carry no apiVersion and kind; managed fields are dropped as kubectl does."""
    obj = {"apiVersion": group_version, "kind": kind} | item
    metadata = obj.get("metadata")
    if isinstance(metadata, dict) and "managedFields" in metadata:
        obj["metadata"] = {key: value for key, value in metadata.items() if key != "managedFields"}
    return to_v1(obj)


def _status_message(status: int, text: str) -> str:
    """The message of the apiserver's ``Status`` object, else the HTTP status."""
    try:
        body = json.loads(text)
    except json.JSONDecodeError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("message"), str) and body["message"]:
        return str(body["message"])
    return f"HTTP {status}"


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split()) or type(error).__name__


def read_cluster(
    kubeconfig: str | None = None, context: str | None = None, namespace: str | None = None
) -> Snapshot:
    """Connect (see :func:`kubedra.live.connect.connect`) and read a snapshot."""
    from kubedra.live.connect import connect

    api_client = connect(kubeconfig, context)
    try:
        return ClusterReader(api_client).read(namespace)
    finally:
        api_client.close()
