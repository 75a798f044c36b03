"""The function registry: every CEL function the type checker and the compiler know.

How a library plugs in (cellibs: this is all you need)
------------------------------------------------------
Put a module in ``kubedra/cel/libs/`` that defines ``register(registry: Registry) -> None``.
The environment imports every module of that package once, in name order, and calls
``register``. Inside it:

* ``registry.value_type(PyClass, opaque("kubernetes.Quantity"))`` names the CEL type of a
  Python class (for ``type()``, runtime dispatch on ``dyn`` and error messages).
* ``registry.add("compareTo", Overload("quantity_compareTo", (QUANTITY, QUANTITY), INT,
  impl, member=True))`` adds one overload. ``params`` lists the argument types, the receiver
  first for member functions (``q.compareTo(x)`` -> ``impl(q, x)``). Types come from
  ``kubedra.cel.types`` (``INT``, ``STRING``, ``list_of(type_param("A"))``...).
* ``impl`` receives plain Python values (int, UInt, float, str, bytes, bool, None, list, dict,
  your own classes) and returns one. It reports a CEL runtime error by raising
  ``CelEvaluationError(message)`` with upstream's text; other exceptions are reported as
  errors too but without a good message.
* ``cost``: runtime cost in CEL units, an int or ``cost(args, result) -> int`` (the default is
  1, as cel-go charges for a call). A cost is charged, and the limit checked, before
  ``impl`` runs (``cost(args, None)``), so no call works long past the limit; only a cost
  that needs the result (``cost_from_result=True``: join, slice) is charged after it.
  ``work(args, budget)``: work the call does that upstream's cost leaves out (see
  the field). The static estimate of a call is upstream's, by
  function name and overload id, in ``kubedra.cel.cost_library`` (default 1).
* ``fold=True``: when every argument is a literal, the call is evaluated at compile time and a
  failure is a compile error "program instantiation failed: ..." (cel-go does this for type
  conversions).
* ``prepare(consts) -> impl | None``: called at compile time with the argument tuple in which
  non-literal arguments are ``NOT_CONSTANT``; may return a specialised implementation (e.g.
  a precompiled regex) or raise ``CelEvaluationError`` (-> "program instantiation failed").
* ``validate(consts) -> str | None``: a compile-time check of literal arguments, like
  cel-go's AST validators; a returned message is a compile error pointing at the last
  argument.

Nothing else is needed: the checker resolves overloads by these declarations, and the
compiler calls ``impl`` directly when one overload matches statically or dispatches on the
runtime types when arguments are ``dyn``.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kubedra.cel.types import CelType
from kubedra.cel.values import register_value_type

SizeEstimate = tuple[int, int]
CostFn = Callable[[Sequence[Any], Any], int]


class _NotConstant:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NOT_CONSTANT"


NOT_CONSTANT: Any = _NotConstant()


@dataclass(frozen=True, slots=True)
class Overload:
    """One typed implementation of a CEL function."""

    id: str
    params: tuple[CelType, ...]
    result: CelType
    impl: Callable[..., Any]
    member: bool = False
    cost: int | CostFn = 1
    fold: bool = False
    prepare: Callable[[tuple[Any, ...]], Callable[..., Any] | None] | None = None
    validate: Callable[[tuple[Any, ...]], str | None] | None = None
    # A wrong runtime argument type reads "no such overload: name(types)", as cel-go's
    # type-guarded bindings report; its standard library says just "no such overload".
    detailed_type_error: bool = True
    # The cost needs the call's result (the result's size): charged after the call. Any
    # other cost function is known from the arguments and is charged, with the limit
    # checked, before the call (``precharged``), so a call that would work long or build a
    # huge value (``lists.range(10**8)``, ``max()`` of 10**7 items) stops at the limit first.
    cost_from_result: bool = False
    # ``work(args, budget) -> int``: what the call will do beyond what upstream charges for
    # it, counted up to just past ``budget`` (``flatten`` walks every nested list, shared ones
    # again each time, but cel-go charges only depth x outer size). The tracked evaluation
    # meters it against the cost limit before the call starts, and the estimate of an
    # expression using it is no sure bound, so such an expression is never run untracked.
    work: Callable[[Sequence[Any], int], int] | None = None

    @property
    def precharged(self) -> bool:
        """Whether the cost is charged (and the limit checked) before the call runs."""
        return not isinstance(self.cost, int) and not self.cost_from_result


class Registry:
    """Functions by name, each with its overloads, plus the library value types."""

    def __init__(self) -> None:
        self.functions: dict[str, list[Overload]] = {}
        self.by_id: dict[str, Overload] = {}

    def add(self, name: str, overload: Overload) -> None:
        if overload.id in self.by_id:
            raise ValueError(f"CEL overload {overload.id!r} is registered twice")
        self.functions.setdefault(name, []).append(overload)
        self.by_id[overload.id] = overload

    def value_type(self, cls: type, cel_type: CelType) -> None:
        register_value_type(cls, cel_type)

    def overloads(self, name: str) -> list[Overload]:
        return self.functions.get(name, [])


def load_libraries(registry: Registry) -> None:
    """Register every module in ``kubedra.cel.libs`` (the Kubernetes and ext libraries)."""
    package = importlib.import_module("kubedra.cel.libs")
    names = sorted(m.name for m in pkgutil.iter_modules(package.__path__))
    for name in names:
        module = importlib.import_module(f"kubedra.cel.libs.{name}")
        register = getattr(module, "register", None)
        if callable(register):
            register(registry)
