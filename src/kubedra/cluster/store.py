"""An in-memory apiserver for the simulated control plane.

It fills in what the apiserver does (uid, resourceVersion, creationTimestamp, generated
names, the default namespace), defaults and validates on create with :mod:`kubedra.api`,
answers with the apiserver's error codes and messages, honours finalizers on delete and
garbage-collects dependents through owner references. Subscribers see every change, in order.

Objects are stored as given and handed out without copying: callers treat them as read-only
and build a new dict (copying only what they change) for :meth:`Store.update`.
"""

from __future__ import annotations

import builtins
import random
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from kubedra.api.defaults import apply_defaults
from kubedra.api.validation import FieldError, ValidationMemo, format_invalid, validate_object
from kubedra.cluster.admission import Admission, AdmissionError
from kubedra.cluster.clock import SimClock, format_time
from kubedra.cluster.events import Event, EventType
from kubedra.cluster.kinds import KINDS, KindInfo
from kubedra.gofmt import quote

Key = tuple[str, str]
"""(namespace, name); the namespace is "" for cluster-scoped kinds."""

Handler = Callable[[Event], None]

_NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789"
"""apimachinery's utilrand alphabet for generated names (no vowels, no look-alikes)."""
_MAX_GENERATED_BASE = 58
_GENERATE_ATTEMPTS = 8

DELETE_PROTECTION_FINALIZER = "resource.kubernetes.io/delete-protection"


class StoreError(Exception):
    """An apiserver error: HTTP code, reason, message and (for Invalid) the field causes."""

    def __init__(
        self, code: int, reason: str, message: str, causes: list[dict[str, Any]] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.causes = causes or []

    def __str__(self) -> str:
        return self.message


def not_found(info: KindInfo, name: str) -> StoreError:
    return StoreError(404, "NotFound", f"{info.group_resource} {quote(name)} not found")


def already_exists(info: KindInfo, name: str) -> StoreError:
    return StoreError(409, "AlreadyExists", f"{info.group_resource} {quote(name)} already exists")


def conflict(info: KindInfo, name: str) -> StoreError:
    return StoreError(
        409,
        "Conflict",
        f"Operation cannot be fulfilled on {info.group_resource} {quote(name)}: the object has "
        "been modified; please apply your changes to the latest version and try again",
    )


def invalid(info: KindInfo, name: str, errors: list[FieldError]) -> StoreError:
    header_obj = {"apiVersion": info.api_version, "kind": info.kind, "metadata": {"name": name}}
    causes = [
        {"reason": error.type.reason, "message": error.body(), "field": error.field}
        for error in errors
    ]
    return StoreError(422, "Invalid", format_invalid(header_obj, errors), causes)


def meta_of(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def key_of(obj: dict[str, Any]) -> str:
    """``namespace/name`` (``name`` when cluster-scoped)."""
    meta = meta_of(obj)
    namespace = meta.get("namespace")
    return f"{namespace}/{meta.get('name', '')}" if namespace else str(meta.get("name", ""))


def _uuid4(rng: random.Random) -> str:
    """A version 4 UUID drawn from ``rng``: ``str(uuid.UUID(int=bits, version=4))`` spelled
    out, since building the UUID object cost twice as much as the formatting."""
    n = rng.getrandbits(128)
    n = (n & ~(0xC000 << 48)) | (0x8000 << 48)  # variant RFC 4122
    n = (n & ~(0xF000 << 64)) | (4 << 76)  # version 4
    h = f"{n:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


class Store:
    """The objects of one simulated cluster, by kind, in creation order."""

    def __init__(
        self,
        clock: SimClock,
        namespace: str = "default",
        features: Any = None,
        *,
        seed: int = 0,
        validate_updates: bool = False,
        admission: Admission | None = None,
    ) -> None:
        self.clock = clock
        self.namespace = namespace
        self.features = features
        self.validate_updates = validate_updates
        self.admission = admission
        """Admission on create (kubedra.cluster.admission); None: no plugins, nothing dropped,
        as a bare apiserver with admission turned off (the unit tests' store)."""
        self._rng = random.Random(seed)
        # shareIDs come from a stream of their own: how many the allocator draws must not
        # move the names and uids the store generates after them.
        self._share_rng = random.Random(f"shareID/{seed}")
        self._objects: dict[str, dict[Key, dict[str, Any]]] = {kind: {} for kind in KINDS}
        self._by_uid: dict[str, tuple[str, Key]] = {}
        self._dependents: dict[str, set[tuple[str, Key]]] = {}
        self._handlers: list[Handler] = []
        self._version = 0
        # Pods and claims of one shape are validated in full once (kubedra.api.validation.memo).
        self._validation = ValidationMemo()

    # --- reading ---------------------------------------------------------------------------

    def get(self, kind: str, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        # _info and _key spelled out: every controller reads through here on every event.
        info = KINDS.get(kind)
        if info is None:
            self._info(kind)  # raises the unknown kind's error
        elif info.namespaced:
            return self._objects[kind].get((namespace or self.namespace, name))
        return self._objects[kind].get(("", name))

    def list(self, kind: str, namespace: str | None = None) -> list[dict[str, Any]]:
        """All objects of ``kind`` (in ``namespace`` when given), in creation order."""
        self._info(kind)
        objects = self._objects[kind]
        if namespace is None:
            return list(objects.values())
        return [obj for (ns, _), obj in objects.items() if ns == namespace]

    def count(self, kind: str) -> int:
        return len(self._objects[kind])

    def by_uid(self, uid: str) -> dict[str, Any] | None:
        entry = self._by_uid.get(uid)
        if entry is None:
            return None
        return self._objects[entry[0]].get(entry[1])

    def dependents(self, owner_uid: str) -> builtins.list[dict[str, Any]]:
        """Objects with an owner reference to ``owner_uid`` (what the GC would collect)."""
        found = []
        for kind, key in sorted(self._dependents.get(owner_uid, ())):
            obj = self._objects[kind].get(key)
            if obj is not None:
                found.append(obj)
        return found

    @property
    def resource_version(self) -> int:
        """The newest resourceVersion handed out."""
        return self._version

    def subscribe(self, handler: Handler) -> None:
        """Call ``handler`` synchronously for every later change, in order."""
        self._handlers.append(handler)

    def unsubscribe(self, handler: Handler) -> None:
        """Stop calling ``handler`` (one subscription of it)."""
        self._handlers.remove(handler)

    # --- writing ---------------------------------------------------------------------------

    def create(
        self, obj: dict[str, Any], *, admit: bool = True, dry_run: bool = False
    ) -> dict[str, Any]:
        """Create ``obj`` as the apiserver would; return the stored object.

        ``admit=False`` restores an object that passed admission where it came from (an export
        of a live cluster): defaulting and validation still apply, admission does not.
        ``dry_run`` (``?dryRun=All``) checks everything and returns the object as it would be
        stored (with no resourceVersion), changing nothing: no name or uid is used up either.
        """
        if dry_run:
            random_state = self._rng.getstate()
            try:
                return self._create(obj, admit, dry_run=True)
            finally:
                self._rng.setstate(random_state)
        return self._create(obj, admit, dry_run=False)

    def _create(self, obj: dict[str, Any], admit: bool, dry_run: bool) -> dict[str, Any]:
        info = self._kind_of(obj)
        meta = dict(meta_of(obj))
        if meta.get("resourceVersion"):
            raise StoreError(
                400, "BadRequest", "resourceVersion should not be set on objects to be created"
            )
        if info.namespaced and not meta.get("namespace"):
            meta["namespace"] = self.namespace
        objects = self._objects[info.kind]
        requested = str(meta.get("name") or "")  # admission sees no generated name yet
        if not meta.get("name") and meta.get("generateName"):
            meta["name"] = self._generate_name(info, str(meta["generateName"]), meta)
        meta.pop("uid", None)
        meta.pop("creationTimestamp", None)
        meta.pop("deletionTimestamp", None)
        meta.pop("deletionGracePeriodSeconds", None)
        defaulted = apply_defaults({**obj, "metadata": meta}, now=self.clock.now())
        name = str(meta.get("name") or "")
        admission = self.admission if admit else None
        if admission is not None:
            defaulted = self._admit(info, requested, defaulted)
        errors = self._validation.validate(defaulted)
        if errors:
            raise invalid(info, name or str(meta.get("generateName") or ""), errors)
        if admission is not None:
            try:
                admission.validate(defaulted, info, requested, self._priority_classes)
            except AdmissionError as error:
                raise StoreError(403, "Forbidden", error.message) from None
        key = self._key(info, name, meta.get("namespace"))
        if key in objects:
            raise already_exists(info, name)
        stored_meta = dict(defaulted["metadata"])
        stored_meta["uid"] = self._uid()
        if not dry_run:
            stored_meta["resourceVersion"] = self._next_version()
        stored_meta["creationTimestamp"] = self.clock.timestamp()
        defaulted["metadata"] = stored_meta
        if info.kind == "Pod" and not isinstance(defaulted.get("status"), dict):
            defaulted["status"] = {"phase": "Pending", "qosClass": qos_class(defaulted)}
        elif info.kind == "Pod" and not defaulted["status"].get("phase"):
            defaulted["status"] = {**defaulted["status"], "phase": "Pending"}  # as the API does
        if dry_run:
            return defaulted
        objects[key] = defaulted
        self._by_uid[stored_meta["uid"]] = (info.kind, key)
        for ref in stored_meta.get("ownerReferences") or []:
            if isinstance(ref, dict) and ref.get("uid"):
                self._dependents.setdefault(ref["uid"], set()).add((info.kind, key))
        self._emit("ADDED", info.kind, defaulted, None)
        return defaulted

    def update(self, obj: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any]:
        """Replace the stored object; a set resourceVersion must be the current one.

        ``dry_run`` returns the object as it would be stored (its resourceVersion unchanged)
        and changes nothing.
        """
        info = self._kind_of(obj)
        meta = obj.get("metadata")
        if not isinstance(meta, dict):
            meta = {}
        name = str(meta.get("name") or "")
        # _key spelled out: every controller's write comes through here.
        key = (meta.get("namespace") or self.namespace, name) if info.namespaced else ("", name)
        objects = self._objects[info.kind]
        old = objects.get(key)
        if old is None:
            raise not_found(info, name)
        old_meta = old["metadata"]
        version = meta.get("resourceVersion")
        if version and version != old_meta["resourceVersion"]:
            raise conflict(info, name)
        if self.validate_updates:
            errors = validate_object(obj)
            if errors:
                raise invalid(info, name, errors)
        new_meta = dict(meta)
        if meta is not old_meta:  # most writes keep the stored metadata (a status change)
            for field in ("uid", "creationTimestamp", "deletionTimestamp", "namespace"):
                if field in old_meta:
                    new_meta[field] = old_meta[field]
        if "deletionTimestamp" in old_meta:
            new_meta["deletionGracePeriodSeconds"] = old_meta.get("deletionGracePeriodSeconds", 0)
        if dry_run:
            new_meta["resourceVersion"] = old_meta["resourceVersion"]
            return {**obj, "metadata": new_meta}
        if new_meta.get("ownerReferences") != old_meta.get("ownerReferences"):
            self._reindex_owners(info.kind, key, old_meta, new_meta)
        self._version += 1  # _next_version, spelled out on the path of every write
        new_meta["resourceVersion"] = str(self._version)
        new = dict(obj)
        new["metadata"] = new_meta
        objects[key] = new
        if "deletionTimestamp" in new_meta and _deletion_due(new_meta):
            self._remove(info.kind, key, new)
            return new
        self._emit("MODIFIED", info.kind, new, old)
        return new

    def delete(
        self,
        kind: str,
        name: str,
        namespace: str | None = None,
        *,
        grace_period_seconds: int | None = None,
        dry_run: bool = False,
    ) -> dict[str, Any] | None:
        """Delete: with finalizers the object only gets a deletionTimestamp.

        ``grace_period_seconds`` (the API's DeleteOptions) makes the deletion of a pod that
        runs on a node graceful, as the apiserver does: the pod gets a deletionTimestamp that
        far ahead and stays until its kubelet has stopped it (kubedra.cluster.kubelet), which
        then deletes it with no grace period. None (the simulation's own deletions) or 0
        deletes at once. ``dry_run`` returns the object as the deletion would leave it and
        changes nothing.

        Returns the object's last state (None when it did not exist, like a 404 ignored).
        """
        info = self._info(kind)
        key = self._key(info, name, namespace)
        obj = self._objects[kind].get(key)
        if obj is None:
            return None
        meta = obj["metadata"]
        grace = grace_period_seconds or 0
        if kind != "Pod" or not _runs_on_node(obj):
            grace = 0
        if "deletionTimestamp" in meta:
            pending = int(meta.get("deletionGracePeriodSeconds") or 0)
            if grace >= pending:
                return obj  # already being deleted, at least as soon
        elif not grace and not meta.get("finalizers"):
            if not dry_run:
                self._remove(kind, key, obj)
            return obj
        new_meta = dict(meta)
        new_meta["deletionTimestamp"] = format_time(self.clock.now() + timedelta(seconds=grace))
        new_meta["deletionGracePeriodSeconds"] = grace
        if dry_run:
            return {**obj, "metadata": new_meta}
        new_meta["resourceVersion"] = self._next_version()
        new = dict(obj)
        new["metadata"] = new_meta
        self._objects[kind][key] = new
        if _deletion_due(new_meta):
            self._remove(kind, key, new)
            return new
        self._emit("MODIFIED", kind, new, obj)
        return new

    # --- internals -------------------------------------------------------------------------

    def _admit(self, info: KindInfo, name: str, obj: dict[str, Any]) -> dict[str, Any]:
        """Mutating admission, then the fields of disabled features dropped."""
        assert self.admission is not None
        try:
            obj = self.admission.mutate(
                obj, info, name, self._priority_class, self._priority_classes
            )
        except AdmissionError as error:
            raise StoreError(403, "Forbidden", error.message) from None
        return self.admission.prepare(obj)

    def _priority_class(self, name: str) -> dict[str, Any] | None:
        return self.get("PriorityClass", name)

    def _priority_classes(self) -> builtins.list[dict[str, Any]]:
        return self.list("PriorityClass")

    def _remove(self, kind: str, key: Key, obj: dict[str, Any]) -> None:
        del self._objects[kind][key]
        meta = obj["metadata"]
        uid = meta.get("uid")
        self._by_uid.pop(uid, None)
        for ref in meta.get("ownerReferences") or []:
            if isinstance(ref, dict):
                owned = self._dependents.get(ref.get("uid", ""))
                if owned is not None:
                    owned.discard((kind, key))
        self._emit("DELETED", kind, obj, None)
        self._collect_dependents(uid)

    def _collect_dependents(self, owner_uid: str) -> None:
        """The garbage collector (background propagation): orphans lose dead owners or go."""
        dependents = self._dependents.pop(owner_uid, set())
        for kind, key in sorted(dependents):
            obj = self._objects[kind].get(key)
            if obj is None:
                continue
            refs = obj["metadata"].get("ownerReferences") or []
            alive = [ref for ref in refs if ref.get("uid") in self._by_uid]
            if alive:
                self.update(obj | {"metadata": obj["metadata"] | {"ownerReferences": alive}})
            else:
                self.delete(kind, key[1], key[0] or None)

    def _reindex_owners(
        self, kind: str, key: Key, old_meta: dict[str, Any], new_meta: dict[str, Any]
    ) -> None:
        for ref in old_meta.get("ownerReferences") or []:
            owned = self._dependents.get(ref.get("uid", ""))
            if owned is not None:
                owned.discard((kind, key))
        for ref in new_meta.get("ownerReferences") or []:
            if isinstance(ref, dict) and ref.get("uid"):
                self._dependents.setdefault(ref["uid"], set()).add((kind, key))

    def _emit(self, type_: EventType, kind: str, obj: dict[str, Any], old: Any) -> None:
        if not self._handlers:
            return
        event = Event(type_, kind, obj, old)
        for handler in self._handlers:
            handler(event)

    def _next_version(self) -> str:
        self._version += 1
        return str(self._version)

    def _uid(self) -> str:
        """A version 4 UUID from the seeded generator."""
        return _uuid4(self._rng)

    def share_id(self) -> str:
        """A shareID for a share of a device allocated in shares: a version 4 UUID as
        upstream's allocator makes, from a seeded stream of its own (runs with the same seed
        write the same claims)."""
        return _uuid4(self._share_rng)

    def random_suffix(self, length: int = 5) -> str:
        """Random characters as apimachinery's utilrand.String makes them (seeded here)."""
        return "".join(self._rng.choice(_NAME_CHARS) for _ in range(length))

    def _generate_name(self, info: KindInfo, base: str, meta: dict[str, Any]) -> str:
        base = base[:_MAX_GENERATED_BASE]
        objects = self._objects[info.kind]
        namespace = meta.get("namespace")
        name = base + self.random_suffix()
        for _ in range(_GENERATE_ATTEMPTS - 1):
            if self._key(info, name, namespace) not in objects:
                break
            name = base + self.random_suffix()
        return name

    def _kind_of(self, obj: dict[str, Any]) -> KindInfo:
        kind = obj.get("kind") if isinstance(obj, dict) else None
        info = KINDS.get(kind) if isinstance(kind, str) else None
        api_version = obj.get("apiVersion") if isinstance(obj, dict) else None
        if info is None or (
            # info.versions without building the tuple: every create and update asks
            api_version != info.api_version and api_version not in info.other_versions
        ):
            raise StoreError(
                404,
                "NotFound",
                f"no matches for kind {quote(str(kind))} in version {quote(str(api_version))}",
            )
        return info

    def _info(self, kind: str) -> KindInfo:
        info = KINDS.get(kind)
        if info is None:
            raise StoreError(404, "NotFound", f"the server doesn't have a resource type {kind!r}")
        return info

    def _key(self, info: KindInfo, name: str, namespace: str | None) -> Key:
        if not info.namespaced:
            return ("", name)
        return (namespace or self.namespace, name)


def _deletion_due(meta: dict[str, Any]) -> bool:
    """A deleted object goes once no finalizer holds it and no grace period is running."""
    return (
        "deletionTimestamp" in meta
        and not meta.get("finalizers")
        and not meta.get("deletionGracePeriodSeconds")
    )


def _runs_on_node(pod: dict[str, Any]) -> bool:
    """Bound and not finished: a kubelet has containers to stop (else deletion is at once)."""
    phase = (pod.get("status") or {}).get("phase")
    return bool((pod.get("spec") or {}).get("nodeName")) and phase not in ("Succeeded", "Failed")


def qos_class(pod: dict[str, Any]) -> str:
    """The pod's QoS class as the apiserver computes it from cpu and memory requests/limits."""
    spec = pod.get("spec") or {}
    containers = list(spec.get("containers") or []) + list(spec.get("initContainers") or [])
    requested = False
    guaranteed = True
    for container in containers:
        resources = container.get("resources") or {}
        requests = resources.get("requests") or {}
        limits = resources.get("limits") or {}
        for name in ("cpu", "memory"):
            if name in requests or name in limits:
                requested = True
            if name not in limits or requests.get(name, limits[name]) != limits[name]:
                guaranteed = False
    if not requested:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"
