"""A local cluster directory: one Kubernetes object per manifest file, written atomically.

Layout (``<plural>`` is the lower-case plural of the kind)::

    <root>/resourceslices/<name>.yaml            cluster-scoped objects
    <root>/deviceclasses/<name>.yaml
    <root>/nodes/<name>.yaml
    <root>/resourceclaims/<namespace>/<name>.yaml  namespaced objects
    <root>/pods/<namespace>/<name>.yaml

Writers replace a file in one rename, so a reader never sees half an object; temporary files
start with a dot and end in ``.tmp`` (leftovers of killed writers older than
``STALE_TEMP_AGE`` seconds are removed when a store opens the directory). Readers accept
``.yaml``, ``.yml`` and ``.json`` and parse them as kubectl does, through :mod:`kubedra.api.io`
(YAML 1.1 scalars, timestamps stay strings). The store plays the apiserver's part for the fields
it owns: ``uid``, ``resourceVersion`` (increasing), ``creationTimestamp`` and names from
``generateName``.

Names and namespaces become file names, so they must be what the apiserver allows (DNS
subdomains and DNS labels); a write whose directory leads out of the cluster directory
(a symbolic link) is refused.
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kubedra.api.io import yaml_emit
from kubedra.api.io.reading import LoadError, read_documents
from kubedra.api.naming import is_dns1123_label, is_dns1123_subdomain
from kubedra.driver.files import (
    OutsideRootError,
    ensure_inside,
    remove_file,
    remove_stale_temp_files,
    write_atomic,
)
from kubedra.driver.store import StoreError
from kubedra.gofmt import quote

log = logging.getLogger(__name__)

API_VERSIONS = {
    "ResourceSlice": "resource.k8s.io/v1",
    "ResourceClaim": "resource.k8s.io/v1",
    "ResourceClaimTemplate": "resource.k8s.io/v1",
    "DeviceClass": "resource.k8s.io/v1",
    "DeviceTaintRule": "resource.k8s.io/v1alpha3",
    "Pod": "v1",
    "Node": "v1",
}
NAMESPACED = frozenset({"ResourceClaim", "ResourceClaimTemplate", "Pod"})
MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
# The apiserver's generateName: at most 58 characters of prefix plus 5 random ones.
_GENERATED_SUFFIX_CHARS = "bcdfghjklmnpqrstvwxz2456789"
_MAX_GENERATE_PREFIX = 58
# Writes finish in milliseconds; a temporary file this old belongs to a killed writer.
STALE_TEMP_AGE = 30.0
NODE_POLL_INTERVAL = 0.05


def _copy(obj: dict[str, Any] | None) -> dict[str, Any] | None:
    """Callers get their own copy: the cached object must not change behind the cache."""
    return None if obj is None else json.loads(json.dumps(obj))


def plural(kind: str) -> str:
    lower = kind.lower()
    return lower + "es" if lower.endswith("s") else lower + "s"


class ClusterDirectory:
    """Read and write objects of a cluster directory; also a :class:`ClusterStore`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._cache: dict[Path, tuple[tuple[int, int, int], dict[str, Any] | None]] = {}
        self._lock = threading.Lock()
        self._last_version = 0

    def remove_stale_temp_files(self, min_age: float = STALE_TEMP_AGE) -> list[Path]:
        """Remove the temporary files that killed writers left (older than ``min_age``: other
        processes may be writing into the same directory right now)."""
        removed = remove_stale_temp_files(self.root, min_age=min_age, recursive=True)
        for path in removed:
            log.info("removed stale temporary file %s", path)
        return removed

    # --- generic object access -------------------------------------------------------------

    def object_path(self, kind: str, name: str, namespace: str | None = None) -> Path:
        """Where the object lives; names and namespaces that are not valid Kubernetes names
        (and so could leave the directory, like ``..`` or ``/etc``) are refused."""
        problems = [f"metadata.name: Invalid value: {quote(name)}: {m}" for m in _name_checks(name)]
        base = self.root / plural(kind)
        if kind in NAMESPACED:
            namespace = namespace or "default"
            problems += [
                f"metadata.namespace: Invalid value: {quote(namespace)}: {m}"
                for m in is_dns1123_label(namespace)
            ]
            path = base / namespace / f"{name}.yaml"
        else:
            path = base / f"{name}.yaml"
        if problems:
            raise StoreError(f"{kind} cannot be stored: {'; '.join(problems)}")
        return path

    def _read(self, path: Path) -> dict[str, Any] | None:
        """The object of a manifest file; None when there is none; raises
        :class:`UnreadableManifest` when the file cannot be read as a manifest (not a regular
        file, through a link out of the cluster directory, too large, not one object)."""
        try:
            stat = path.stat()
        except FileNotFoundError:
            return None
        # Writers replace files by rename, so a new inode means new content.
        key = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
        with self._lock:
            cached = self._cache.get(path)
            if cached and cached[0] == key:
                return _copy(cached[1])
        obj = _parse_manifest(path, self.root)
        with self._lock:
            self._cache[path] = (key, obj)
        return _copy(obj)

    def get(self, kind: str, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        """The object, or None when no file holds it; a file that cannot be read is a
        StoreError naming the reason (a claim's own error, not "not found")."""
        for suffix in MANIFEST_SUFFIXES:
            path = self.object_path(kind, name, namespace).with_suffix(suffix)
            try:
                obj = self._read(path)
            except UnreadableManifest as error:
                raise StoreError(str(error)) from None
            if obj is not None:
                return obj
        return None

    def list_objects(self, kind: str) -> list[dict[str, Any]]:
        base = self.root / plural(kind)
        if not base.is_dir():
            return []
        pattern = "*/*" if kind in NAMESPACED else "*"
        objects = []
        for path in sorted(base.glob(pattern)):
            if path.name.startswith(".") or path.suffix not in MANIFEST_SUFFIXES:
                continue
            try:
                obj = self._read(path)
            except UnreadableManifest as error:
                log.warning("skipping %s", error)
                continue
            if obj is not None and obj.get("kind", kind) == kind:
                objects.append(obj)
        return objects

    def _next_version(self) -> str:
        with self._lock:
            self._last_version = max(self._last_version + 1, time.time_ns())
            return str(self._last_version)

    def put(self, obj: dict[str, Any]) -> dict[str, Any]:
        """Store ``obj`` (filling uid, resourceVersion, creationTimestamp); returns the copy."""
        kind = obj.get("kind")
        if not kind:
            raise StoreError("an object needs a kind to be stored")
        stored = json.loads(json.dumps(obj))
        stored.setdefault("apiVersion", API_VERSIONS.get(str(kind), "v1"))
        meta = stored.setdefault("metadata", {})
        if not meta.get("name"):
            prefix = meta.get("generateName")
            if not prefix:
                raise StoreError(f"{kind}: metadata.name or metadata.generateName is required")
            suffix = "".join(random.choices(_GENERATED_SUFFIX_CHARS, k=5))
            meta["name"] = prefix[:_MAX_GENERATE_PREFIX] + suffix
        if kind in NAMESPACED:
            meta.setdefault("namespace", "default")
        meta.setdefault("uid", str(uuid.uuid4()))
        meta.setdefault(
            "creationTimestamp", datetime.now(UTC).replace(microsecond=0).isoformat()[:-6] + "Z"
        )
        meta["resourceVersion"] = self._next_version()
        path = self.object_path(str(kind), str(meta["name"]), meta.get("namespace"))
        try:
            ensure_inside(path, self.root)
        except OutsideRootError as error:
            raise StoreError(f"{kind} {meta['name']}: {error}") from error
        write_atomic(path, yaml_emit.dump(stored), durable=False)
        stat = path.stat()
        with self._lock:  # our own write needs no parsing when it is read back
            self._cache[path] = ((stat.st_ino, stat.st_mtime_ns, stat.st_size), _copy(stored))
        return stored

    def delete(self, kind: str, name: str, namespace: str | None = None) -> bool:
        removed = False
        for suffix in MANIFEST_SUFFIXES:
            path = self.object_path(kind, name, namespace).with_suffix(suffix)
            removed = remove_file(path) or removed
        return removed

    # --- ClusterStore --------------------------------------------------------------------

    def list_resource_slices(self, driver: str, node_name: str | None) -> list[dict[str, Any]]:
        return [
            s
            for s in self.list_objects("ResourceSlice")
            if (s.get("spec") or {}).get("driver") == driver
            and (node_name is None or (s.get("spec") or {}).get("nodeName") == node_name)
        ]

    def create_resource_slice(self, obj: dict[str, Any]) -> dict[str, Any]:
        name = (obj.get("metadata") or {}).get("name")
        if name and self.get("ResourceSlice", name) is not None:
            raise StoreError(f'resourceslices.resource.k8s.io "{name}" already exists')
        return self.put({**obj, "kind": "ResourceSlice"})

    def update_resource_slice(self, obj: dict[str, Any]) -> dict[str, Any]:
        meta = obj.get("metadata") or {}
        current = self.get("ResourceSlice", str(meta.get("name", "")))
        if current is None:
            raise StoreError(f'resourceslices.resource.k8s.io "{meta.get("name")}" not found')
        if meta.get("uid") and current["metadata"].get("uid") != meta.get("uid"):
            raise StoreError(f'resourceslices.resource.k8s.io "{meta.get("name")}" was replaced')
        return self.put({**obj, "kind": "ResourceSlice"})

    def delete_resource_slice(self, name: str, uid: str | None = None) -> bool:
        current = self.get("ResourceSlice", name)
        if current is None:
            return False
        if uid and (current.get("metadata") or {}).get("uid") != uid:
            return False
        return self.delete("ResourceSlice", name)

    def delete_node_resource_slices(self, node_name: str, driver: str | None = None) -> int:
        """What the kubelet does at start: remove the node's slices (of one driver or all)."""
        count = 0
        for obj in self.list_objects("ResourceSlice"):
            spec = obj.get("spec") or {}
            if spec.get("nodeName") != node_name or (driver and spec.get("driver") != driver):
                continue
            count += self.delete("ResourceSlice", obj["metadata"]["name"])
        return count

    def get_node_uid(self, name: str) -> str | None:
        node = self.get("Node", name)
        return None if node is None else (node.get("metadata") or {}).get("uid")

    def wait_for_node(self, name: str, timeout: float) -> bool:
        """Return as soon as the Node exists (True) or after ``timeout`` seconds (False)."""
        deadline = time.monotonic() + timeout
        while True:
            if self.get_node_uid(name):
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            time.sleep(min(NODE_POLL_INTERVAL, remaining))

    def register_node(self, name: str) -> str:
        """Create the Node object unless it exists, as a kubelet does; returns its UID."""
        uid = self.get_node_uid(name)
        if uid:
            return uid
        stored = self.put({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}})
        return str(stored["metadata"]["uid"])

    def get_resource_claim(self, namespace: str, name: str) -> dict[str, Any] | None:
        return self.get("ResourceClaim", name, namespace)

    def list_pods(self, node_name: str) -> list[dict[str, Any]]:
        pods = self.list_objects("Pod")
        return [p for p in pods if (p.get("spec") or {}).get("nodeName") == node_name]


def _name_checks(name: str) -> tuple[str, ...]:
    return ("must be non-empty",) if not name else is_dns1123_subdomain(name)


class UnreadableManifest(Exception):
    """A file of the cluster directory that is not read: the message says which and why."""


def _parse_manifest(path: Path, root: Path) -> dict[str, Any] | None:
    """The one object of a manifest file, read as the loaders read files (regular files
    only, so a FIFO never blocks; bounded size; YAML aliases that stay small); None when
    the file is gone. A path that leads out of ``root`` through a symbolic link is refused,
    as writes through such links are."""
    real, real_root = path.resolve(), root.resolve()
    if not real.is_relative_to(real_root):
        raise UnreadableManifest(f"{path}: leads outside {root} (to {real}): refusing to read it")
    documents = list(read_documents(path))
    if len(documents) == 1 and not isinstance(documents[0], LoadError):
        content = documents[0].content
        if isinstance(content, dict):
            return content
    for document in documents:
        if isinstance(document, LoadError):
            if not path.exists():
                return None  # removed between listing and reading
            raise UnreadableManifest(str(document))
    raise UnreadableManifest(f"{path}: a manifest must hold one object")
