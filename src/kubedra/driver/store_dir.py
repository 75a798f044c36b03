"""A local cluster directory: one Kubernetes object per manifest file, written atomically.

Layout (``<plural>`` is the lower-case plural of the kind)::

    <root>/resourceslices/<name>.yaml            cluster-scoped objects
    <root>/deviceclasses/<name>.yaml
    <root>/nodes/<name>.yaml
    <root>/resourceclaims/<namespace>/<name>.yaml  namespaced objects
    <root>/pods/<namespace>/<name>.yaml

Writers replace a file in one rename, so a reader never sees half an object; temporary files
start with a dot and end in ``.tmp``. Readers accept ``.yaml``, ``.yml`` and ``.json``. The store
plays the apiserver's part for the fields it owns: ``uid``, ``resourceVersion`` (increasing),
``creationTimestamp`` and names from ``generateName``.
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

import yaml

from kubedra.api.io import yaml_emit
from kubedra.driver.files import remove_file, write_atomic
from kubedra.driver.store import StoreError

log = logging.getLogger(__name__)

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

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

    # --- generic object access -------------------------------------------------------------

    def object_path(self, kind: str, name: str, namespace: str | None = None) -> Path:
        if not name or "/" in name or name.startswith("."):
            raise StoreError(f"{kind} name {name!r} cannot be stored as a file name")
        base = self.root / plural(kind)
        if kind in NAMESPACED:
            return base / (namespace or "default") / f"{name}.yaml"
        return base / f"{name}.yaml"

    def _read(self, path: Path) -> dict[str, Any] | None:
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
        try:
            text = path.read_text()
            obj = json.loads(text) if path.suffix == ".json" else yaml.load(text, Loader=_Loader)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, yaml.YAMLError) as error:
            log.warning("skipping unreadable manifest %s: %s", path, error)
            obj = None
        if obj is not None and not isinstance(obj, dict):
            log.warning("skipping %s: a manifest must hold one object", path)
            obj = None
        with self._lock:
            self._cache[path] = (key, obj)
        return _copy(obj)

    def get(self, kind: str, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        for suffix in MANIFEST_SUFFIXES:
            path = self.object_path(kind, name, namespace).with_suffix(suffix)
            obj = self._read(path)
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
            obj = self._read(path)
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
        path = self.object_path(str(kind), meta["name"], meta.get("namespace"))
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
