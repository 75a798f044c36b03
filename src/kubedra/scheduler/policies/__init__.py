"""Placement policies as scheduler plugins: a node score and the matching device choice.

``REGISTRY`` names every policy: upstream's ``first-fit`` (the default), the paper's
``random``, ``best-fit``, ``dot-product``, ``gpu-packing``, ``gpu-clustering`` and ``fgd``
(Weng et al., USENIX ATC '23), ``spread``, ``most-allocated`` and ``least-allocated``, and
what users ``register``. ``SchedulerConfig(placement=NAME, workload=...)`` and
``kubedra simulate|plan --policy NAME`` run one; see docs/guides/policies.md.
"""

from kubedra.allocator.policy import DeviceCandidate, DeviceKey
from kubedra.scheduler.policies.base import (
    REGISTRY,
    ActivePolicy,
    DeviceView,
    NodeScorer,
    NodeView,
    NodeViews,
    PodView,
    Policy,
    PolicyContext,
    PolicyError,
    Registry,
    get,
    names,
    register,
)
from kubedra.scheduler.policies.builtin import BUILTINS, register_builtins
from kubedra.scheduler.policies.fragmentation import Fragmentation
from kubedra.scheduler.policies.workload import (
    DEFAULT_COVERAGE,
    TaskShape,
    Workload,
    WorkloadError,
)

register_builtins(REGISTRY)

__all__ = [
    "BUILTINS",
    "DEFAULT_COVERAGE",
    "REGISTRY",
    "ActivePolicy",
    "DeviceCandidate",
    "DeviceKey",
    "DeviceView",
    "Fragmentation",
    "NodeScorer",
    "NodeView",
    "NodeViews",
    "PodView",
    "Policy",
    "PolicyContext",
    "PolicyError",
    "Registry",
    "TaskShape",
    "Workload",
    "WorkloadError",
    "get",
    "names",
    "register",
]
