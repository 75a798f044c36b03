"""Derived attributes (KEP-6080): a CEL expression over one device whose value, not a bool,
becomes a virtual attribute that claim constraints compare.

The expression sees the same ``device`` as a selector does. Its value must be a scalar
(string, int, bool, semver) or a list of one of those; anything else is an evaluation error
worded as upstream's ``EvaluateDerivedAttribute`` words it. The result is a
``resource.k8s.io/v1`` DeviceAttribute dict (``{"string": ...}``, ``{"ints": [...]}``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from kubedra.api.semver import Semver
from kubedra.cel.device import CelDevice
from kubedra.cel.environment import Program
from kubedra.cel.errors import CelCompileError, CelError, CelEvaluationError
from kubedra.cel.libs.semver import SEMVER
from kubedra.cel.selector import CelFeatures, selector_environment
from kubedra.cel.types import BOOL, INT, STRING, CelType

# The Go type cel-go's ref.Val.Value() has for each kind of CEL value, for error messages.
_GO_TYPES = {
    float: "float64",
    bytes: "[]uint8",
    dict: "map[ref.Val]ref.Val",
    type(None): "structpb.NullValue",
}


class CompiledDerivedAttribute:
    """One derived attribute expression, compiled once; ``output_type`` and the estimated
    worst-case cost are what validation checks."""

    __slots__ = ("_program", "estimated_max_cost", "expression", "output_type")

    def __init__(self, expression: str, program: Program) -> None:
        self.expression = expression
        self._program = program
        self.output_type: CelType = program.output_type
        self.estimated_max_cost: int = program.estimated_max_cost

    def attribute(self, device: CelDevice) -> dict[str, Any]:
        """The DeviceAttribute dict for ``device``; raises CelEvaluationError."""
        if device.error is not None:
            raise CelEvaluationError(device.error)
        value, _ = self._program.evaluate(device.variables)
        return _to_attribute(value)


def _go_type(value: Any) -> str:
    for kind, name in _GO_TYPES.items():
        if isinstance(value, kind):
            return name
    return type(value).__name__


def _scalar_kind(value: Any) -> str | None:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Semver):
        return "version"
    return None


def _plain(kind: str, value: Any) -> Any:
    return str(value) if kind == "version" else value


def _to_attribute(value: Any) -> dict[str, Any]:
    kind = _scalar_kind(value)
    if kind is not None:
        return {kind: _plain(kind, value)}
    if isinstance(value, list):
        if not value:
            return {"strings": []}
        first = _scalar_kind(value[0])
        if first is None:
            raise CelEvaluationError(f"unsupported list element type: {_go_type(value[0])}")
        items = []
        for i, item in enumerate(value):
            if _scalar_kind(item) != first:
                wanted = {"bool": "bool", "int": "int", "string": "string", "version": "semver"}
                raise CelEvaluationError(
                    f"expected list element at index {i} to be {wanted[first]}, "
                    f"got {_go_type(item)}"
                )
            items.append(_plain(first, item))
        return {f"{first}s": items}
    raise CelEvaluationError(f"unsupported CEL return type: {_go_type(value)}")


def _allowed_element(t: CelType) -> bool:
    return t in (BOOL, INT, STRING, SEMVER) or t.kind in ("dyn", "free")


def _allowed_output(t: CelType, lists: bool) -> bool:
    if _allowed_element(t):
        return True
    return lists and t.kind == "list" and len(t.params) == 1 and _allowed_element(t.params[0])


def output_type_problem(t: CelType, lists: bool = True) -> str | None:
    """Upstream's ``validateOutputType`` for a derived attribute: None when ``t`` is a scalar
    (or, with ``lists``, a list of scalars), else the message."""
    if _allowed_output(t, lists):
        return None
    if lists:
        return (
            "must evaluate to a primitive scalar (string, integer, boolean, semver) or a list "
            f"of these scalars, not {t}"
        )
    return f"must evaluate to a primitive scalar (string, integer, boolean, semver), not {t}"


@lru_cache(maxsize=1024)
def _compile(expression: str) -> CompiledDerivedAttribute | CelCompileError:
    env = selector_environment(CelFeatures())
    try:
        return CompiledDerivedAttribute(expression, env.compile(expression))
    except CelCompileError as error:
        return error


def compile_derived_attribute(expression: str) -> CompiledDerivedAttribute:
    """Compile a derived attribute expression (cached); raises CelCompileError."""
    compiled = _compile(expression)
    if isinstance(compiled, CelCompileError):
        raise CelCompileError(str(compiled))
    return compiled


__all__ = [
    "CelError",
    "CompiledDerivedAttribute",
    "compile_derived_attribute",
    "output_type_problem",
]
