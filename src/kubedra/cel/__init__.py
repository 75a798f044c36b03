"""CEL for DRA device selectors: parser, type checker, compiler to closures, K8s libraries.

Public API: ``compile_selector(expression, features=None) -> CompiledSelector`` with
``matches(device)``, ``evaluate(device)`` and ``estimated_max_cost``; ``CelFeatures``;
``kubedra.cel.device.CelDevice`` for the device side; the error types below.
"""

from kubedra.cel.errors import CelCompileError, CelCostLimitError, CelError, CelEvaluationError
from kubedra.cel.selector import CelFeatures, CompiledSelector, compile_selector

__all__ = [
    "CelCompileError",
    "CelCostLimitError",
    "CelError",
    "CelEvaluationError",
    "CelFeatures",
    "CompiledSelector",
    "compile_selector",
]
