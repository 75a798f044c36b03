"""CEL's standard function library: operators, size, conversions, strings, bytes, optionals.

Arithmetic follows int64/uint64 semantics with cel-go's error texts ("integer overflow",
"division by zero"...); integer division truncates toward zero and the remainder takes
the dividend's sign, as in Go. Runtime costs follow cel-go's CostTracker.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from kubedra.cel.errors import CelEvaluationError
from kubedra.cel.regex import compile_regex, regex_matches
from kubedra.cel.registry import NOT_CONSTANT, Overload, Registry
from kubedra.cel.types import (
    BOOL,
    BYTES,
    DOUBLE,
    DURATION,
    DYN,
    INT,
    NULL,
    STRING,
    TIMESTAMP,
    UINT,
    CelType,
    list_of,
    map_of,
    optional_of,
    type_of,
    type_param,
)
from kubedra.cel.values import (
    INT64_MAX,
    INT64_MIN,
    OPTIONAL_NONE,
    UINT64_MAX,
    Duration,
    Optional,
    Timestamp,
    TypeValue,
    UInt,
    cel_equal,
    check_int,
    check_uint,
    format_double,
    map_get,
    type_value,
)

A = type_param("A")
B = type_param("B")
LIST_A = list_of(A)
MAP_AB = map_of(A, B)


def size_of(value: Any) -> int:
    """cel-go's ``actualSize``: length of strings, bytes, lists and maps, 1 otherwise."""
    if isinstance(value, str | bytes | list | dict):
        return len(value)
    return 1


def _ceil_tenth(n: int) -> int:
    return (n + 9) // 10


def equality_cost(args: Sequence[Any], _result: Any) -> int:
    return _ceil_tenth(min(size_of(args[0]), size_of(args[1])))


def _binary_string_cost(args: Sequence[Any], _result: Any) -> int:
    return _ceil_tenth(size_of(args[0]) + size_of(args[1]))


def _first_arg_traversal_cost(args: Sequence[Any], _result: Any) -> int:
    return _ceil_tenth(size_of(args[0]))


def _contains_cost(args: Sequence[Any], _result: Any) -> int:
    return _ceil_tenth(size_of(args[0])) * _ceil_tenth(size_of(args[1]))


def _matches_cost(args: Sequence[Any], _result: Any) -> int:
    return _ceil_tenth(1 + size_of(args[0])) * ((size_of(args[1]) + 3) // 4)


def _in_list_cost(args: Sequence[Any], _result: Any) -> int:
    return size_of(args[1])


# arithmetic --------------------------------------------------------------------------


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _trunc_mod(a: int, b: int) -> int:
    return a - b * _trunc_div(a, b)


def int_div(a: int, b: int) -> int:
    if b == 0:
        raise CelEvaluationError("division by zero")
    if a == INT64_MIN and b == -1:
        raise CelEvaluationError("integer overflow")
    return _trunc_div(a, b)


def int_mod(a: int, b: int) -> int:
    if b == 0:
        raise CelEvaluationError("modulus by zero")
    if a == INT64_MIN and b == -1:
        raise CelEvaluationError("integer overflow")
    return _trunc_mod(a, b)


def uint_div(a: int, b: int) -> UInt:
    if b == 0:
        raise CelEvaluationError("division by zero")
    return UInt(a // b)


def uint_mod(a: int, b: int) -> UInt:
    if b == 0:
        raise CelEvaluationError("modulus by zero")
    return UInt(a % b)


def double_div(a: float, b: float) -> float:
    try:
        return a / b
    except ZeroDivisionError:
        if math.isnan(a) or a == 0:
            return math.nan
        sign = math.copysign(1.0, a) * math.copysign(1.0, b)
        return math.inf if sign > 0 else -math.inf


def _double_mul(a: float, b: float) -> float:
    return a * b


def _neg_int(a: int) -> int:
    return check_int(-a)


# comparisons -------------------------------------------------------------------------


def _via_double(compare: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    """An int or uint against a double compares as two doubles, like cel-go (so
    9223372036854775807 and 9223372036854775808.0 are equal there)."""
    return lambda a, b: compare(float(a), float(b))


def _cmp_values(a: Any, b: Any) -> int:
    if a < b:
        return -1
    if a > b:
        return 1
    return 0


# conversions -------------------------------------------------------------------------


def _conversion_error(source: str, target: str) -> CelEvaluationError:
    return CelEvaluationError(f"type conversion error from '{source}' to '{target}'")


def int_from_double(d: float) -> int:
    if math.isnan(d) or d <= -9.223372036854775808e18 or d >= 9.223372036854775807e18:
        raise CelEvaluationError("integer overflow")
    return int(d)


def int_from_string(s: str) -> int:
    text = s
    body = text[1:] if text.startswith(("+", "-")) else text
    if not body or not body.isascii() or not body.isdigit():
        raise _conversion_error("string", "int")
    if len(body.lstrip("0")) > 19:  # out of int64's range (and of Python's digit limit)
        raise _conversion_error("string", "int")
    value = int(text)
    if value < INT64_MIN or value > INT64_MAX:
        raise _conversion_error("string", "int")
    return value


def uint_from_int(i: int) -> UInt:
    if i < 0:
        raise CelEvaluationError("unsigned integer overflow")
    return UInt(i)


def uint_from_double(d: float) -> UInt:
    if math.isnan(d) or d < 0 or d >= 1.8446744073709551616e19:
        raise CelEvaluationError("unsigned integer overflow")
    return UInt(int(d))


def uint_from_string(s: str) -> UInt:
    if not s or not s.isascii() or not s.isdigit():
        raise _conversion_error("string", "uint")
    if len(s.lstrip("0")) > 20:  # out of uint64's range (and of Python's digit limit)
        raise _conversion_error("string", "uint")
    value = int(s)
    if value > UINT64_MAX:
        raise _conversion_error("string", "uint")
    return UInt(value)


_FLOAT_SPECIALS = {
    "inf": math.inf,
    "+inf": math.inf,
    "-inf": -math.inf,
    "infinity": math.inf,
    "+infinity": math.inf,
    "-infinity": -math.inf,
    "nan": math.nan,
}


def double_from_string(s: str) -> float:
    special = _FLOAT_SPECIALS.get(s.lower())
    if special is not None:
        return special
    stripped = s.replace("_", "x")
    try:
        if not stripped.isascii() or stripped != stripped.strip():
            raise ValueError(s)
        value = float(stripped)
    except ValueError:
        raise _conversion_error("string", "double") from None
    if math.isinf(value):
        # Go's ParseFloat reports a range error for a finite literal that overflows.
        raise _conversion_error("string", "double")
    return value


_BOOL_STRINGS = {
    "1": True,
    "t": True,
    "T": True,
    "true": True,
    "TRUE": True,
    "True": True,
    "0": False,
    "f": False,
    "F": False,
    "false": False,
    "FALSE": False,
    "False": False,
}


def bool_from_string(s: str) -> bool:
    value = _BOOL_STRINGS.get(s)
    if value is None:
        raise _conversion_error("string", "bool")
    return value


def string_from_bytes(b: bytes) -> str:
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        raise CelEvaluationError("invalid UTF-8 in bytes, cannot convert to string") from None


def string_from_double(d: float) -> str:
    return format_double(d)


# lists, maps, index ------------------------------------------------------------------


def list_index(lst: list[Any], index: Any) -> Any:
    t = type(index)
    if t is float:
        if not index.is_integer():
            raise CelEvaluationError(f"unsupported index value {format_double(index)} in list")
        index = int(index)
    elif t is not int and t is not UInt:
        raise CelEvaluationError("unsupported index type")
    if index < 0 or index >= len(lst):
        raise CelEvaluationError(f"index out of bounds: {index}")
    return lst[index]


_MISSING = object()


def _key_text(key: Any) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, float):
        return format_double(key)
    return str(key)


def map_index(m: dict[Any, Any], key: Any) -> Any:
    if type(key) is str:
        try:
            return m[key]
        except KeyError:
            raise CelEvaluationError(f"no such key: {key}") from None
    if not isinstance(key, int | float | str):
        raise CelEvaluationError("unsupported key type")
    value = map_get(m, key, _MISSING)
    if value is _MISSING:
        missing = getattr(m, "__missing__", None)
        if missing is not None:
            return missing(key)
        raise CelEvaluationError(f"no such key: {_key_text(key)}")
    return value


def index_value(container: Any, key: Any) -> Any:
    if isinstance(container, dict):
        return map_index(container, key)
    if isinstance(container, list):
        return list_index(container, key)
    if isinstance(container, Optional):
        return optional_index(container, key)  # indexing continues an optional chain
    raise CelEvaluationError("no such overload")


def optional_index(container: Any, key: Any) -> Optional:
    if isinstance(container, Optional):
        if not container.has_value:
            return OPTIONAL_NONE
        container = container.value
    if isinstance(container, dict):
        if type(key) is str:
            if key in container:
                return Optional(True, container[key])
            missing = getattr(container, "__missing__", None)
            return Optional(True, missing(key)) if missing is not None else OPTIONAL_NONE
        value = map_get(container, key, _MISSING)
        return OPTIONAL_NONE if value is _MISSING else Optional(True, value)
    if isinstance(container, list):
        if type(key) not in (int, UInt, float):
            raise CelEvaluationError("unsupported index type")
        if type(key) is float and not key.is_integer():
            return OPTIONAL_NONE
        i = int(key)
        return Optional(True, container[i]) if 0 <= i < len(container) else OPTIONAL_NONE
    raise CelEvaluationError("no such overload")


def in_list(value: Any, lst: list[Any]) -> bool:
    return any(cel_equal(value, x) for x in lst)


def in_map(key: Any, m: dict[Any, Any]) -> bool:
    if type(key) is str:
        return key in m
    return map_get(m, key, _MISSING) is not _MISSING


def in_container(value: Any, container: Any) -> bool:
    if isinstance(container, list):
        return in_list(value, container)
    if isinstance(container, dict):
        return in_map(value, container)
    raise CelEvaluationError("no such overload")


def add_list(a: list[Any], b: list[Any]) -> list[Any]:
    return a + b


def add_list_work(args: Sequence[Any], _budget: int) -> int:
    """The items ``a + b`` copies: upstream charges 1 (cel-go concatenates lazily), but
    doubling a list through twenty nested bindings would copy a million items here."""
    return sum(len(arg) for arg in args if isinstance(arg, list))


# optionals ---------------------------------------------------------------------------


def optional_of_value(v: Any) -> Optional:
    return Optional(True, v)


def _is_zero(v: Any) -> bool:
    if v is None or v is False:
        return True
    if isinstance(v, int | float | str | bytes | list | dict):
        return not v
    if isinstance(v, Duration | Timestamp):
        return v.ns == 0
    return False


def optional_of_non_zero(v: Any) -> Optional:
    return OPTIONAL_NONE if _is_zero(v) else Optional(True, v)


def optional_value(o: Optional) -> Any:
    if not o.has_value:
        raise CelEvaluationError("optional.none() dereference")
    return o.value


def optional_has_value(o: Optional) -> bool:
    return o.has_value


# validators --------------------------------------------------------------------------


def _validate_regex(consts: tuple[Any, ...]) -> str | None:
    pattern = consts[1]
    if pattern is NOT_CONSTANT or not isinstance(pattern, str):
        return None
    try:
        compile_regex(pattern)
    except CelEvaluationError:
        return "invalid matches argument"
    return None


def _prepare_regex(consts: tuple[Any, ...]) -> Any:
    pattern = consts[1]
    if pattern is NOT_CONSTANT or not isinstance(pattern, str):
        return None
    test = compile_regex(pattern).matches

    def matches(text: str, _pattern: str) -> bool:
        return test(text)

    return matches


def register(registry: Registry) -> None:
    """Declare the standard library in ``registry``."""
    add = registry.add

    def op(
        name: str, oid: str, params: tuple[CelType, ...], result: CelType, impl: Any, **kw: Any
    ) -> None:
        add(name, Overload(oid, params, result, impl, detailed_type_error=False, **kw))

    # logic and conditionals (the compiler gives them their non-strict semantics)
    op("!_", "logical_not", (BOOL,), BOOL, lambda a: not a)
    op("_&&_", "logical_and", (BOOL, BOOL), BOOL, lambda a, b: a and b)
    op("_||_", "logical_or", (BOOL, BOOL), BOOL, lambda a, b: a or b)
    op("_?_:_", "conditional", (BOOL, A, A), A, lambda c, a, b: a if c else b)
    op("@not_strictly_false", "not_strictly_false", (BOOL,), BOOL, lambda a: a is not False)

    # equality and ordering
    op("_==_", "equals", (A, A), BOOL, cel_equal, cost=equality_cost)
    op("_!=_", "not_equals", (A, A), BOOL, lambda a, b: not cel_equal(a, b), cost=equality_cost)
    ordered: list[tuple[str, CelType]] = [
        ("bool", BOOL),
        ("int64", INT),
        ("uint64", UINT),
        ("double", DOUBLE),
        ("string", STRING),
        ("bytes", BYTES),
        ("timestamp", TIMESTAMP),
        ("duration", DURATION),
    ]
    comparisons = {
        "_<_": ("less", lambda a, b: a < b),
        "_<=_": ("less_equals", lambda a, b: a <= b),
        "_>_": ("greater", lambda a, b: a > b),
        "_>=_": ("greater_equals", lambda a, b: a >= b),
    }
    numeric = [("int64", INT), ("uint64", UINT), ("double", DOUBLE)]
    for fn, (prefix, impl) in comparisons.items():
        for tname, t in ordered:
            cost: Any = _first_arg_min_cost if t in (STRING, BYTES) else 1
            op(fn, f"{prefix}_{tname}", (t, t), BOOL, impl, cost=cost)
        for lname, lt in numeric:
            for rname, rt in numeric:
                if lname != rname:
                    mixed = _via_double(impl) if DOUBLE in (lt, rt) else impl
                    op(fn, f"{prefix}_{lname}_{rname}", (lt, rt), BOOL, mixed)

    # arithmetic
    op("-_", "negate_int64", (INT,), INT, _neg_int)
    op("-_", "negate_double", (DOUBLE,), DOUBLE, lambda a: -a)
    op("_+_", "add_int64", (INT, INT), INT, lambda a, b: check_int(a + b))
    op("_+_", "add_uint64", (UINT, UINT), UINT, lambda a, b: check_uint(a + b))
    op("_+_", "add_double", (DOUBLE, DOUBLE), DOUBLE, lambda a, b: a + b)
    op("_+_", "add_string", (STRING, STRING), STRING, lambda a, b: a + b, cost=_binary_string_cost)
    op("_+_", "add_bytes", (BYTES, BYTES), BYTES, lambda a, b: a + b, cost=_binary_string_cost)
    op("_+_", "add_list", (LIST_A, LIST_A), LIST_A, add_list, work=add_list_work)
    op("_-_", "subtract_int64", (INT, INT), INT, lambda a, b: check_int(a - b))
    op("_-_", "subtract_uint64", (UINT, UINT), UINT, lambda a, b: check_uint(a - b))
    op("_-_", "subtract_double", (DOUBLE, DOUBLE), DOUBLE, lambda a, b: a - b)
    op("_*_", "multiply_int64", (INT, INT), INT, lambda a, b: check_int(a * b))
    op("_*_", "multiply_uint64", (UINT, UINT), UINT, lambda a, b: check_uint(a * b))
    op("_*_", "multiply_double", (DOUBLE, DOUBLE), DOUBLE, _double_mul)
    op("_/_", "divide_int64", (INT, INT), INT, int_div)
    op("_/_", "divide_uint64", (UINT, UINT), UINT, uint_div)
    op("_/_", "divide_double", (DOUBLE, DOUBLE), DOUBLE, double_div)
    op("_%_", "modulo_int64", (INT, INT), INT, int_mod)
    op("_%_", "modulo_uint64", (UINT, UINT), UINT, uint_mod)

    # index and membership
    op("_[_]", "index_list", (LIST_A, INT), A, list_index)
    op("_[_]", "index_list_uint", (LIST_A, UINT), A, list_index)
    op("_[_]", "index_list_double", (LIST_A, DOUBLE), A, list_index)
    op("_[_]", "index_map", (MAP_AB, A), B, map_index)
    op("_[?_]", "optional_list_index", (LIST_A, INT), optional_of(A), optional_index)
    op("_[?_]", "optional_map_index", (MAP_AB, A), optional_of(B), optional_index)
    op(
        "_[?_]",
        "optional_opt_list_index",
        (optional_of(LIST_A), INT),
        optional_of(A),
        optional_index,
    )
    op(
        "_[?_]",
        "optional_opt_map_index",
        (optional_of(MAP_AB), A),
        optional_of(B),
        optional_index,
    )
    # Plain indexing of an optional container continues the optional chain (cel-go's
    # optional library): optional.of({'c': 1})['c'] is optional.of(1).
    op("_[_]", "optional_list_index_int", (optional_of(LIST_A), INT), optional_of(A),
       optional_index)  # fmt: skip
    op("_[_]", "optional_map_index_value", (optional_of(MAP_AB), A), optional_of(B),
       optional_index)  # fmt: skip
    op("@in", "in_list", (A, LIST_A), BOOL, in_list, cost=_in_list_cost)
    op("@in", "in_map", (A, MAP_AB), BOOL, in_map)

    # size
    for tname, t in (("string", STRING), ("bytes", BYTES), ("list", LIST_A), ("map", MAP_AB)):
        op("size", f"size_{tname}", (t,), INT, len)
        op("size", f"{tname}_size", (t,), INT, len, member=True)

    # conversions: cel-go evaluates these at plan time when the argument is a literal.
    def conv(name: str, oid: str, param: CelType, result: CelType, impl: Any, **kw: Any) -> None:
        op(name, oid, (param,), result, impl, fold=True, **kw)

    conv("int", "int64_to_int64", INT, INT, lambda a: a)
    conv("int", "uint64_to_int64", UINT, INT, lambda a: check_int(int(a)))
    conv("int", "double_to_int64", DOUBLE, INT, int_from_double)
    conv("int", "string_to_int64", STRING, INT, int_from_string)
    conv("uint", "uint64_to_uint64", UINT, UINT, lambda a: a)
    conv("uint", "int64_to_uint64", INT, UINT, uint_from_int)
    conv("uint", "double_to_uint64", DOUBLE, UINT, uint_from_double)
    conv("uint", "string_to_uint64", STRING, UINT, uint_from_string)
    conv("double", "double_to_double", DOUBLE, DOUBLE, lambda a: a)
    conv("double", "int64_to_double", INT, DOUBLE, float)
    conv("double", "uint64_to_double", UINT, DOUBLE, float)
    conv("double", "string_to_double", STRING, DOUBLE, double_from_string)
    conv("string", "string_to_string", STRING, STRING, lambda a: a)
    conv("string", "int64_to_string", INT, STRING, str)
    conv("string", "uint64_to_string", UINT, STRING, lambda a: str(int(a)))
    conv("string", "double_to_string", DOUBLE, STRING, string_from_double)
    conv("string", "bool_to_string", BOOL, STRING, lambda a: "true" if a else "false")
    conv(
        "string",
        "bytes_to_string",
        BYTES,
        STRING,
        string_from_bytes,
        cost=_first_arg_traversal_cost,
    )
    conv("bytes", "bytes_to_bytes", BYTES, BYTES, lambda a: a)
    conv(
        "bytes",
        "string_to_bytes",
        STRING,
        BYTES,
        lambda a: a.encode("utf-8"),
        cost=_first_arg_traversal_cost,
    )
    conv("bool", "bool_to_bool", BOOL, BOOL, lambda a: a)
    conv("bool", "string_to_bool", STRING, BOOL, bool_from_string)
    conv("dyn", "to_dyn", A, DYN, lambda a: a)
    conv("type", "type", A, type_of(A), type_value)

    # strings
    op(
        "contains",
        "contains_string",
        (STRING, STRING),
        BOOL,
        lambda a, b: b in a,
        member=True,
        cost=_contains_cost,
    )
    op(
        "startsWith",
        "starts_with_string",
        (STRING, STRING),
        BOOL,
        lambda a, b: a.startswith(b),
        member=True,
        cost=_first_arg_traversal_cost,
    )
    op(
        "endsWith",
        "ends_with_string",
        (STRING, STRING),
        BOOL,
        lambda a, b: a.endswith(b),
        member=True,
        cost=_first_arg_traversal_cost,
    )
    op(
        "matches",
        "matches_string",
        (STRING, STRING),
        BOOL,
        regex_matches,
        member=True,
        cost=_matches_cost,
        validate=_validate_regex,
        prepare=_prepare_regex,
    )
    op(
        "matches",
        "matches",
        (STRING, STRING),
        BOOL,
        regex_matches,
        cost=_matches_cost,
        validate=_validate_regex,
        prepare=_prepare_regex,
    )

    # optionals
    op("optional.of", "optional_of", (A,), optional_of(A), optional_of_value)
    op(
        "optional.ofNonZeroValue",
        "optional_ofNonZeroValue",
        (A,),
        optional_of(A),
        optional_of_non_zero,
    )
    op("optional.none", "optional_none", (), optional_of(A), lambda: OPTIONAL_NONE)
    op("value", "optional_value", (optional_of(A),), A, optional_value, member=True)
    op("hasValue", "optional_hasValue", (optional_of(A),), BOOL, optional_has_value, member=True)
    op(
        "or",
        "optional_or_optional",
        (optional_of(A), optional_of(A)),
        optional_of(A),
        lambda a, b: a if a.has_value else b,
        member=True,
    )
    op(
        "orValue",
        "optional_orValue_value",
        (optional_of(A), A),
        A,
        lambda a, b: a.value if a.has_value else b,
        member=True,
    )

    _ = (NULL, TypeValue)


def _first_arg_min_cost(args: Sequence[Any], _result: Any) -> int:
    return _ceil_tenth(min(size_of(args[0]), size_of(args[1])))
