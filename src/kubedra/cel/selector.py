"""DRA device selectors: the ``device`` environment, ``compile_selector`` and its result.

This is the environment of ``k8s.io/dynamic-resource-allocation/cel`` for stored expressions:
the Kubernetes base libraries, ``cel.bind``, the ``includes`` function and ``device`` typed
as ``kubernetes.DRADevice`` (driver, allowMultipleAllocations, attributes with ``dyn``
values, capacity with quantities). Runtime errors get upstream's hint for missing keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from kubedra.cel.ast import Call, Const, CreateList, CreateMap, Ident, Macro, Node, Select
from kubedra.cel.device import CelDevice
from kubedra.cel.environment import RUNTIME_COST_LIMIT, Environment, Program, standard_registry
from kubedra.cel.errors import CelCompileError, CelCostLimitError, CelError, CelEvaluationError
from kubedra.cel.registry import Overload, Registry
from kubedra.cel.types import BOOL, DYN, STRING, map_of, object_type, opaque
from kubedra.cel.values import cel_equal, value_type

MISSING_KEY_HINT = (
    ". consider using CEL optional chaining (.? followed by orValue()) or guarding the check "
    "with has() for optional fields"
)
QUANTITY = opaque("kubernetes.Quantity")
# resource.k8s.io/v1 limits that bound the sizes the cost estimator may assume.
MAX_ATTRIBUTES_AND_CAPACITIES = 32
MAX_ATTRIBUTE_VALUES = 48
ATTRIBUTE_VALUE_MAX_LENGTH = 64
DOMAIN_MAX_LENGTH = 63
ID_MAX_LENGTH = 32
DRIVER_NAME_MAX_LENGTH = 63


@dataclass(frozen=True, slots=True)
class CelFeatures:
    """Which device fields and functions the environment offers.

    The default is the newest environment, which is also what the kube-scheduler uses for
    stored expressions whatever its feature gates say; disabling a flag gives the
    environment of a new expression under that gate being off.
    """

    consumable_capacity: bool = True
    list_type_attributes: bool = True


def _includes(target: Any, arg: Any) -> bool:
    if isinstance(target, list):
        for i, item in enumerate(target):
            if i >= MAX_ATTRIBUTE_VALUES:
                raise CelEvaluationError(
                    "'includes' function cannot be applied to lists longer than "
                    f"{MAX_ATTRIBUTE_VALUES} values"
                )
            if _equal_or_false(item, arg):
                return True
        return False
    return _equal_or_false(target, arg)


def _equal_or_false(a: Any, b: Any) -> bool:
    """Upstream's includes only accepts an Equal that returns true; an error is a mismatch."""
    try:
        return cel_equal(a, b)
    except CelEvaluationError:
        return False


@dataclass(frozen=True, slots=True)
class _Decl:
    """A declared type with Kubernetes' MaxElements (apiserver's DeclType), for sizes."""

    max_elements: int = 0
    fields: Mapping[str, _Decl] = field(default_factory=lambda: MappingProxyType({}))
    key: _Decl | None = None
    elem: _Decl | None = None


_ATTRIBUTE = _Decl(max(ATTRIBUTE_VALUE_MAX_LENGTH, MAX_ATTRIBUTE_VALUES))
_QUANTITY = _Decl(0)
_INNER_ATTRIBUTES = _Decl(MAX_ATTRIBUTES_AND_CAPACITIES, key=_Decl(ID_MAX_LENGTH), elem=_ATTRIBUTE)
_INNER_CAPACITY = _Decl(MAX_ATTRIBUTES_AND_CAPACITIES, key=_Decl(ID_MAX_LENGTH), elem=_QUANTITY)
_DEVICE = _Decl(
    0,
    fields=MappingProxyType(
        {
            "driver": _Decl(DRIVER_NAME_MAX_LENGTH),
            "allowMultipleAllocations": _Decl(1),
            "attributes": _Decl(
                MAX_ATTRIBUTES_AND_CAPACITIES, key=_Decl(DOMAIN_MAX_LENGTH), elem=_INNER_ATTRIBUTES
            ),
            "capacity": _Decl(
                MAX_ATTRIBUTES_AND_CAPACITIES, key=_Decl(DOMAIN_MAX_LENGTH), elem=_INNER_CAPACITY
            ),
        }
    ),
)


def _size_hint(path: tuple[str, ...]) -> int | None:
    """Maximum sizes of values reachable from ``device``: upstream's sizeEstimator walks
    the declared types by field path (``@items``/``@values`` step into elements, ``@keys``
    into keys; any name inside an attribute map is an attribute)."""
    if not path or path[0] != "device":
        return None
    node = _DEVICE
    for name in path[1:]:
        if name in ("@items", "@values"):
            if node.elem is None:
                return None
            node = node.elem
        elif name == "@keys":
            if node.key is None:
                return None
            node = node.key
        else:
            found = node.fields.get(name)
            if found is None:
                if node.elem is _ATTRIBUTE:
                    node = _ATTRIBUTE
                    continue
                return None
            node = found
    return node.max_elements


@lru_cache(maxsize=4)
def selector_environment(features: CelFeatures) -> Environment:
    base = standard_registry()
    registry = Registry()
    for name, overloads in base.functions.items():
        for overload in overloads:
            registry.add(name, overload)
    if features.list_type_attributes:
        registry.add(
            "includes",
            Overload(
                "dra_includes_dyn_dyn",
                (DYN, DYN),
                BOOL,
                _includes,
                member=True,
            ),
        )
    attributes = map_of(STRING, map_of(STRING, DYN))
    capacity = map_of(STRING, map_of(STRING, QUANTITY))
    fields = {"driver": STRING, "attributes": attributes, "capacity": capacity}
    if features.consumable_capacity:
        fields["allowMultipleAllocations"] = BOOL
    device_type = object_type("kubernetes.DRADevice", fields)
    return Environment(registry, {"device": device_type}, size_hints=_size_hint)


def _enhance(error: CelEvaluationError) -> CelEvaluationError:
    message = str(error)
    if "no such key:" in message and not message.endswith(MISSING_KEY_HINT):
        enhanced = type(error)(message + MISSING_KEY_HINT)
        enhanced.cost = error.cost
        return enhanced
    return error


def _not_bool(value: Any) -> CelEvaluationError:
    name = value_type(value).name
    if isinstance(value, str):
        detail = "unsupported native conversion from string to 'bool'"
    else:
        detail = f"unsupported type conversion from '{name}' to bool"
    return CelEvaluationError(f"CEL result of type {name} could not be converted to bool: {detail}")


# Scratch space for untracked programs: they have no comprehension slots and never write it.
_SCRATCH: list[Any] = [0]


class CompiledSelector:
    """A device selector compiled once; ``matches`` is the allocator's hot path."""

    __slots__ = (
        "_fast",
        "_program",
        "_scratch",
        "device_fields",
        "estimated_max_cost",
        "expression",
    )

    def __init__(
        self, expression: str, program: Program, device_fields: frozenset[str] | None = None
    ) -> None:
        self.expression = expression
        self.device_fields = device_fields
        """The fields of ``device`` the expression reads (``device.driver``...), or None
        when it uses ``device`` in another way (whole, or through ``has()``): a view of the
        device may leave out what no selector of a chain reads."""
        self._program = program
        self._fast = program.fast_function
        # Without comprehension variables the untracked closures never write the scratch
        # list, so one shared list serves every call.
        self._scratch = program.scratch_size
        self.estimated_max_cost: int = program.estimated_max_cost

    @property
    def cost_bounded(self) -> bool:
        """Whether a static figure (:attr:`cost_bound`) bounds every evaluation's cost and
        work well within the limit, so that ``matches`` runs without tracking them (the fuzz
        tests check that it does)."""
        return self._fast is not None

    @property
    def cost_bound(self) -> int | None:
        """A figure no evaluation's actual cost exceeds (by more than the fast path's
        margin), or None; upstream's estimate except where cel-go prices a call lower than
        it charges it (``startsWith`` by its argument, not its receiver)."""
        return self._program.cost_bound

    def matches(self, device: CelDevice) -> bool:
        """Whether the device is selected; raises CelEvaluationError like upstream."""
        fast = self._fast
        if fast is None or device.error is not None:
            return self.evaluate(device)[0]
        try:
            size = self._scratch
            result = fast(device.variables, _SCRATCH if size == 1 else [0] * size)
        except CelCostLimitError:
            raise
        except CelEvaluationError as e:
            raise _enhance(e) from None
        except CelError:
            raise
        except Exception as e:
            raise CelEvaluationError(f"internal error: {e}") from None
        if result is True or result is False:
            return result
        raise _not_bool(result)

    def evaluate(self, device: CelDevice) -> tuple[bool, int]:
        """The result and the actual runtime cost (for conformance and diagnostics); a
        CelEvaluationError carries the cost spent until it failed."""
        if device.error is not None:
            raise CelEvaluationError(device.error)
        try:
            result, cost = self._program.evaluate(device.variables)
        except CelCostLimitError:
            raise
        except CelEvaluationError as e:
            raise _enhance(e) from None
        if result is True or result is False:
            return result, cost
        error = _not_bool(result)
        error.cost = cost
        raise error


@lru_cache(maxsize=8192)
def _compile(expression: str, features: CelFeatures) -> CompiledSelector | CelCompileError:
    """The compiled selector, or the compile error (cached too: a broken selector is met
    again for every candidate device)."""
    env = selector_environment(features)
    try:
        checked = env.check(expression)
        output = checked.type(checked.root)
        if output != BOOL and output.kind not in ("dyn", "free"):
            raise CelCompileError(f"must evaluate to bool or the unknown type, not {output}")
        return CompiledSelector(expression, env.program(checked), _device_fields(checked.root))
    except CelCompileError as error:
        return error


def _device_fields(root: Node) -> frozenset[str] | None:
    """The fields read as ``device.<field>``; None when ``device`` appears otherwise (a
    comprehension variable named ``device`` only makes the answer more cautious)."""
    fields: set[str] = set()
    pending: list[Node] = [root]
    while pending:
        node = pending.pop()
        if isinstance(node, Select):
            operand = node.operand
            if isinstance(operand, Ident) and operand.name == "device":
                if node.test_only or node.optional:
                    return None
                fields.add(node.field)
            else:
                pending.append(operand)
        elif isinstance(node, Ident):
            if node.name == "device":
                return None
        elif isinstance(node, Call):
            pending.extend(node.args)
            if node.target is not None:
                pending.append(node.target)
        elif isinstance(node, CreateList):
            pending.extend(node.elements)
        elif isinstance(node, CreateMap):
            for entry in node.entries:
                pending.extend((entry.key, entry.value))
        elif isinstance(node, Macro):
            pending.extend(node.args)
            if node.target is not None:
                pending.append(node.target)
        elif not isinstance(node, Const):
            return None  # a node kind this walk does not know: assume anything is read
    return frozenset(fields)


def compile_selector(expression: str, features: CelFeatures | None = None) -> CompiledSelector:
    """Compile a DRA selector; cached by (expression, features). Raises CelCompileError."""
    compiled = _compile(expression, features or CelFeatures())
    if isinstance(compiled, CelCompileError):
        raise CelCompileError(str(compiled))
    return compiled


__all__ = ["RUNTIME_COST_LIMIT", "CelFeatures", "CompiledSelector", "compile_selector"]
