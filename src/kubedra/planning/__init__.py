"""Planning on a simulated cluster: device policies compared, capacity left, utilization."""

from kubedra.planning.cluster import PlanInputError, load_objects, scheduler_factory, simulate

__all__ = ["PlanInputError", "load_objects", "scheduler_factory", "simulate"]
