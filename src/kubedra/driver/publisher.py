"""Keeps a driver's ResourceSlices equal to the pools it wants to publish.

Follows upstream's ResourceSlice controller: slice names start with the slice's index in the
pool (hex, at least 5 digits: ``00000-<driver>-<node>-xxxxx``) so that name order is priority
order; an existing slice is matched to a desired one by that index; slices of an older pool
generation or without a matching index are obsolete and deleted first. The pool generation is
taken from the driver when it asks for a higher one, kept when at most one existing slice needs
an update and nothing is added, and bumped by one otherwise, so that readers never combine
slices of two versions of the pool. Every slice carries the Node as controlling owner.

Desired pools are checked when they are given (:meth:`ResourceSlicePublisher.update`): the
slices they become must pass kubedra's copy of the apiserver's decoding and validation, so a
driver hears about a misspelt field at once, with the apiserver's message, instead of from a
failing write in the background.

Reconciliation is continuous: a background thread syncs on every update and every
``resync_interval`` seconds, which recreates slices that someone deleted (the kubelet deletes a
node's slices when it starts) and removes obsolete ones.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kubedra.api import models
from kubedra.driver.slice_check import as_wire, as_wire_list, slice_problem
from kubedra.driver.split import SliceContent, split_pool
from kubedra.driver.store import ClusterStore, StoreError

log = logging.getLogger(__name__)

INDEX_MIN_LENGTH = 5


DeviceLike = dict[str, Any] | models.Device
CounterSetLike = dict[str, Any] | models.CounterSet


@dataclass
class Pool:
    """What a driver wants published for one pool.

    Devices, counter sets and the node selector are wire dicts or the typed models of
    :mod:`kubedra.api.models` (``Device``, ``CounterSet``, ``NodeSelector``).
    """

    devices: Sequence[DeviceLike] = field(default_factory=list)
    shared_counters: Sequence[CounterSetLike] = field(default_factory=list)
    node_selector: dict[str, Any] | models.NodeSelector | None = None
    all_nodes: bool = False
    per_device_node_selection: bool | None = None
    # Zero lets the publisher manage it; a higher value forces that generation.
    generation: int = 0
    # Explicit slices; by default the devices and counters are split within the API limits.
    slices: list[SliceContent] | None = None

    def contents(self) -> list[SliceContent]:
        if self.slices is not None:
            return self.slices
        devices = as_wire_list(self.devices, "devices")
        counters = as_wire_list(self.shared_counters, "sharedCounters")
        return split_pool(devices, counters, self.per_device_node_selection)

    def wire_node_selector(self) -> dict[str, Any] | None:
        if self.node_selector is None:
            return None
        return as_wire(self.node_selector, "nodeSelector")


@dataclass
class SyncStats:
    creates: int = 0
    updates: int = 0
    deletes: int = 0

    def add(self, other: SyncStats) -> None:
        self.creates += other.creates
        self.updates += other.updates
        self.deletes += other.deletes


class PoolError(ValueError):
    """The desired pool cannot be published as is (the driver must fix it; not retried)."""


class PublishError(StoreError):
    """A store call failed while publishing ``subject`` (a ResourceSlice dict or a pool name)."""

    def __init__(self, subject: object, error: Exception) -> None:
        super().__init__(str(error))
        self.subject = subject
        self.cause = error


ErrorHook = Callable[[object, Exception], None]
"""``on_error(subject, error)``: the object a background problem concerns and the reason."""


def subject_name(subject: object) -> str:
    """``ResourceSlice 00000-...`` for objects, the text itself for names."""
    if isinstance(subject, dict):
        meta = subject.get("metadata") or {}
        return f"{subject.get('kind')} {meta.get('name') or meta.get('generateName') or ''}".strip()
    return str(subject)


def log_error(subject: object, error: Exception) -> None:
    """The default error hook: one warning per problem."""
    log.warning("publishing ResourceSlices: %s: %s", subject_name(subject), error)


@contextlib.contextmanager
def _about(obj: dict[str, Any]) -> Iterator[None]:
    """Name the object a failing store call was about."""
    try:
        yield
    except PublishError:
        raise
    except StoreError as error:
        raise PublishError(obj, error) from error


def validate_pool(name: str, contents: list[SliceContent]) -> None:
    """Cross-slice problems that per-slice apiserver validation cannot catch."""
    counter_sets: dict[str, set[str]] = {}
    for content in contents:
        for counter_set in content.shared_counters:
            set_name = str(counter_set.get("name"))
            if set_name in counter_sets:
                raise PoolError(f"found duplicate counter set {set_name!r} in pool {name!r}")
            counter_sets[set_name] = set((counter_set.get("counters") or {}).keys())
    devices: set[str] = set()
    for content in contents:
        for device in content.devices:
            device_name = str(device.get("name"))
            if device_name in devices:
                raise PoolError(f"found duplicate device {device_name!r} in pool {name!r}")
            devices.add(device_name)
            for consumption in device.get("consumesCounters") or []:
                set_name = str(consumption.get("counterSet"))
                if set_name not in counter_sets:
                    raise PoolError(
                        f"counter set {set_name!r} referenced by device {device_name!r} not found"
                    )
                for counter in consumption.get("counters") or {}:
                    if counter not in counter_sets[set_name]:
                        raise PoolError(
                            f"counter {counter!r} referenced by device {device_name!r} "
                            f"not found in counter set {set_name!r}"
                        )


def index_length(slice_count: int) -> int:
    return max(INDEX_MIN_LENGTH, len(format(max(slice_count - 1, 0), "x")))


def decode_index(name: str, expected_length: int) -> int | None:
    prefix, sep, _ = name.partition("-")
    if not sep or len(prefix) != expected_length:
        return None
    try:
        return int(prefix, 16)
    except ValueError:
        return None


def _with_taint_times(
    current: list[dict[str, Any]], desired: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """``desired`` with the ``timeAdded`` of matching existing taints filled in.

    The apiserver stamps ``timeAdded`` on taints that lack it; like upstream, a taint without a
    time equals the same taint with one, and republishing keeps the original time.
    """
    by_name = {str(d.get("name")): d for d in current}
    merged = []
    for device in desired:
        old_taints = (by_name.get(str(device.get("name"))) or {}).get("taints") or []
        taints = device.get("taints") or []
        if not taints or not old_taints:
            merged.append(device)
            continue
        new_taints = []
        for taint in taints:
            if "timeAdded" not in taint:
                match = next(
                    (
                        t
                        for t in old_taints
                        if all(t.get(k) == taint.get(k) for k in ("key", "value", "effect"))
                        and t.get("timeAdded")
                    ),
                    None,
                )
                if match is not None:
                    taint = {**taint, "timeAdded": match["timeAdded"]}
            new_taints.append(taint)
        merged.append({**device, "taints": new_taints})
    return merged


def _spec_view(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec fields the publisher owns, with absent and empty treated alike."""
    return {
        "pool": spec.get("pool"),
        "nodeName": spec.get("nodeName") or None,
        "nodeSelector": spec.get("nodeSelector") or None,
        "allNodes": bool(spec.get("allNodes")),
        "perDeviceNodeSelection": spec.get("perDeviceNodeSelection"),
        "devices": spec.get("devices") or [],
        "sharedCounters": spec.get("sharedCounters") or [],
    }


class ResourceSlicePublisher:
    """Publishes one driver's pools (node-local when ``node_name`` is set)."""

    def __init__(
        self,
        store: ClusterStore,
        driver_name: str,
        node_name: str | None = None,
        *,
        node_uid: str | None = None,
        resync_interval: float = 5.0,
        on_error: ErrorHook | None = None,
    ) -> None:
        self.store = store
        self.driver_name = driver_name
        self.node_name = node_name
        self.node_uid = node_uid
        self.resync_interval = resync_interval
        self.on_error: ErrorHook = on_error or log_error
        self._reported: set[str] = set()
        self.stats = SyncStats()
        self._pools: dict[str, Pool] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.synced = threading.Event()

    def update(self, pools: Mapping[str, Pool], *, check: bool = True) -> None:
        """Replace the desired pools; the background loop publishes them soon.

        Raises :class:`PoolError` (and keeps the previous pools) when a pool cannot be
        published: the apiserver would refuse one of its slices, or the slices do not fit
        together. ``check=False`` skips the apiserver rules (the cross-slice checks still run
        before each sync).
        """
        for name, pool in pools.items():
            self.check_pool(name, pool, apiserver=check)
        with self._lock:
            self._pools = dict(pools)
        self.synced.clear()
        self._wake.set()

    def check_pool(self, name: str, pool: Pool, *, apiserver: bool = True) -> None:
        """Raise :class:`PoolError` if ``pool`` cannot be published as is."""
        try:
            contents = pool.contents()
            node_selector = pool.wire_node_selector()
        except TypeError as error:
            raise PoolError(f"pool {name!r}: {error}") from None
        validate_pool(name, contents)
        if self.node_name and (node_selector or pool.all_nodes):
            raise PoolError(f"pool {name!r}: a node-local driver cannot set nodeSelector/allNodes")
        if not apiserver:
            return
        desired_pool = {
            "name": name,
            "generation": max(pool.generation, 1),
            "resourceSliceCount": len(contents),
        }
        length = index_length(len(contents))
        for index, content in enumerate(contents):
            obj = {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceSlice",
                # The name the apiserver would generate: the prefix and five characters.
                "metadata": {"name": self._name_prefix(index, length) + "xxxxx"},
                "spec": self._spec(content, desired_pool, pool),
            }
            problem = slice_problem(obj)
            if problem is not None:
                raise PoolError(f"pool {name!r}: {problem}")

    def _node_subject(self) -> object:
        if self.node_name is None:
            return self.driver_name
        return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": self.node_name}}

    def _name_prefix(self, index: int, length: int) -> str:
        node_part = f"{self.node_name}-" if self.node_name else ""
        return format(index, f"0{length}x") + f"-{self.driver_name}-{node_part}"

    # --- reconciliation ------------------------------------------------------------------

    def _owner(self) -> list[dict[str, Any]]:
        if self.node_name is None:
            return []
        if not self.node_uid:
            self.node_uid = self.store.get_node_uid(self.node_name)
            if not self.node_uid:
                raise StoreError(f'retrieve node "{self.node_name}": not found')
        return [
            {
                "apiVersion": "v1",
                "kind": "Node",
                "name": self.node_name,
                "uid": self.node_uid,
                "controller": True,
            }
        ]

    def sync(self) -> SyncStats:
        """Reconcile every pool once; raises the first store error after trying all pools."""
        with self._lock:
            pools = dict(self._pools)
        owner = self._owner()
        existing = self.store.list_resource_slices(self.driver_name, self.node_name)
        if self.node_name is None:
            existing = [s for s in existing if not (s.get("spec") or {}).get("nodeName")]
        by_pool: dict[str, list[dict[str, Any]]] = {}
        for obj in existing:
            pool_name = str(((obj.get("spec") or {}).get("pool") or {}).get("name", ""))
            by_pool.setdefault(pool_name, []).append(obj)
        stats = SyncStats()
        first_error: StoreError | None = None
        for name in sorted(set(by_pool) | set(pools)):
            try:
                stats.add(self._sync_pool(name, pools.get(name), by_pool.get(name, []), owner))
            except PoolError as error:
                self._report(name, error)
            except StoreError as error:
                problem = error if isinstance(error, PublishError) else PublishError(name, error)
                first_error = first_error or problem
                self._report(problem.subject, problem)
        self.stats.add(stats)
        if first_error is not None:
            raise first_error
        return stats

    def _report(self, subject: object, error: Exception) -> None:
        """Hand a problem to ``on_error`` once, not on every resync while it persists."""
        key = f"{subject_name(subject)}: {error}"
        if key not in self._reported:
            self._reported.add(key)
            self.on_error(subject, error)

    def _delete(self, slices: list[dict[str, Any]]) -> int:
        deleted = 0
        for obj in slices:
            meta = obj.get("metadata") or {}
            with _about(obj):
                deleted += self.store.delete_resource_slice(str(meta.get("name")), meta.get("uid"))
        return deleted

    def _sync_pool(
        self,
        name: str,
        pool: Pool | None,
        slices: list[dict[str, Any]],
        owner: list[dict[str, Any]],
    ) -> SyncStats:
        stats = SyncStats()
        if pool is None:
            stats.deletes = self._delete(slices)
            return stats
        contents = pool.contents()
        validate_pool(name, contents)
        if self.node_name and (pool.node_selector or pool.all_nodes):
            raise PoolError(f"pool {name!r}: a node-local driver cannot set nodeSelector/allNodes")

        def generation_of(obj: dict[str, Any]) -> int:
            return int(((obj.get("spec") or {}).get("pool") or {}).get("generation") or 0)

        generation = max((generation_of(s) for s in slices), default=0)
        length = index_length(len(contents))
        matched: dict[int, dict[str, Any]] = {}
        obsolete = []
        for obj in slices:
            index = decode_index(str((obj.get("metadata") or {}).get("name", "")), length)
            if (
                generation_of(obj) < generation
                or index is None
                or index >= len(contents)
                or index in matched
            ):
                obsolete.append(obj)
            else:
                matched[index] = obj

        desired_pool = {
            "name": name,
            "generation": generation,
            "resourceSliceCount": len(contents),
        }
        for index, obj in matched.items():
            current_devices = (obj.get("spec") or {}).get("devices") or []
            contents[index] = SliceContent(
                _with_taint_times(current_devices, contents[index].devices),
                contents[index].shared_counters,
                contents[index].per_device_node_selection,
            )
        changed = {
            index
            for index, obj in matched.items()
            if _spec_view(obj.get("spec") or {})
            != _spec_view(self._spec(contents[index], desired_pool, pool))
        }
        new_count = len(contents) - len(matched)
        if pool.generation > generation:
            generation, bumped = pool.generation, True
        elif new_count == 0 and len(changed) <= 1:
            bumped = False
        else:
            generation, bumped = generation + 1, True
        desired_pool["generation"] = generation

        stats.deletes = self._delete(obsolete)
        for index, obj in sorted(matched.items()):
            if index not in changed and not bumped:
                continue
            updated = {**obj, "spec": self._spec(contents[index], desired_pool, pool)}
            with _about(updated):
                self.store.update_resource_slice(updated)
            stats.updates += 1
        for index, content in enumerate(contents):
            if index in matched:
                continue
            metadata: dict[str, Any] = {"generateName": self._name_prefix(index, length)}
            if owner:
                metadata["ownerReferences"] = owner
            created = {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceSlice",
                "metadata": metadata,
                "spec": self._spec(content, desired_pool, pool),
            }
            with _about(created):
                self.store.create_resource_slice(created)
            stats.creates += 1
        return stats

    def _spec(
        self, content: SliceContent, desired_pool: dict[str, Any], pool: Pool
    ) -> dict[str, Any]:
        spec: dict[str, Any] = {"driver": self.driver_name, "pool": dict(desired_pool)}
        if self.node_name:
            spec["nodeName"] = self.node_name
        node_selector = pool.wire_node_selector()
        if node_selector:
            spec["nodeSelector"] = node_selector
        if pool.all_nodes:
            spec["allNodes"] = True
        if content.per_device_node_selection is not None:
            spec["perDeviceNodeSelection"] = content.per_device_node_selection
        if content.devices:
            spec["devices"] = content.devices
        if content.shared_counters:
            spec["sharedCounters"] = content.shared_counters
        return spec

    # --- background loop -----------------------------------------------------------------

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="slice-publisher", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            try:
                self.sync()
                self.synced.set()
                self._reported.clear()
            except StoreError as error:  # reported by sync unless it came before the pools
                if self.node_name and not self.node_uid and self._wait_for_node():
                    continue  # the owner appeared: publish now, not at the next resync
                if not isinstance(error, PublishError):
                    self._report(self._node_subject(), error)
            except Exception as error:  # keep reconciling; the next round retries
                self._report(self._node_subject(), error)
            self._wake.wait(self.resync_interval)

    def _wait_for_node(self) -> bool:
        """Watch for the owning Node for up to one resync interval; True once it exists."""
        assert self.node_name is not None
        deadline = time.monotonic() + self.resync_interval
        while not self._stop.is_set() and not self._wake.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            try:
                if self.store.wait_for_node(self.node_name, min(remaining, 0.5)):
                    return True
            except Exception:  # reported by the caller as the sync's error
                return False
        return False

    def stop(self) -> None:
        """Stop reconciling; published slices stay (a restarting driver takes them over)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
