"""The cluster's devices, indexed once per cluster state.

Upstream converts and scans every ResourceSlice on every Allocate call. Here slices, devices
and classes are parsed once; each node's view of the pools (what upstream's GatherPools
computes) is built on first use and kept, because it depends only on the slices and the node.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kubedra.allocator.features import Features
from kubedra.allocator.nodeselect import NodeInfo, NodeSelectorError, node_matches
from kubedra.allocator.quantities import Number, exact, parse
from kubedra.api.quantity import Quantity


def _meta_name(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


class CapacityInfo:
    """One capacity of a device with its request policy, pre-parsed."""

    __slots__ = (
        "default",
        "has_range",
        "name",
        "number",
        "policy",
        "range_max",
        "range_min",
        "range_step",
        "valid_values",
        "value",
    )

    def __init__(self, name: str, raw: Mapping[str, Any], where: str) -> None:
        self.name = name
        self.value: Quantity = parse(raw.get("value"), f"{where}.value")
        self.number: Number = exact(self.value)
        policy = raw.get("requestPolicy")
        self.policy: bool = policy is not None
        self.default: Quantity | None = None
        self.valid_values: list[Quantity] | None = None
        self.range_min: Quantity | None = None
        self.range_max: Quantity | None = None
        self.range_step: Quantity | None = None
        self.has_range = False
        if policy is not None:
            if policy.get("default") is not None:
                self.default = parse(policy["default"], f"{where}.requestPolicy.default")
            if policy.get("validValues") is not None:
                self.valid_values = [
                    parse(v, f"{where}.requestPolicy.validValues[{i}]")
                    for i, v in enumerate(policy["validValues"])
                ]
            valid_range = policy.get("validRange")
            if valid_range is not None:
                self.has_range = True
                rw = f"{where}.requestPolicy.validRange"
                self.range_min = (
                    parse(valid_range["min"], f"{rw}.min")
                    if valid_range.get("min") is not None
                    else None
                )
                self.range_max = (
                    parse(valid_range["max"], f"{rw}.max")
                    if valid_range.get("max") is not None
                    else None
                )
                self.range_step = (
                    parse(valid_range["step"], f"{rw}.step")
                    if valid_range.get("step") is not None
                    else None
                )


NO_GROUPS: frozenset[str] = frozenset()
"""A counter consumption that names no compatibility groups (shared, not one per device)."""


class DeviceInfo:
    """A device of a slice with everything the search needs, parsed once."""

    __slots__ = (
        "all_nodes",
        "allow_multiple",
        "attrs",
        "binding_conditions",
        "binding_failure_conditions",
        "binds_to_node",
        "capacity",
        "cel",
        "compat_groups",
        "consumes",
        "counter_use",
        "counters_unique",
        "declares_groups",
        "derived_cache",
        "driver",
        "key",
        "match_cache",
        "name",
        "node_name",
        "node_selector",
        "pool",
        "raw",
        "slice",
        "taints",
    )

    def __init__(self, raw: Mapping[str, Any], slice_: SliceInfo, where: str) -> None:
        self.raw = raw
        self.slice = slice_
        self.name = str(raw.get("name") or "")
        self.driver = slice_.driver
        self.pool = slice_.pool
        self.key = f"{slice_.driver}/{slice_.pool}/{self.name}"
        driver_prefix = slice_.driver + "/"
        attrs: dict[str, Mapping[str, Any]] = {}
        qualified: dict[str, Mapping[str, Any]] | None = None
        for name, value in (raw.get("attributes") or {}).items():
            if "/" not in name:
                attrs[driver_prefix + name] = value
            elif qualified is None:
                qualified = {name: value}
            else:
                qualified[name] = value
        if qualified:
            # A qualified name wins over the same name given without the driver's domain.
            attrs.update(qualified)
        self.attrs = attrs
        self.capacity: dict[str, CapacityInfo] = {
            name: CapacityInfo(name, cap or {}, f"{where}.capacity[{name}]")
            for name, cap in (raw.get("capacity") or {}).items()
        }
        consumptions = raw.get("consumesCounters")
        if consumptions:
            self._parse_counters(consumptions, where)
        else:
            # Most devices consume no counters: nothing to parse.
            self.consumes: tuple[tuple[str, tuple[tuple[str, Number], ...]], ...] = ()
            self.declares_groups = False
            """Whether any counter consumption of the device names compatibility groups."""
            self.compat_groups: tuple[tuple[str, frozenset[str]], ...] = ()
            self.counter_use: tuple[tuple[tuple[str, str], Number], ...] = ()
            # No counter twice (the usual case): the search can check the counters before
            # it adds them (see Search._take_counters).
            self.counters_unique = True
        self.taints: list[Mapping[str, Any]] = list(raw.get("taints") or [])
        self.binding_conditions = raw.get("bindingConditions")
        self.binding_failure_conditions = raw.get("bindingFailureConditions")
        self.binds_to_node = bool(raw.get("bindsToNode"))
        self.allow_multiple = bool(raw.get("allowMultipleAllocations"))
        self.node_name = str(raw.get("nodeName") or "")
        self.all_nodes = bool(raw.get("allNodes"))
        self.node_selector = raw.get("nodeSelector")
        self.cel: Any = None
        self.match_cache: dict[int | tuple[int | str, ...], Any] = {}
        # Derived attribute values by expression (KEP-6080), created on first use.
        self.derived_cache: dict[str, Any] | None = None

    def _parse_counters(self, consumptions: list[Mapping[str, Any]], where: str) -> None:
        """The counters the device consumes (partitionable devices, KEP-4815)."""
        consumes: list[tuple[str, tuple[tuple[str, Number], ...]]] = []
        # KEP-5963: per counter set consumed, the compatibility groups declared for it (an
        # empty set when none); kept only when some entry declares groups, so that the
        # devices of most clusters carry no extra objects (compat.groups_of fills in).
        groups: list[tuple[str, frozenset[str]]] = []
        for i, consumption in enumerate(consumptions):
            declared = consumption.get("compatibilityGroups")
            groups.append(
                (
                    str(consumption.get("counterSet") or ""),
                    frozenset(str(g) for g in declared) if declared else NO_GROUPS,
                )
            )
            counters = tuple(
                (cname, exact(parse((c or {}).get("value"), f"{where}.consumesCounters[{i}]")))
                for cname, c in (consumption.get("counters") or {}).items()
            )
            consumes.append((str(consumption.get("counterSet") or ""), counters))
        self.consumes = tuple(consumes)
        self.declares_groups = any(g for _, g in groups)
        self.compat_groups = tuple(groups) if self.declares_groups else ()
        self.counter_use = tuple(
            ((set_name, cname), amount)
            for set_name, counters in consumes
            for cname, amount in counters
        )
        # No counter twice (the usual case): the search can check the counters before it
        # adds them (see Search._take_counters).
        self.counters_unique = len({k for k, _ in self.counter_use}) == len(self.counter_use)


class SliceInfo:
    """A ResourceSlice, parsed once."""

    __slots__ = (
        "_devices",
        "all_nodes",
        "count",
        "declares_groups",
        "driver",
        "generation",
        "has_binding_conditions",
        "has_node_fields",
        "index",
        "name",
        "node_name",
        "node_selector",
        "per_device",
        "per_device_set",
        "pool",
        "raw",
        "raw_devices",
        "shared_counters",
        "skip_node_operations",
    )

    def __init__(self, raw: Mapping[str, Any], index: int) -> None:
        spec = raw.get("spec") or {}
        self.raw = raw
        self.index = index
        self.name = _meta_name(raw)
        where = f"ResourceSlice {self.name}: spec"
        self.driver = str(spec.get("driver") or "")
        pool = spec.get("pool") or {}
        self.pool = str(pool.get("name") or "")
        self.generation = int(pool.get("generation") or 0)
        self.count = int(pool.get("resourceSliceCount") or 0)
        self.node_name = str(spec.get("nodeName") or "")
        self.all_nodes = bool(spec.get("allNodes"))
        self.node_selector = spec.get("nodeSelector")
        self.has_node_fields = bool(
            self.node_name or self.all_nodes or self.node_selector is not None
        )
        self.per_device_set = spec.get("perDeviceNodeSelection") is not None
        self.per_device = bool(spec.get("perDeviceNodeSelection"))
        counters: list[tuple[str, dict[str, Number]]] = []
        for i, counter_set in enumerate(spec.get("sharedCounters") or []):
            values = {
                cname: exact(parse((c or {}).get("value"), f"{where}.sharedCounters[{i}]"))
                for cname, c in (counter_set.get("counters") or {}).items()
            }
            counters.append((str(counter_set.get("name") or ""), values))
        self.shared_counters = counters
        # KEP-5945: node operations the kubelet may skip for this slice's devices.
        self.skip_node_operations: list[str] = [
            str(op) for op in spec.get("skipNodeOperations") or ()
        ]
        self.raw_devices: list[Mapping[str, Any]] = list(spec.get("devices") or [])
        self._devices: list[DeviceInfo] | None = None
        self.has_binding_conditions = any(
            d.get("bindingConditions") is not None for d in self.raw_devices
        )
        # KEP-5963: whether a device names compatibility groups (most slices: none, and then
        # the allocator skips the groups' bookkeeping for their pools).
        self.declares_groups = any(
            c.get("compatibilityGroups")
            for d in self.raw_devices
            for c in d.get("consumesCounters") or ()
            if isinstance(c, Mapping)
        )

    @property
    def devices(self) -> list[DeviceInfo]:
        """The parsed devices, built on first use: most slices of a big cluster are never
        looked at by a first-fit search."""
        if self._devices is None:
            where = f"ResourceSlice {self.name}: spec"
            self._devices = [
                DeviceInfo(d, self, f"{where}.devices[{i}]") for i, d in enumerate(self.raw_devices)
            ]
        return self._devices


class ClassInfo:
    """A DeviceClass: its CEL selectors (None for a selector without CEL) and config."""

    __slots__ = ("config", "name", "selectors")

    def __init__(self, raw: Mapping[str, Any]) -> None:
        spec = raw.get("spec") or {}
        self.name = _meta_name(raw)
        self.selectors: list[str | None] = [
            (s.get("cel") or {}).get("expression") if s.get("cel") is not None else None
            for s in spec.get("selectors") or []
        ]
        self.config: list[Mapping[str, Any]] = list(spec.get("config") or [])


class GatherError(Exception):
    """Gathering pools for a node failed (a node selector upstream cannot parse)."""


class PoolView:
    """One pool as seen from one node (upstream's ``Pool``)."""

    __slots__ = (
        "counter_sets",
        "counter_slices",
        "declares_groups",
        "devices",
        "driver",
        "has_binding",
        "incomplete",
        "invalid",
        "key",
        "name",
        "reason",
    )

    def __init__(self, driver: str, name: str) -> None:
        self.driver = driver
        self.name = name
        self.key = (driver, name)
        self.incomplete = False
        self.invalid = False
        self.reason = ""
        self.devices: list[DeviceInfo] = []
        self.counter_sets: dict[str, dict[str, Number]] = {}
        self.counter_slices: list[SliceInfo] = []
        self.declares_groups = False
        """Whether a device of ``counter_slices`` names compatibility groups (KEP-5963)."""
        self.has_binding = False


class NodeView:
    """Upstream's gathered pools for one node, plus per-device node reachability."""

    __slots__ = ("device_node_ok", "error", "has_invalid", "pool_by_key", "pool_keys", "pools")

    def __init__(self) -> None:
        self.pools: list[PoolView] = []
        self.error: str | None = None
        self.has_invalid = False
        self.device_node_ok: dict[int, bool | str] = {}
        self.pool_keys: tuple[tuple[str, str], ...] = ()
        self.pool_by_key: dict[tuple[str, str], PoolView] = {}


class Inventory:
    """Classes and slices of one cluster state, with per-node pool views built on demand."""

    def __init__(
        self,
        features: Features,
        device_classes: Iterable[Mapping[str, Any]],
        resource_slices: Iterable[Mapping[str, Any]],
        device_taint_rules: Iterable[Mapping[str, Any]] = (),
    ) -> None:
        self.features = features
        self.classes: dict[str, ClassInfo] = {}
        for raw in device_classes:
            info = ClassInfo(raw)
            self.classes[info.name] = info
        self.slices = [SliceInfo(raw, i) for i, raw in enumerate(resource_slices)]
        _apply_taint_rules(self.slices, device_taint_rules)
        self.slices_by_pool: dict[tuple[str, str], list[SliceInfo]] = {}
        self.slices_by_node: dict[str, list[SliceInfo]] = {}
        self.other_slices: list[SliceInfo] = []
        for s in self.slices:
            self.slices_by_pool.setdefault((s.driver, s.pool), []).append(s)
            if s.node_name and not s.shared_counters:
                self.slices_by_node.setdefault(s.node_name, []).append(s)
            else:
                self.other_slices.append(s)
        self._views: dict[tuple[str, tuple[tuple[str, str], ...]], NodeView] = {}
        # Capacity request shapes numbered per inventory: the devices cache what each consumes.
        self.capacity_ids: dict[tuple[tuple[str, str], ...], int] = {}
        self._pools: dict[tuple[Any, ...], PoolView] = {}

    def node_view(self, node: NodeInfo) -> NodeView:
        view = self._views.get(node.key)
        if view is None:
            view = self._build_view(node)
            self._views[node.key] = view
        return view

    def _candidate_slices(self, node: NodeInfo) -> list[SliceInfo]:
        own = self.slices_by_node.get(node.name, [])
        if not self.other_slices:
            return own
        if not own:
            return self.other_slices
        return sorted(own + self.other_slices, key=lambda s: s.index)

    def _build_view(self, node: NodeInfo) -> NodeView:
        view = NodeView()
        features = self.features
        partitionable = features.partitionable_devices
        defer_binding = not features.conservative
        pools: dict[tuple[str, str], list[SliceInfo]] = {}
        deferred: list[SliceInfo] = []

        def add(s: SliceInfo) -> None:
            key = (s.driver, s.pool)
            existing = pools.get(key)
            if existing is None or s.generation > existing[0].generation:
                pools[key] = [s]
            elif s.generation == existing[0].generation:
                existing.append(s)

        # The conservative implementation takes every slice with shared counters, wherever
        # it is; the newer ones only those that target the node (the others are found when
        # the pool turns out to be incomplete without them).
        counters_anywhere = features.conservative
        try:
            for s in self._candidate_slices(node):
                if not partitionable and (s.per_device_set or s.shared_counters):
                    continue
                if s.shared_counters and counters_anywhere:
                    add(s)
                elif s.has_node_fields:
                    try:
                        match = node_matches(node, s.node_name, s.all_nodes, s.node_selector)
                    except NodeSelectorError as err:
                        raise GatherError(
                            f"failed to perform node selection for slice {s.name}: {err}"
                        ) from None
                    if match:
                        if defer_binding and s.has_binding_conditions:
                            deferred.append(s)
                        else:
                            add(s)
                elif s.per_device:
                    for d in s.devices:
                        try:
                            match = node_matches(node, d.node_name, d.all_nodes, d.node_selector)
                        except NodeSelectorError as err:
                            raise GatherError(
                                f"failed to perform node selection for device {d.name} "
                                f"in slice {s.name}: {err}"
                            ) from None
                        if match:
                            if defer_binding and s.has_binding_conditions:
                                deferred.append(s)
                            else:
                                add(s)
                            break
            for s in deferred:
                add(s)
        except GatherError as err:
            view.error = f"gather pool information: {err}"
            return view

        result: list[PoolView] = []
        with_binding: list[PoolView] = []
        for (driver, name), node_slices in pools.items():
            count = node_slices[0].count
            generation = node_slices[0].generation
            all_slices: list[SliceInfo] | None = None
            if len(node_slices) != count:
                obsolete = False
                all_slices = []
                for s in self.slices_by_pool[(driver, name)]:
                    if s.generation == generation:
                        all_slices.append(s)
                    elif s.generation > generation:
                        obsolete = True
                        break
                if obsolete:
                    continue
                if len(all_slices) != count:
                    pool = PoolView(driver, name)
                    pool.incomplete = True
                    result.append(pool)
                    continue
            cache_key = (driver, name, tuple(s.index for s in node_slices), all_slices is None)
            cached = self._pools.get(cache_key)
            if cached is None:
                cached = self._build_pool(driver, name, node_slices, all_slices)
                self._pools[cache_key] = cached
            pool = cached
            if pool.has_binding and defer_binding:
                with_binding.append(pool)
            else:
                result.append(pool)
        if not features.conservative:
            result.sort(key=lambda p: (p.driver, p.name))
            with_binding.sort(key=lambda p: (p.driver, p.name))
        result.extend(with_binding)
        view.pools = result
        view.has_invalid = any(p.invalid for p in result)
        view.pool_keys = tuple(p.key for p in result if p.devices)
        view.pool_by_key = {p.key: p for p in result}
        for pool in result:
            for d in pool.devices:
                if d.slice.per_device:
                    try:
                        view.device_node_ok[id(d)] = node_matches(
                            node, d.node_name, d.all_nodes, d.node_selector
                        )
                    except NodeSelectorError as err:
                        view.device_node_ok[id(d)] = (
                            f"failed to perform node selection for device {d.name}: {err}"
                        )
        return view

    def _build_pool(
        self,
        driver: str,
        name: str,
        node_slices: list[SliceInfo],
        all_slices: list[SliceInfo] | None,
    ) -> PoolView:
        pool = PoolView(driver, name)
        partitionable = self.features.partitionable_devices
        if partitionable:
            device_slices = [s for s in node_slices if not s.shared_counters]
            counter_slices = [s for s in node_slices if s.shared_counters]
        else:
            device_slices = list(node_slices)
            counter_slices = []
        if not self.features.conservative:
            device_slices.sort(key=lambda s: s.name)
        seen: set[str] = set()
        for s in device_slices:
            for d in s.devices:
                if d.name in seen:
                    pool.invalid = True
                    pool.reason = f"duplicate device name {d.name}"
                    return pool
                seen.add(d.name)
        pool.devices = [d for s in device_slices for d in s.devices]
        pool.has_binding = any(d.binding_conditions is not None for d in pool.devices)
        if not partitionable:
            return pool
        others: list[SliceInfo] = []
        if all_slices is not None and len(all_slices) != len(node_slices):
            names = {s.name for s in node_slices}
            others = [s for s in all_slices if s.name not in names]
            if not self.features.conservative:
                counter_slices += [s for s in others if s.shared_counters]
        counter_sets: dict[str, dict[str, Number]] = {}
        for s in counter_slices:
            for set_name, counters in s.shared_counters:
                if set_name in counter_sets:
                    return self._invalid(pool, f"duplicate counter set name {set_name}")
                counter_sets[set_name] = counters
        reason = _check_consumption(counter_sets, node_slices)
        if reason:
            return self._invalid(pool, reason)
        counted = list(device_slices)
        if others:
            reason = _check_consumption(counter_sets, others)
            if reason:
                return self._invalid(pool, reason)
            counted.extend(others)
        pool.counter_sets = counter_sets
        pool.counter_slices = counted
        pool.declares_groups = any(s.declares_groups for s in counted)
        return pool

    @staticmethod
    def _invalid(pool: PoolView, reason: str) -> PoolView:
        pool.invalid = True
        pool.reason = reason
        pool.devices = []
        return pool


def _check_consumption(
    counter_sets: Mapping[str, Mapping[str, Number]], slices: Iterable[SliceInfo]
) -> str:
    for s in slices:
        for d in s.devices:
            for set_name, counters in d.consumes:
                counter_set = counter_sets.get(set_name)
                if counter_set is None:
                    return f"counter set {set_name} not found"
                for cname, _ in counters:
                    if cname not in counter_set:
                        return f"counter {cname} not found in counter set {set_name}"
    return ""


def _apply_taint_rules(slices: list[SliceInfo], rules: Iterable[Mapping[str, Any]]) -> None:
    """Add the taints of DeviceTaintRules to the devices they select (driver, pool, device;
    an unset field matches everything), as the scheduler's view of the slices shows them."""
    for rule in rules:
        spec = rule.get("spec") or {}
        taint = spec.get("taint")
        if not taint:
            continue
        selector = spec.get("deviceSelector") or {}
        driver, pool, name = selector.get("driver"), selector.get("pool"), selector.get("device")
        for s in slices:
            if (driver and s.driver != driver) or (pool and s.pool != pool):
                continue
            for d in s.devices:
                if not name or d.name == name:
                    d.taints.append(taint)
