"""What the ResourcePoolStatusRequest controller answers (KEP-5677, second alpha in 1.37).

For a request (a driver, optionally one pool, a limit and a default partition type attribute)
it reads the ResourceSlices, the allocated ResourceClaims and the DeviceTaintRules and
computes, per pool of the driver at its newest generation, sorted by driver then pool name:
device counts (total, allocated, available, unavailable), the slice count and node, and two
views: ``partitionSummary`` (per partition type, how many devices exist and how many more
still fit the shared counters) and ``shareableSummary`` (capacity of multi-allocatable
devices, consumed and left). A pool whose slices are not all published yet makes the
controller wait (the status is written once the pool is complete); other problems are
reported in the pool's ``validationError``.

Sources, kubernetes/kubernetes: ``pkg/controller/resourcepoolstatusrequest/controller.go``
(``calculatePoolStatus``) and ``views.go`` at 46b63193b6c6 (the 1.37 view with
``attribute`` per partition entry and the request's default attribute).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kubedra.api.quantity import Quantity
from kubedra.cluster.clock import SimClock
from kubedra.cluster.events import Event
from kubedra.cluster.store import Store
from kubedra.cluster.workqueue import WorkQueue

KIND = "ResourcePoolStatusRequest"
LIMIT_DEFAULT = 100
MAX_STATUS_LIST_ITEMS = 32
VALIDATION_ERROR_MAX_BYTES = 256

POOL_INCOMPLETE = "PoolIncomplete:"
PARTITION_TYPE_MISSING = "PartitionTypeMissing:"
PARTITION_COST_MISMATCH = "PartitionCostMismatch:"
PARTITION_SUMMARY_OVER_CAP = "PartitionSummaryOverCap:"
SHAREABLE_OVER_CAP = "ShareableSummaryOverCap:"
UNAVAILABLE_EFFECTS = ("NoSchedule", "NoExecute")


class PoolIncomplete(Exception):
    """Some matching pool has not published all its slices: answer later."""


@dataclass
class _Device:
    name: str
    raw: Mapping[str, Any]
    partition_attribute: str = ""
    partition_type: str | None = None


@dataclass
class _Pool:
    driver: str
    name: str
    generation: int
    expected_slices: int
    node_name: str = ""
    mixed_nodes: bool = False
    slices: int = 0
    total: int = 0
    unavailable: int = 0
    devices: list[_Device] = field(default_factory=list)
    shared_counters: list[Mapping[str, Any]] = field(default_factory=list)


def _dict(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _quantity(value: Any) -> Quantity:
    try:
        return Quantity.parse(str(value))
    except ValueError:
        return Quantity.parse("0")


def _rule_makes_unavailable(rule: Mapping[str, Any], driver: str, pool: str, device: str) -> bool:
    spec = _dict(rule.get("spec"))
    if _dict(spec.get("taint")).get("effect") not in UNAVAILABLE_EFFECTS:
        return False
    selector = spec.get("deviceSelector")
    if not isinstance(selector, Mapping):
        return False
    for key, value in (("driver", driver), ("pool", pool), ("device", device)):
        wanted = selector.get(key)
        if wanted is not None and wanted != value:
            return False
    return True


def _unavailable(
    driver: str, pool: str, device: Mapping[str, Any], rules: list[Mapping[str, Any]]
) -> bool:
    if any(_dict(t).get("effect") in UNAVAILABLE_EFFECTS for t in _list(device.get("taints"))):
        return True
    name = str(device.get("name") or "")
    return any(_rule_makes_unavailable(rule, driver, pool, name) for rule in rules)


def _gather_pools(
    spec: Mapping[str, Any],
    slices: Iterable[Mapping[str, Any]],
    rules: list[Mapping[str, Any]],
) -> dict[tuple[str, str], _Pool]:
    driver = str(spec.get("driver") or "")
    pool_filter = spec.get("poolName")
    matching = []
    newest: dict[tuple[str, str], int] = {}
    for s in slices:
        slice_spec = _dict(s.get("spec"))
        pool = _dict(slice_spec.get("pool"))
        name = str(pool.get("name") or "")
        if slice_spec.get("driver") != driver or (pool_filter and name != pool_filter):
            continue
        key = (driver, name)
        generation = int(pool.get("generation") or 0)
        matching.append((key, generation, slice_spec))
        if key not in newest or generation > newest[key]:
            newest[key] = generation
    pools: dict[tuple[str, str], _Pool] = {}
    for key, generation, slice_spec in matching:
        if generation < newest[key]:
            continue
        node = str(slice_spec.get("nodeName") or "")
        info = pools.get(key)
        if info is None:
            count = int(_dict(slice_spec.get("pool")).get("resourceSliceCount") or 0)
            info = pools[key] = _Pool(key[0], key[1], generation, count, node_name=node)
        elif node != info.node_name:
            info.mixed_nodes = True
        info.slices += 1
        attribute = str(slice_spec.get("partitionTypeAttribute") or "")
        for raw in _list(slice_spec.get("devices")):
            device = _dict(raw)
            info.total += 1
            if _unavailable(key[0], key[1], device, rules):
                info.unavailable += 1
            info.devices.append(
                _Device(str(device.get("name") or ""), device, partition_attribute=attribute)
            )
        info.shared_counters.extend(_dict(c) for c in _list(slice_spec.get("sharedCounters")))
    return pools


def _allocations(
    claims: Iterable[Mapping[str, Any]],
) -> tuple[dict[tuple[str, str], set[str]], dict[tuple[str, str], dict[str, Quantity]]]:
    """Devices in use per pool (admin access does not count) and consumed capacity per pool."""
    in_use: dict[tuple[str, str], set[str]] = {}
    consumed: dict[tuple[str, str], dict[str, Quantity]] = {}
    for claim in claims:
        allocation = _dict(_dict(claim.get("status")).get("allocation"))
        for result in _list(_dict(allocation.get("devices")).get("results")):
            result = _dict(result)
            if result.get("adminAccess") is True:
                continue
            key = (str(result.get("driver") or ""), str(result.get("pool") or ""))
            in_use.setdefault(key, set()).add(str(result.get("device") or ""))
            for name, value in _dict(result.get("consumedCapacity")).items():
                totals = consumed.setdefault(key, {})
                current = totals.get(name, Quantity.parse("0"))
                totals[name] = current.add(_quantity(value))
    return in_use, consumed


def _string_attribute(driver: str, attributes: Mapping[str, Any], name: str) -> str | None:
    """The string value of attribute ``name``; a name in the driver's domain may be written
    without the domain (the explicit form wins)."""
    attr = attributes.get(name)
    if attr is None and name.startswith(driver + "/"):
        attr = attributes.get(name[len(driver) + 1 :])
    value = _dict(attr).get("string")
    return value if isinstance(value, str) else None


def _resolve_partitions(pool: _Pool, default: str) -> None:
    """A device's own slice attribute first; the request's default only when no slice of the
    pool declares one (upstream's ``resolveDevicePartitions``)."""
    declares = any(d.partition_attribute for d in pool.devices)
    for device in pool.devices:
        if not device.partition_attribute:
            if declares or not default:
                continue
            device.partition_attribute = default
        device.partition_type = _string_attribute(
            pool.driver, _dict(device.raw.get("attributes")), device.partition_attribute
        )


def _cost(device: _Device) -> list[tuple[str, str, Quantity]]:
    return [
        (str(_dict(use).get("counterSet") or ""), str(name), _quantity(_dict(c).get("value")))
        for use in _list(device.raw.get("consumesCounters"))
        for name, c in _dict(_dict(use).get("counters")).items()
    ]


def _cost_key(device: _Device) -> str:
    return ",".join(sorted(f"{s}/{n}={q}" for s, n, q in _cost(device)))


def _available_counters(pool: _Pool, in_use: set[str]) -> dict[tuple[str, str], Quantity]:
    available = {
        (str(counter_set.get("name") or ""), str(name)): _quantity(_dict(c).get("value"))
        for counter_set in pool.shared_counters
        for name, c in _dict(counter_set.get("counters")).items()
    }
    for device in pool.devices:
        if device.name in in_use:
            for set_name, name, amount in _cost(device):
                if (set_name, name) in available:
                    available[(set_name, name)] = available[(set_name, name)].sub(amount)
    return available


def _fits(cost: list[tuple[str, str, Quantity]], available: Mapping[Any, Quantity]) -> bool:
    for set_name, name, amount in cost:
        have = available.get((set_name, name))
        if have is None or have.nanos < amount.nanos:
            return False
    return True


def _partition_summary(pool: _Pool, in_use: set[str]) -> tuple[list[dict[str, Any]], str]:
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for device in pool.devices:
        if not _list(device.raw.get("consumesCounters")) or not device.partition_attribute:
            continue
        if device.partition_type is None:
            return [], (
                f"{PARTITION_TYPE_MISSING} device {_go_quote(device.name)} in pool "
                f"{pool.driver}/{pool.name} does not carry partition type attribute "
                f"{_go_quote(device.partition_attribute)}"
            )
        key = (device.partition_attribute, device.partition_type)
        group = groups.setdefault(key, {"total": 0, "fresh": [], "cost": _cost_key(device)})
        if group["total"] and group["cost"] != _cost_key(device):
            return [], (
                f"{PARTITION_COST_MISMATCH} devices of partition type "
                f"{_go_quote(device.partition_type)} in pool {pool.driver}/{pool.name} "
                "consume different counters"
            )
        group["total"] += 1
        if device.name not in in_use:
            group["fresh"].append(device)
    baseline = _available_counters(pool, in_use)
    entries = []
    for (attribute, partition_type), group in sorted(groups.items()):
        available = dict(baseline)
        allocatable = 0
        for device in group["fresh"]:
            cost = _cost(device)
            if _fits(cost, available):
                allocatable += 1
                for set_name, name, amount in cost:
                    available[(set_name, name)] = available[(set_name, name)].sub(amount)
        entries.append(
            {
                "attribute": attribute,
                "type": partition_type,
                "total": group["total"],
                "allocatable": allocatable,
            }
        )
    if len(entries) > MAX_STATUS_LIST_ITEMS:
        return [], (
            f"{PARTITION_SUMMARY_OVER_CAP} pool {pool.driver}/{pool.name} has {len(entries)} "
            f"partition types, exceeding the maximum of {MAX_STATUS_LIST_ITEMS}"
        )
    return entries, ""


def _nonnegative_diff(total: Quantity, consumed: Quantity) -> Quantity:
    left = total.sub(consumed)
    return Quantity.from_int(0, total.format) if left.nanos < 0 else left


def _shareable_summary(
    pool: _Pool, in_use: set[str], consumed: Mapping[str, Quantity]
) -> tuple[dict[str, Any] | None, str]:
    full = partial = 0
    totals: dict[str, Quantity] = {}
    shareable = False
    for device in pool.devices:
        if device.raw.get("allowMultipleAllocations") is not True:
            continue
        shareable = True
        if device.name in in_use:
            partial += 1
        else:
            full += 1
        for name, capacity in _dict(device.raw.get("capacity")).items():
            current = totals.get(name, Quantity.parse("0"))
            totals[name] = current.add(_quantity(_dict(capacity).get("value")))
    if not shareable:
        return None, ""
    capacities = []
    for name in sorted(totals):
        total = totals[name]
        used = consumed.get(name, Quantity.parse("0"))
        capacities.append(
            {
                "name": name,
                "total": str(total),
                "consumed": str(used),
                "available": str(_nonnegative_diff(total, used)),
            }
        )
    if len(capacities) > MAX_STATUS_LIST_ITEMS:
        return None, (
            f"{SHAREABLE_OVER_CAP} pool {pool.driver}/{pool.name} has {len(capacities)} "
            f"shareable capacity keys, exceeding the maximum of {MAX_STATUS_LIST_ITEMS}"
        )
    summary: dict[str, Any] = {"fullyAvailableDevices": full, "partiallyAvailableDevices": partial}
    if capacities:
        summary["capacity"] = capacities
    return summary, ""


def _go_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _truncate(message: str) -> str:
    return message.encode()[:VALIDATION_ERROR_MAX_BYTES].decode(errors="ignore")


def pool_statuses(
    spec: Mapping[str, Any],
    slices: Iterable[Mapping[str, Any]],
    claims: Iterable[Mapping[str, Any]],
    taint_rules: Iterable[Mapping[str, Any]] = (),
) -> tuple[int, list[dict[str, Any]]]:
    """(the number of matching pools, their PoolStatus dicts up to ``spec.limit``).

    Raises :class:`PoolIncomplete` when a matching pool lacks slices of its generation.
    ``taint_rules`` count only when DRADeviceTaintRules is on (the caller decides).
    """
    rules = [_dict(r) for r in taint_rules]
    pools = _gather_pools(spec, slices, rules)
    in_use, consumed = _allocations(claims)
    default = str(spec.get("defaultPartitionTypeAttribute") or "")
    out = []
    for key in sorted(pools):
        pool = pools[key]
        if pool.slices < pool.expected_slices:
            raise PoolIncomplete(
                f"{POOL_INCOMPLETE} pool {pool.driver}/{pool.name} is incomplete: observed "
                f"{pool.slices}/{pool.expected_slices} slices at generation {pool.generation}"
            )
        used = in_use.get(key, set())
        allocated = len(used)
        status: dict[str, Any] = {
            "driver": pool.driver,
            "poolName": pool.name,
            "generation": pool.generation,
            "resourceSliceCount": pool.slices,
            "totalDevices": pool.total,
            "allocatedDevices": allocated,
            "availableDevices": max(0, pool.total - allocated - pool.unavailable),
            "unavailableDevices": pool.unavailable,
        }
        if pool.node_name and not pool.mixed_nodes:
            status["nodeName"] = pool.node_name
        _resolve_partitions(pool, default)
        problem = ""
        summary: list[dict[str, Any]] = []
        if any(d.partition_attribute for d in pool.devices):
            if not pool.shared_counters:
                problem = (
                    f"{PARTITION_TYPE_MISSING} pool {pool.driver}/{pool.name} declares "
                    "partitionTypeAttribute but publishes no sharedCounters"
                )
            else:
                summary, problem = _partition_summary(pool, used)
        shareable, shareable_problem = _shareable_summary(pool, used, consumed.get(key, {}))
        problem = problem or shareable_problem
        if summary and not problem:
            status["partitionSummary"] = summary
        if shareable is not None:
            status["shareableSummary"] = shareable
        if problem:
            status["validationError"] = _truncate(problem)
        out.append(status)
    limit = spec.get("limit")
    limit = limit if isinstance(limit, int) else LIMIT_DEFAULT
    return len(out), out[:limit]


def request_status(
    request: Mapping[str, Any],
    slices: Iterable[Mapping[str, Any]],
    claims: Iterable[Mapping[str, Any]],
    taint_rules: Iterable[Mapping[str, Any]],
    now: str,
) -> dict[str, Any]:
    """The status the controller writes; raises :class:`PoolIncomplete` to wait instead."""
    count, pools = pool_statuses(_dict(request.get("spec")), slices, claims, taint_rules)
    flagged = sum(1 for p in pools if "validationError" in p)
    message = f"Calculated status for {len(pools)} pools"
    if flagged:
        message += f" ({flagged} incomplete)"
    status: dict[str, Any] = {"poolCount": count}
    if pools:
        status["pools"] = pools
    status["conditions"] = [
        {
            "type": "Complete",
            "status": "True",
            "lastTransitionTime": now,
            "reason": "CalculationComplete",
            "message": message,
        }
    ]
    return status


class PoolStatusController:
    """Answers each ResourcePoolStatusRequest once, as kube-controller-manager's
    resourcepoolstatusrequest-controller does: a request without status gets one computed
    from the store; while a matching pool is incomplete it waits for the next slice change.
    Answered requests are never recomputed (delete and recreate for a fresh snapshot)."""

    def __init__(self, store: Store, clock: SimClock, *, taint_rules: bool = True) -> None:
        self.store = store
        self.clock = clock
        self.taint_rules = taint_rules
        self.queue: WorkQueue[str] = WorkQueue()
        self._waiting: set[str] = set()
        store.subscribe(self._on_event)

    def _on_event(self, event: Event) -> None:
        if event.type == "DELETED":
            if event.kind == KIND:
                self._waiting.discard(event.obj["metadata"]["name"])
            return
        if event.kind == KIND and event.obj.get("status") is None:
            self.queue.add(event.obj["metadata"]["name"])
        elif event.kind == "ResourceSlice":
            for name in sorted(self._waiting):
                self.queue.add(name)
            self._waiting.clear()

    def sync(self) -> bool:
        """Answer the queued requests; True when one got its status."""
        answered = False
        while self.queue:
            name = self.queue.pop()
            assert name is not None
            request = self.store.get(KIND, name)
            if request is None or request.get("status") is not None:
                continue
            rules = self.store.list("DeviceTaintRule") if self.taint_rules else []
            try:
                status = request_status(
                    request,
                    self.store.list("ResourceSlice"),
                    self.store.list("ResourceClaim"),
                    rules,
                    self.clock.timestamp(),
                )
            except PoolIncomplete:
                self._waiting.add(name)
                continue
            self.store.update(request | {"status": status})
            answered = True
        return answered


def cluster_pool_statuses(
    store: Store, default_attribute: str = "", taint_rules: bool = True
) -> list[dict[str, Any]]:
    """Every pool's PoolStatus as a request for its driver and pool would get it now, sorted
    by driver and pool; an incomplete pool gets only its ``validationError`` (the controller
    would wait for it instead). For ``plan utilization`` and the web page."""
    slices = store.list("ResourceSlice")
    claims = store.list("ResourceClaim")
    rules = store.list("DeviceTaintRule") if taint_rules else []
    pools = sorted(
        {
            (str(_dict(s.get("spec")).get("driver") or ""), str(pool.get("name") or ""))
            for s in slices
            if (pool := _dict(_dict(s.get("spec")).get("pool")))
        }
    )
    out: list[dict[str, Any]] = []
    for driver, name in pools:
        spec: dict[str, Any] = {"driver": driver, "poolName": name}
        if default_attribute:
            spec["defaultPartitionTypeAttribute"] = default_attribute
        try:
            out.extend(pool_statuses(spec, slices, claims, rules)[1])
        except PoolIncomplete as incomplete:
            out.append(
                {"driver": driver, "poolName": name, "validationError": _truncate(str(incomplete))}
            )
    return out
