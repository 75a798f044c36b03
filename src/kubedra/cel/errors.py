"""Errors raised by kubedra's CEL engine.

Compile errors and evaluation errors are distinct types because the allocator treats them
differently: a selector that does not compile is rejected at validation time, while an
evaluation error aborts the scheduling attempt of the pod, as upstream does.
"""

from __future__ import annotations


class CelError(Exception):
    """Base class of every CEL error."""


class CelCompileError(CelError):
    """The expression does not parse or type-check, or its result type is not bool."""


class CelEvaluationError(CelError):
    """Evaluating the expression failed at run time (no such key, overflow, bad argument...).

    ``cost`` is the runtime cost spent until the failure when the evaluation tracked it
    (cel-go reports it with the error too), else None."""

    cost: int | None = None


class CelCostLimitError(CelEvaluationError):
    """Evaluation exceeded the runtime cost budget (1,000,000 units for DRA selectors)."""
