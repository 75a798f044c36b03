"""Planning on a simulated cluster: device policies compared, capacity left, utilization,
nodes to add, what-if steps as diffs."""

from kubedra.cluster.steps import load_steps, parse_steps
from kubedra.planning.capacity import CapacityResult, plan_capacity
from kubedra.planning.cluster import PlanInputError, load_objects, scheduler_factory, simulate
from kubedra.planning.nodes import NodesResult, plan_nodes
from kubedra.planning.usage import Usage, usage
from kubedra.planning.utilization import Group, groups
from kubedra.planning.validate import check_claims, revalidate
from kubedra.planning.whatif import Diff, what_if

__all__ = [
    "CapacityResult",
    "Diff",
    "Group",
    "NodesResult",
    "PlanInputError",
    "Usage",
    "check_claims",
    "groups",
    "load_objects",
    "load_steps",
    "parse_steps",
    "plan_capacity",
    "plan_nodes",
    "revalidate",
    "scheduler_factory",
    "simulate",
    "usage",
    "what_if",
]
