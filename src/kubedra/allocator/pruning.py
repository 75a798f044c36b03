"""Pruning for long searches: cut what provably cannot succeed, never change a result.

Upstream's search enumerates every combination before it reports that claims do not fit; a
small input can keep it busy for hours (upstream bounds it with the scheduler's filter
timeout). When a search runs long, ``analyze`` looks at the whole problem once and, only if
nothing in the search can raise an error (every selector of every request evaluates cleanly on
every device, no All-mode request has a claim constraint that could fail), returns:

* the request options that no device set can satisfy, even with nothing else allocated (too
  few usable devices, or an All-mode request with an unusable device): such an option fails
  at once, and a request whose options all fail means that no solution exists at all;
* a signature per device: two devices with equal signatures are interchangeable for every
  request of the call (same selector results, capacity, counters of the same pool, taints,
  constraint attributes, allocated state), so once one of them failed at a search position,
  the other fails there too and is skipped. Signatures are left out when a claim uses
  distinctAttribute or list-type matchAttribute, whose upstream bookkeeping depends on the
  search's history and not only on the devices chosen.

With no error possible, a search's outcome is its first solution or none, and both cuts skip
only subtrees without solutions and without results-size overflows, so the outcome is the
unpruned one (tests/allocator/test_alloc_pruning.py checks this on generated cases).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kubedra.allocator.constraints import DistinctAttribute, MatchAttribute

if TYPE_CHECKING:
    from kubedra.allocator.claims import RequestData
    from kubedra.allocator.inventory import DeviceInfo
    from kubedra.allocator.search import Search


class Pruning:
    """What ``analyze`` found: infeasible options, whether any solution can exist, and the
    device signatures (None when devices must not be treated as interchangeable)."""

    __slots__ = ("infeasible", "no_solution", "signatures")

    def __init__(self) -> None:
        self.infeasible: set[int] = set()
        self.no_solution = False
        self.signatures: dict[int, tuple[Any, ...]] | None = None


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def analyze(search: Search, check_deadline: Callable[[], None]) -> Pruning | None:
    """The pruning for ``search``, or None when some step of the search could raise."""
    options: list[RequestData] = []
    for claim_index, claim in enumerate(search.claims):
        # Usable-alone reasoning needs amounts that only ever use up counters and capacity.
        for slot in claim.slots:
            for data in slot.options:
                if any(q.nanos < 0 for q in (data.capacity or {}).values()):
                    return None
                # A derived attribute's expression may fail on any device (an error), and
                # its value is not part of the device signature.
                if data.derived:
                    return None
        claim_options = [data for slot in claim.slots for data in slot.options]
        if search.constraints[claim_index] and any(d.mode_all for d in claim_options):
            return None
        options.extend(claim_options)
    devices: list[DeviceInfo] = [
        device
        for pool in search.view.pools
        if not (pool.incomplete or pool.invalid)
        for device in pool.devices
    ]
    if any(amount < 0 for device in devices for _, amount in device.counter_use):
        return None
    from kubedra.allocator.search import AllocationError

    selectable: dict[int, tuple[bool, ...]] = {}
    for device in devices:
        check_deadline()
        row = []
        for data in options:
            try:
                row.append(search._selectable(search.claims[data.claim_index], data, device))
            except AllocationError:
                return None
        selectable[id(device)] = tuple(row)
    pruning = Pruning()
    position = {id(data): i for i, data in enumerate(options)}
    for data in options:
        column = position[id(data)]

        def usable(device: DeviceInfo, data: RequestData = data, column: int = column) -> bool:
            return selectable[id(device)][column] and search.usable_alone(data, device)

        if data.mode_all:
            chosen = search.all_devices[id(data)]
            feasible = bool(chosen) and all(usable(d) for d in chosen)
        else:
            need = data.count
            found = 0
            for device in devices:
                if found >= need:
                    break
                if usable(device):
                    found += 1
            feasible = found >= need
        if not feasible:
            pruning.infeasible.add(id(data))
    for claim in search.claims:
        for slot in claim.slots:
            if slot.options and all(id(d) in pruning.infeasible for d in slot.options):
                pruning.no_solution = True
    history_dependent = any(
        isinstance(c, DistinctAttribute) or (isinstance(c, MatchAttribute) and c.list_mode)
        for constraints in search.constraints
        for c in constraints
    )
    if not history_dependent:
        attributes = sorted({c.attribute for cs in search.constraints for c in cs})
        in_use = search.state.in_use
        shared = search.state.shared
        shares = search.state.shares
        node_ok = search.view.device_node_ok
        pruning.signatures = {
            id(d): (
                selectable[id(d)],
                (d.driver, d.pool) if d.consumes else None,
                d.consumes,
                _json(d.raw.get("capacity")),
                _json(d.taints),
                _json(d.binding_conditions),
                node_ok.get(id(d)),
                tuple(_json(d.attrs.get(a)) for a in attributes),
                d.key in in_use,
                d.key in shares,
                _json(shared.get(d.key)),
                d.allow_multiple,
                d.compat_groups,
                tuple(d.slice.skip_node_operations),
            )
            for d in devices
        }
    return pruning
