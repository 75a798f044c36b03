"""Device taints and the device-taint eviction controller (pkg/controller/devicetainteviction).

The taints of a device are its own (in the newest ResourceSlice generation of its pool) plus
those of every DeviceTaintRule that selects it. A pod using an allocated claim with a
``NoExecute`` taint that the allocation does not tolerate is evicted at the taint's
``timeAdded`` plus the smallest matching ``tolerationSeconds`` (at once without a
toleration): the pod gets the ``DisruptionTarget`` condition and is deleted; the claim
controller then releases its claims.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kubedra.cluster.clock import SimClock, go_seconds, parse_time
from kubedra.cluster.events import Event
from kubedra.cluster.podclaims import is_for_pod, is_reserved_for_pod, pod_claim_names
from kubedra.cluster.store import Store

DeviceID = tuple[str, str, str]
"""(driver, pool, device)"""

NO_EXECUTE = "NoExecute"
EVICTION_REASON = "DeletionByDeviceTaintManager"
EVICTION_MESSAGE = "Device Taint manager: deleting due to NoExecute taint"


def tolerates(toleration: dict[str, Any], taint: dict[str, Any]) -> bool:
    """resourceclaim.ToleratesTaint: effect and key match (empty matches all), then value."""
    effect = toleration.get("effect")
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key")
    if key and key != taint.get("key"):
        return False
    operator = toleration.get("operator") or "Equal"
    if operator == "Exists":
        return True
    return operator == "Equal" and (toleration.get("value") or "") == (taint.get("value") or "")


def device_taints(
    slices: list[dict[str, Any]], rules: list[dict[str, Any]]
) -> dict[DeviceID, list[dict[str, Any]]]:
    """Every device's taints (own and from rules), newest pool generation only."""
    newest: dict[tuple[str, str], int] = {}
    for s in slices:
        spec = s.get("spec") or {}
        pool = spec.get("pool") or {}
        pid = (spec.get("driver", ""), pool.get("name", ""))
        newest[pid] = max(newest.get(pid, pool.get("generation", 0)), pool.get("generation", 0))
    taints: dict[DeviceID, list[dict[str, Any]]] = {}
    for s in slices:
        spec = s.get("spec") or {}
        pool = spec.get("pool") or {}
        pid = (spec.get("driver", ""), pool.get("name", ""))
        if pool.get("generation", 0) != newest[pid]:
            continue
        for device in spec.get("devices") or []:
            own = list(device.get("taints") or [])
            did = (pid[0], pid[1], device.get("name", ""))
            for rule in rules:
                if _selects(rule, did):
                    own.append((rule.get("spec") or {}).get("taint") or {})
            if own:
                taints[did] = own
    return taints


def _selects(rule: dict[str, Any], device: DeviceID) -> bool:
    selector = (rule.get("spec") or {}).get("deviceSelector") or {}
    for field, value in zip(("driver", "pool", "device"), device, strict=True):
        wanted = selector.get(field)
        if wanted and wanted != value:
            return False
    return True


class DeviceTaintEvictionController:
    """Schedules and carries out evictions; :meth:`sync` evicts what is due."""

    def __init__(self, store: Store, clock: SimClock) -> None:
        self.store = store
        self.clock = clock
        self.evictions: dict[tuple[str, str], tuple[str, datetime]] = {}
        """(namespace, pod) -> (uid, when)"""
        self.evicted: list[str] = []
        self._taints: dict[DeviceID, list[dict[str, Any]]] = {}
        self._taints_stale = True
        self._dirty = True
        store.subscribe(self._on_event)

    def _on_event(self, event: Event) -> None:
        if event.kind in ("ResourceSlice", "DeviceTaintRule"):
            self._taints_stale = True
            self._dirty = True
        elif event.kind in ("ResourceClaim", "Pod"):
            self._dirty = True

    def next_wakeup(self) -> datetime | None:
        return min((when for _, when in self.evictions.values()), default=None)

    def sync(self) -> bool:
        """Recompute eviction times when something changed; evict pods that are due."""
        if self._taints_stale:
            self._taints = device_taints(
                self.store.list("ResourceSlice"), self.store.list("DeviceTaintRule")
            )
            self._taints_stale = False
        if self._dirty:
            self._dirty = False
            self.evictions = self._plan() if self._any_no_execute() else {}
        now = self.clock.now()
        due = sorted(key for key, (_, when) in self.evictions.items() if when <= now)
        for key in due:
            uid, _ = self.evictions.pop(key)
            self._evict(key, uid)
        return bool(due)

    def _any_no_execute(self) -> bool:
        return any(
            taint.get("effect") == NO_EXECUTE
            for taints in self._taints.values()
            for taint in taints
        )

    def _plan(self) -> dict[tuple[str, str], tuple[str, datetime]]:
        claim_times: dict[tuple[str, str], datetime | None] = {}
        for claim in self.store.list("ResourceClaim"):
            allocation = (claim.get("status") or {}).get("allocation")
            if allocation:
                meta = claim["metadata"]
                claim_times[(meta["namespace"], meta["name"])] = self._eviction_time(allocation)
        plan: dict[tuple[str, str], tuple[str, datetime]] = {}
        for pod in self.store.list("Pod"):
            if not pod["spec"].get("nodeName") or not pod["spec"].get("resourceClaims"):
                continue
            meta = pod["metadata"]
            when: datetime | None = None
            for name, check_owner in pod_claim_names(pod):
                key = (meta["namespace"], name)
                at = claim_times.get(key)
                if at is None:
                    continue
                stored = self.store.get("ResourceClaim", name, meta["namespace"])
                if stored is None:
                    continue
                claim = stored
                if check_owner and not is_for_pod(pod, claim):
                    continue
                if not is_reserved_for_pod(pod, claim):
                    continue
                if when is None or at < when:
                    when = at
            if when is not None:
                plan[(meta["namespace"], meta["name"])] = (meta["uid"], when)
        return plan

    def _eviction_time(self, allocation: dict[str, Any]) -> datetime | None:
        """The earliest untolerated NoExecute taint time over the allocated devices."""
        earliest: datetime | None = None
        for result in (allocation.get("devices") or {}).get("results") or []:
            did = (result.get("driver", ""), result.get("pool", ""), result.get("device", ""))
            for taint in self._taints.get(did, ()):
                if taint.get("effect") != NO_EXECUTE:
                    continue
                seconds: int | None = None
                forever = False
                for toleration in result.get("tolerations") or []:
                    if toleration.get("effect") != NO_EXECUTE or not tolerates(toleration, taint):
                        continue
                    value = toleration.get("tolerationSeconds")
                    if value is None:
                        forever = True
                        break
                    value = max(int(value), 0)
                    seconds = value if seconds is None else min(seconds, value)
                if forever:
                    continue
                added = parse_time(str(taint.get("timeAdded") or "")) or self.clock.now()
                at = added + go_seconds(seconds or 0)
                if earliest is None or at < earliest:
                    earliest = at
        return earliest

    def _evict(self, key: tuple[str, str], uid: str) -> None:
        pod = self.store.get("Pod", key[1], key[0])
        if pod is None or pod["metadata"]["uid"] != uid:
            return
        status = dict(pod.get("status") or {})
        conditions = [
            c for c in status.get("conditions") or [] if c.get("type") != "DisruptionTarget"
        ]
        conditions.append(
            {
                "type": "DisruptionTarget",
                "status": "True",
                "reason": EVICTION_REASON,
                "message": EVICTION_MESSAGE,
                "lastTransitionTime": self.clock.timestamp(),
            }
        )
        status["conditions"] = conditions
        pod = self.store.update(pod | {"status": status})
        self.evicted.append(f"{key[0]}/{key[1]}")
        self.store.delete("Pod", key[1], key[0])
