"""The DRA feature gates the kube-scheduler hands to its allocator.

The first seven are those of the shared conformance corpus (upstream at 2026-07-01); the four
1.37 alpha/beta gates after them default to off, as in a plain 1.37 cluster, so that a case
that names only the seven runs as it did upstream then.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields

GATE_NAMES: dict[str, str] = {
    "admin_access": "DRAAdminAccess",
    "prioritized_list": "DRAPrioritizedList",
    "partitionable_devices": "DRAPartitionableDevices",
    "device_taints": "DRADeviceTaints",
    "binding_conditions": "DRADeviceBindingConditions",
    "consumable_capacity": "DRAConsumableCapacity",
    "list_type_attributes": "DRAListTypeAttributes",
    "fractional_capacity_range": "DRAFractionalCapacityRange",
    "optional_node_operations": "DRAOptionalNodeOperations",
    "derived_attributes": "DRADerivedAttributes",
    "compatibility_groups": "DRADeviceCompatibilityGroups",
    "dra_preemption": "DRAPreemption",
}


@dataclass(frozen=True, slots=True)
class Features:
    """Which DRA features are enabled: the seven of 1.36 on by default (the newest scheduler),
    the 1.37 additions and DRAPreemption off."""

    admin_access: bool = True
    prioritized_list: bool = True
    partitionable_devices: bool = True
    device_taints: bool = True
    binding_conditions: bool = True
    consumable_capacity: bool = True
    list_type_attributes: bool = True
    fractional_capacity_range: bool = False
    """Milli-unit arithmetic for a fractional ``validRange`` (beta in 1.37, off by default)."""
    optional_node_operations: bool = False
    """KEP-5945: devices of slices with ``skipNodeOperations`` (alpha in 1.37)."""
    derived_attributes: bool = False
    """KEP-6080: ``derivedAttributes`` of requests, used by constraints (alpha in 1.37)."""
    compatibility_groups: bool = False
    """KEP-5963: ``consumesCounters[].compatibilityGroups`` enforced (alpha in 1.37)."""
    dra_preemption: bool = False
    """KEP-5690: DefaultPreemption may free node-local devices (the scheduler's, not the
    allocator's switch; alpha, so off unless named)."""

    @classmethod
    def from_gates(cls, gates: Mapping[str, object]) -> Features:
        """Build from a ``{"DRAAdminAccess": true, ...}`` map; unknown gate names are rejected."""
        known = set(GATE_NAMES.values())
        unknown = sorted(set(gates) - known)
        if unknown:
            raise ValueError(f"unknown feature gate(s): {', '.join(unknown)}")
        defaults = {f.name: f.default for f in fields(cls)}
        values = {attr: bool(gates.get(gate, defaults[attr])) for attr, gate in GATE_NAMES.items()}
        return cls(**values)

    def to_gates(self) -> dict[str, bool]:
        return {GATE_NAMES[f.name]: getattr(self, f.name) for f in fields(self)}

    @property
    def experimental(self) -> bool:
        """True when upstream picks its newest implementation (``experimental``): it alone
        supports DRAListTypeAttributes and the 1.37 alpha gates DRAOptionalNodeOperations,
        DRADerivedAttributes and DRADeviceCompatibilityGroups. Of the behaviours kubedra
        models, only that one allocates devices of slices with ``skipNodeOperations``
        selectively (the older ones ignore the field).
        """
        return (
            self.list_type_attributes
            or self.optional_node_operations
            or self.derived_attributes
            or self.compatibility_groups
        )

    @property
    def conservative(self) -> bool:
        """True when upstream picks its oldest ("stable") implementation.

        Upstream picks it when DRAConsumableCapacity, DRADeviceBindingConditions,
        DRAListTypeAttributes and every 1.37 allocator gate are off. It keeps pools and slices
        in the order it finds them instead of sorting them (and does not move pools with binding
        conditions last), searches every pool again for each device of a request (permutations,
        not combinations), takes slices with shared counters whatever node they target, rejects
        distinctAttribute as an unknown constraint, shows CEL allowMultipleAllocations as false
        and ignores bindsToNode. The two newer implementations differ only in list-type
        attribute handling, which follows DRAListTypeAttributes here.
        """
        return not (
            self.consumable_capacity
            or self.binding_conditions
            or self.fractional_capacity_range
            or self.experimental
        )
