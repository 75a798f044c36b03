"""The simulated DRA control plane: an object store, its controllers and the simulation loop."""

from kubedra.cluster.clock import SimClock
from kubedra.cluster.events import Event
from kubedra.cluster.kinds import KINDS, KindInfo
from kubedra.cluster.store import DELETE_PROTECTION_FINALIZER, Store, StoreError

__all__ = [
    "DELETE_PROTECTION_FINALIZER",
    "KINDS",
    "Event",
    "KindInfo",
    "SimClock",
    "Store",
    "StoreError",
]
