"""The seven DRA feature gates the kube-scheduler hands to its allocator."""

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
    "dra_preemption": "DRAPreemption",
}


@dataclass(frozen=True, slots=True)
class Features:
    """Which DRA features are enabled; all on by default (the newest scheduler)."""

    admin_access: bool = True
    prioritized_list: bool = True
    partitionable_devices: bool = True
    device_taints: bool = True
    binding_conditions: bool = True
    consumable_capacity: bool = True
    list_type_attributes: bool = True
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
    def conservative(self) -> bool:
        """True when upstream picks its oldest ("stable") implementation.

        Upstream picks it when DRAConsumableCapacity, DRADeviceBindingConditions and
        DRAListTypeAttributes are all off. It keeps pools and slices in the order it finds
        them instead of sorting them (and does not move pools with binding conditions last),
        searches every pool again for each device of a request (permutations, not
        combinations), takes slices with shared counters whatever node they target, rejects
        distinctAttribute as an unknown constraint, shows CEL allowMultipleAllocations as false
        and ignores bindsToNode. The two newer implementations differ only in list-type
        attribute handling, which follows DRAListTypeAttributes here.
        """
        return not (
            self.consumable_capacity or self.binding_conditions or self.list_type_attributes
        )
