"""The simulated cluster behind the API: one lock, writes, then the control loop to rest.

Every request runs under the lock. After a write the simulation loop runs (controllers,
scheduler, kubelet) until nothing changes, so a pod created with kubectl is scheduled before
the next request is answered. Reads see the store as it is.

Before each request the cluster catches up with time: with ``follow_wall_clock`` the
simulated clock moves on with the wall clock (it never goes back: the loop may have moved it
ahead to a retry or an eviction), and the nodes' kubelets report and renew their Leases when
due (:mod:`kubedra.apiserver.heartbeat`). Writes with ``dry_run`` (``?dryRun=All``) are checked
as real ones and change nothing.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any, Protocol

from kubedra.api.defaults import apply_defaults
from kubedra.api.io import DecodeError, decode
from kubedra.api.releases import DEFAULT
from kubedra.api.scheduling_versions import to_version
from kubedra.api.validation import validate_object, validate_update
from kubedra.apiserver.discovery import (
    EVENT,
    LEASE,
    READ_ONLY,
    WITH_STATUS,
    hidden_kinds,
    server_version,
)
from kubedra.apiserver.events import EventRecorder
from kubedra.apiserver.heartbeat import NodeHeartbeats
from kubedra.apiserver.status import (
    ApiError,
    bad_request,
    from_store_error,
    method_not_allowed,
    not_found,
)
from kubedra.apiserver.strategic import strategic_merge_patch
from kubedra.apiserver.watch import ChangeFeed
from kubedra.cluster.clock import SimClock
from kubedra.cluster.events import Event
from kubedra.cluster.kinds import KindInfo
from kubedra.cluster.store import Store, StoreError, invalid
from kubedra.gofmt import quote

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def shown_as(info: KindInfo, obj: dict[str, Any]) -> dict[str, Any]:
    """A stored object as the requested version shows it: 1.37 stores Workload and PodGroup as
    ``scheduling.k8s.io/v1beta1`` and serves them as ``v1alpha3`` too (the same fields)."""
    if obj.get("kind") != info.kind:
        return obj
    return to_version(obj, info.api_version) or obj


class SimulationLike(Protocol):
    """What the server needs of kubedra.cluster.simulation.Simulation."""

    store: Store
    clock: SimClock

    def run(self) -> None: ...


class LiveCluster:
    """A Simulation served over HTTP: serialized access, a change feed and scheduling events.

    ``follow_wall_clock`` moves the simulated clock on with the wall clock from where it
    stands now (a live server); without it the clock moves only as the simulation moves it
    (reproducible runs). ``release`` is the Kubernetes release ``/version`` reports and whose
    kinds are served (None: the default); ``gate_enabled`` says which feature gates are on, and
    so which gated (alpha) kinds are served (None: none of them).
    """

    def __init__(
        self,
        simulation: SimulationLike,
        *,
        follow_wall_clock: bool = False,
        release: str | None = None,
        gate_enabled: Callable[[str], bool] | None = None,
    ) -> None:
        self.simulation = simulation
        self.store = simulation.store
        self.clock = simulation.clock
        self.lock = threading.RLock()
        self.feed = ChangeFeed(self.store.resource_version)
        self.events = EventRecorder(self.clock)
        self.closed = False
        self.release = release
        self.hidden_kinds: frozenset[str] = hidden_kinds(gate_enabled or (lambda gate: False))
        """Gated kinds not served (``discovery.GATED_KINDS`` whose gate is off)."""
        self.follow_wall_clock = follow_wall_clock
        self._started = (time.monotonic(), self.clock.now())
        self.heartbeats = NodeHeartbeats(
            self.store, self.clock, server_version(release)["gitVersion"]
        )
        with self.lock:
            self.store.subscribe(self._record)
            self._settle()
            self.tick()

    def _record(self, event: Event) -> None:
        self.feed.record(event, self.store.resource_version)

    def _settle(self) -> None:
        """Run the control loop to its fixed point, then turn new decisions into Events."""
        self.simulation.run()
        scheduler = getattr(self.simulation, "scheduler", None)
        changes = self.events.observe(getattr(scheduler, "decisions", []), self.store)
        controller = getattr(self.simulation, "controller_events", [])
        changes += self.events.observe_controller(controller, self.store)
        for change in changes:
            self.feed.record(change, self.store.resource_version)

    def tick(self) -> None:
        """Catch up with time: the wall clock (when followed), then the kubelets' heartbeats;
        the loop runs again when a node's status changed (a new condition wakes the scheduler
        as it does upstream)."""
        with self.lock:
            if self.follow_wall_clock:
                since, start = self._started
                elapsed = int(time.monotonic() - since)
                self.clock.advance_to(start + timedelta(seconds=elapsed))
            before = self.store.resource_version
            for change in self.heartbeats.beat():
                self.feed.record(change, self.store.resource_version)
            if self.store.resource_version != before:
                self._settle()

    # --- reading ---------------------------------------------------------------------------

    def get(self, info: KindInfo, name: str, namespace: str | None) -> dict[str, Any]:
        with self.lock:
            self.tick()
            if info is EVENT:
                obj = self.events.get(name, namespace)
            elif info is LEASE:
                obj = self.heartbeats.get(name, namespace)
            else:
                obj = self.store.get(info.kind, name, namespace)
            if obj is None:
                raise not_found(info, name)
            return shown_as(info, obj)

    def list(self, info: KindInfo, namespace: str | None) -> tuple[list[dict[str, Any]], int]:
        """The objects and the resourceVersion the list was taken at."""
        with self.lock:
            self.tick()
            if info is EVENT:
                items = self.events.list(namespace)
            elif info is LEASE:
                items = self.heartbeats.list(namespace)
            else:
                items = self.store.list(info.kind, namespace if info.namespaced else None)
            return [shown_as(info, obj) for obj in items], self.store.resource_version

    # --- writing ---------------------------------------------------------------------------

    def create(
        self,
        info: KindInfo,
        namespace: str | None,
        body: Any,
        url_name: str | None = None,
        *,
        dry_run: bool = False,
    ) -> dict[str, Any]:
        """POST (``url_name`` None), or an apply patch to a name that does not exist yet."""
        if info in READ_ONLY:
            raise method_not_allowed("create", info)
        obj = self._decode(info, namespace, body)
        if url_name is not None:
            check_name(obj, url_name)
        if info.kind == "Namespace" and not (obj.get("status") or {}).get("phase"):
            obj["status"] = {**(obj.get("status") or {}), "phase": "Active"}  # as upstream
        if info.kind == "Pod":
            obj.pop("status", None)  # the apiserver starts every pod as Pending (PrepareForCreate)
        if info.kind == "ResourcePoolStatusRequest":
            obj.pop("status", None)  # its strategy's PrepareForCreate: the controller answers
        name = str(obj["metadata"].get("name") or obj["metadata"].get("generateName") or "")
        with self.lock:
            self.tick()
            try:
                created = self.store.create(obj, dry_run=dry_run)
            except StoreError as error:
                raise from_store_error(error, info, name) from None
            if not dry_run:
                self._settle()
            return shown_as(info, created)

    def replace(
        self,
        info: KindInfo,
        namespace: str | None,
        name: str,
        body: Any,
        subresource: str,
        *,
        dry_run: bool = False,
    ) -> dict[str, Any]:
        """PUT: the main resource keeps the stored status; ``/status`` changes only status."""
        if info in READ_ONLY:
            raise method_not_allowed("update", info)
        obj = self._decode(info, namespace, body)
        check_name(obj, name)
        with self.lock:
            self.tick()
            current = self.store.get(info.kind, name, namespace)
            if current is None:
                raise not_found(info, name)
            new = self._merge_status(info, current, obj, subresource)
            return shown_as(info, self._update(info, name, new, dry_run))

    def patch(
        self,
        info: KindInfo,
        namespace: str | None,
        name: str,
        patch: Any,
        content_type: str,
        subresource: str,
        *,
        dry_run: bool = False,
    ) -> dict[str, Any]:
        """Merge patches, strategic merge patches (lists merged by their upstream merge keys,
        :mod:`kubedra.apiserver.strategic`) and apply patches."""
        if info in READ_ONLY:
            raise method_not_allowed("patch", info)
        if "json-patch" in content_type:
            raise ApiError(
                415,
                "UnsupportedMediaType",
                f"the body of the request was in an unknown format - accepted media types "
                f"include: application/merge-patch+json, application/strategic-merge-patch+json,"
                f" application/apply-patch+yaml; got {content_type}",
            )
        if not isinstance(patch, dict):
            raise bad_request("the patch must be a JSON object")
        with self.lock:
            self.tick()
            current = self.store.get(info.kind, name, namespace)
            if current is None:
                if "apply-patch" in content_type:
                    return self.create(info, namespace, patch, url_name=name, dry_run=dry_run)
                raise not_found(info, name)
            shown = copy.deepcopy(shown_as(info, current))
            if "strategic" in content_type:
                merged = strategic_merge_patch(shown, patch, info.kind)
            else:
                merged = merge_patch(shown, patch)
            obj = self._decode(info, namespace, merged)
            check_name(obj, name)  # a patch may not rename: it would rewrite another object
            new = self._merge_status(info, current, obj, subresource)
            return shown_as(info, self._update(info, name, new, dry_run))

    def delete(
        self,
        info: KindInfo,
        namespace: str | None,
        name: str,
        options: dict[str, Any],
        *,
        dry_run: bool = False,
    ) -> dict[str, Any]:
        """DELETE with DeleteOptions: a running pod's deletion is graceful (its
        ``gracePeriodSeconds``, else the pod's ``terminationGracePeriodSeconds``), so watchers
        see it Terminating before its kubelet stops it and it goes."""
        if info in READ_ONLY:
            raise method_not_allowed("delete", info)
        with self.lock:
            self.tick()
            current = self.store.get(info.kind, name, namespace)
            if current is None:
                raise not_found(info, name)
            preconditions = options.get("preconditions") or {}
            for field in ("uid", "resourceVersion"):
                wanted = preconditions.get(field)
                have = current["metadata"].get(field)
                if wanted and wanted != have:
                    raise ApiError(
                        409,
                        "Conflict",
                        f"Operation cannot be fulfilled on {info.group_resource} {quote(name)}: "
                        f"Precondition failed: {field.upper() if field == 'uid' else field}: "
                        f"{wanted}, ObjectMeta.{'UID' if field == 'uid' else 'ResourceVersion'}: "
                        f"{have}",
                    )
            grace = grace_period(options, current)
            try:
                last = self.store.delete(
                    info.kind, name, namespace, grace_period_seconds=grace, dry_run=dry_run
                )
            except StoreError as error:
                raise from_store_error(error, info, name) from None
            if not dry_run:
                self._settle()
            if last is None:
                raise not_found(info, name)
            return shown_as(info, last)

    # --- helpers ---------------------------------------------------------------------------

    def _update(
        self, info: KindInfo, name: str, new: dict[str, Any], dry_run: bool = False
    ) -> dict[str, Any]:
        """Default and validate as on create, plus the kind's update rules (immutable fields);
        the store trusts its controllers' updates."""
        new = apply_defaults(new, now=self.clock.now())
        current = self.store.get(info.kind, name, new["metadata"].get("namespace"))
        errors = validate_update(new, current) if current is not None else validate_object(new)
        if errors:
            raise from_store_error(invalid(info, name, errors), info, name)
        try:
            updated = self.store.update(new, dry_run=dry_run)
        except StoreError as error:
            raise from_store_error(error, info, name) from None
        if not dry_run:
            self._settle()
        return updated

    @staticmethod
    def _merge_status(
        info: KindInfo, current: dict[str, Any], obj: dict[str, Any], subresource: str
    ) -> dict[str, Any]:
        if subresource == "status":
            new = dict(current)
            new["metadata"] = {
                **current["metadata"],
                "resourceVersion": obj["metadata"].get("resourceVersion")
                or current["metadata"]["resourceVersion"],
            }
            if "status" in obj:
                new["status"] = obj["status"]
            else:
                new.pop("status", None)
            return new
        if info.kind in WITH_STATUS:
            new = {key: value for key, value in obj.items() if key != "status"}
            if "status" in current:
                new["status"] = current["status"]
            return new
        return obj

    def _decode(self, info: KindInfo, namespace: str | None, body: Any) -> dict[str, Any]:
        """Check the body as the apiserver's decoder does; fill apiVersion, kind, namespace."""
        if not isinstance(body, dict):
            raise bad_request(f"the body of the request is not a {info.kind} object")
        body = dict(body)
        api_version = body.setdefault("apiVersion", info.api_version)
        kind = body.setdefault("kind", info.kind)
        if api_version != info.api_version:
            raise bad_request(
                f"the API version in the data ({api_version}) does not match the expected API "
                f"version ({info.api_version})"
            )
        if kind != info.kind:
            raise bad_request(
                f"the kind in the data ({kind}) does not match the expected kind ({info.kind})"
            )
        meta = body.get("metadata")
        if not isinstance(meta, dict):
            meta = {}
        meta = dict(meta)
        if info.namespaced:
            if meta.get("namespace") and namespace and meta["namespace"] != namespace:
                raise bad_request(
                    "the namespace of the provided object does not match the namespace sent on "
                    "the request"
                )
            if namespace:
                meta["namespace"] = namespace
        else:
            meta.pop("namespace", None)
        body["metadata"] = meta
        try:
            return decode(body, self.release or DEFAULT)
        except DecodeError as error:
            raise bad_request(str(error)) from None


def grace_period(options: dict[str, Any], obj: dict[str, Any]) -> int | None:
    """The grace period of a deletion: DeleteOptions' ``gracePeriodSeconds``, else a pod's
    ``terminationGracePeriodSeconds`` (30 by default), else none (other kinds go at once)."""
    given = options.get("gracePeriodSeconds")
    if given is not None:
        if isinstance(given, bool) or not isinstance(given, int):
            raise bad_request("gracePeriodSeconds: must be an integer")
        return max(given, 0)
    if obj.get("kind") != "Pod":
        return None
    value = (obj.get("spec") or {}).get("terminationGracePeriodSeconds")
    return value if isinstance(value, int) and not isinstance(value, bool) else 30


def check_name(obj: dict[str, Any], name: str) -> None:
    """The apiserver's checkName for update, patch and apply: the object's name must be the
    one on the URL (else a PATCH to ``pods/a`` naming ``b`` would write ``b``)."""
    found = obj["metadata"].get("name") or ""
    if found != name:
        raise bad_request(
            f"the name of the object ({found}) does not match the name on the URL ({name})"
        )


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch (null deletes a key)."""
    if not isinstance(patch, dict):
        return patch
    if not isinstance(target, dict):
        target = {}
    for key, value in patch.items():
        if value is None:
            target.pop(key, None)
        else:
            target[key] = merge_patch(target.get(key), value)
    return target
