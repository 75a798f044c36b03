"""Runtime values of CEL in Python and the operations every type shares (equality, type()).

CEL values map onto plain Python objects wherever possible so that the compiled closures
do no wrapping on the hot path: int, float, bool, str, bytes, None, list and dict. Only the
types Python lacks get a class here: ``UInt`` (a tagged int), ``Timestamp``, ``Duration``,
``TypeValue`` and ``Optional``. Library types (Quantity, Semver, IP...) register their
Python class with ``register_value_type`` so that ``type()``, runtime dispatch and error
messages know their CEL names.
"""

from __future__ import annotations

import math
from typing import Any

from kubedra.cel.errors import CelEvaluationError
from kubedra.cel.types import (
    BOOL,
    BYTES,
    DOUBLE,
    DURATION,
    INT,
    NULL,
    STRING,
    TIMESTAMP,
    UINT,
    CelType,
    opaque,
    type_of,
)

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
UINT64_MAX = (1 << 64) - 1


class UInt(int):
    """A CEL ``uint``: an int tagged so that runtime dispatch can tell it from ``int``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"{int(self)}u"


class Duration:
    """A CEL duration in nanoseconds (the range of Go's time.Duration)."""

    __slots__ = ("ns",)

    def __init__(self, ns: int) -> None:
        self.ns = ns

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Duration) and other.ns == self.ns

    def __lt__(self, other: Duration) -> bool:
        return self.ns < other.ns

    def __le__(self, other: Duration) -> bool:
        return self.ns <= other.ns

    def __hash__(self) -> int:
        return hash(("duration", self.ns))

    def __repr__(self) -> str:
        return f"Duration({self.ns}ns)"


class Timestamp:
    """A CEL timestamp: nanoseconds since the Unix epoch, years 0001 to 9999 in UTC."""

    __slots__ = ("ns",)

    def __init__(self, ns: int) -> None:
        self.ns = ns

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Timestamp) and other.ns == self.ns

    def __lt__(self, other: Timestamp) -> bool:
        return self.ns < other.ns

    def __le__(self, other: Timestamp) -> bool:
        return self.ns <= other.ns

    def __hash__(self) -> int:
        return hash(("timestamp", self.ns))

    def __repr__(self) -> str:
        return f"Timestamp({self.ns}ns)"


class TypeValue:
    """A runtime type value such as the result of ``type(1)`` or the identifier ``int``."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TypeValue) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("type", self.name))

    def __repr__(self) -> str:
        return self.name


class Optional:
    """``optional_type(T)``: either a value or none."""

    __slots__ = ("has_value", "value")

    def __init__(self, has_value: bool, value: Any = None) -> None:
        self.has_value = has_value
        self.value = value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Optional) or other.has_value != self.has_value:
            return False
        return not self.has_value or cel_equal(self.value, other.value)

    def __hash__(self) -> int:
        return hash(("optional", self.has_value))

    def __repr__(self) -> str:
        return f"optional.of({self.value!r})" if self.has_value else "optional.none()"


OPTIONAL_NONE = Optional(False)

_VALUE_TYPES: dict[type, CelType] = {}


def register_value_type(cls: type, cel_type: CelType) -> None:
    """Tell the runtime which CEL type a library's Python class implements."""
    _VALUE_TYPES[cls] = cel_type


def library_type(name: str) -> CelType | None:
    """A library type by its CEL name (``net.IP``, ``kubernetes.Quantity``...), for type
    identifiers such as ``type(ip("::1")) == net.IP``."""
    for cel_type in _VALUE_TYPES.values():
        if cel_type.name == name:
            return cel_type
    return None


def registered_class(name: str) -> type | None:
    """The library class registered for a CEL type name, if exactly one is."""
    found = [cls for cls, t in _VALUE_TYPES.items() if t.name == name]
    return found[0] if len(found) == 1 else None


def value_type(value: Any) -> CelType:
    """The CEL type of a runtime value (list and map without element types)."""
    t = type(value)
    simple = _SIMPLE_TYPES.get(t)
    if simple is not None:
        return simple
    registered = _VALUE_TYPES.get(t)
    if registered is not None:
        return registered
    for cls, cel_type in _VALUE_TYPES.items():
        if isinstance(value, cls):
            return cel_type
    if isinstance(value, dict):
        return _MAP_BARE
    if isinstance(value, list):
        return _LIST_BARE
    return opaque(type(value).__name__)


_LIST_BARE = CelType("list", "list")
_MAP_BARE = CelType("map", "map")
_OPTIONAL_BARE = CelType("opaque", "optional_type")
_SIMPLE_TYPES: dict[type, CelType] = {
    bool: BOOL,
    int: INT,
    UInt: UINT,
    float: DOUBLE,
    str: STRING,
    bytes: BYTES,
    type(None): NULL,
    list: _LIST_BARE,
    dict: _MAP_BARE,
    Duration: DURATION,
    Timestamp: TIMESTAMP,
    TypeValue: type_of(),
    Optional: _OPTIONAL_BARE,
}


def type_name(value: Any) -> str:
    """The CEL name of a value's type, as shown by ``type()`` and in error messages."""
    return value_type(value).name


def type_value(value: Any) -> TypeValue:
    return TypeValue(type_name(value))


_NUMERIC = (int, UInt, float)


def cel_equal(a: Any, b: Any, seen: dict[tuple[int, int], bool] | None = None) -> bool:
    """CEL equality with heterogeneous semantics: numbers compare by value across types,
    values of different kinds are simply unequal, lists and maps compare element-wise.

    ``seen`` remembers the containers already compared within one comparison: CEL values
    are immutable, so a list shared many times (ten levels of ten references to the level
    below) is compared once per pair, not 10**10 times."""
    ta = type(a)
    tb = type(b)
    if ta is tb:
        if ta is list:
            return _list_equal(a, b, seen)
        if ta is dict:
            return _map_equal(a, b, seen)
        return bool(a == b)
    if a is None or b is None:
        return False  # cel-go compares null before asking either side's Equal
    if ta in _NUMERIC and tb in _NUMERIC:
        if ta is float or tb is float:
            return float(a) == float(b)  # cel-go compares int with double as doubles
        return bool(a == b)
    if ta is bool or tb is bool:
        return False
    if isinstance(a, list) and isinstance(b, list):
        return _list_equal(a, b, seen)
    if isinstance(a, dict) and isinstance(b, dict):
        return _map_equal(a, b, seen)
    if value_type(a) != value_type(b):
        if ta in _VALUE_TYPES:
            # Library types (Quantity, Semver, IP...) refuse comparison with other types,
            # as their Go Equal methods do; built-in types just compare unequal.
            raise CelEvaluationError("no such overload")
        return False
    return bool(a == b)


def _element_unequal(a: Any, b: Any, seen: dict[tuple[int, int], bool]) -> bool:
    """cel-go's list and map Equal stop only at an element comparison that is False: one
    that fails (a library type against another type) does not make the containers unequal."""
    try:
        return not cel_equal(a, b, seen)
    except CelEvaluationError:
        return False


def _list_equal(a: list[Any], b: list[Any], seen: dict[tuple[int, int], bool] | None) -> bool:
    if len(a) != len(b):
        return False
    if seen is None:
        seen = {}
    pair = (id(a), id(b))
    known = seen.get(pair)
    if known is None:
        known = seen[pair] = not any(
            _element_unequal(x, y, seen) for x, y in zip(a, b, strict=True)
        )
    return known


def _map_equal(
    a: dict[Any, Any], b: dict[Any, Any], seen: dict[tuple[int, int], bool] | None
) -> bool:
    if len(a) != len(b):
        return False
    if seen is None:
        seen = {}
    pair = (id(a), id(b))
    known = seen.get(pair)
    if known is None:
        known = True
        for key, value in a.items():
            other = map_get(b, key, _MISSING)
            if other is _MISSING or _element_unequal(value, other, seen):
                known = False
                break
        seen[pair] = known
    return known


_MISSING = object()


class _BoolKey:
    """A bool map key stored apart from the equal ints 0 and 1."""

    __slots__ = ("value",)

    def __init__(self, value: bool) -> None:
        self.value = value

    def __hash__(self) -> int:
        return hash((_BoolKey, self.value))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _BoolKey) and other.value is self.value


def _wrap(key: Any) -> Any:
    return _BoolKey(key) if type(key) is bool else key


def _unwrap(key: Any) -> Any:
    return key.value if type(key) is _BoolKey else key


class CelMap(dict):
    """A CEL map with bool keys besides int keys: CEL keeps ``true`` and ``1`` apart, a
    Python dict merges them. Only maps that hold a bool key are built as this class."""

    def __setitem__(self, key: Any, value: Any) -> None:
        dict.__setitem__(self, _wrap(key), value)

    def __getitem__(self, key: Any) -> Any:
        return dict.__getitem__(self, _wrap(key))

    def get(self, key: Any, default: Any = None) -> Any:
        return dict.get(self, _wrap(key), default)

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, _wrap(key))

    def __iter__(self) -> Any:
        return (_unwrap(k) for k in dict.__iter__(self))

    def keys(self) -> Any:
        return [_unwrap(k) for k in dict.keys(self)]

    def items(self) -> Any:
        return [(_unwrap(k), v) for k, v in dict.items(self)]

    def __repr__(self) -> str:
        return repr(dict(self.items()))


def map_put(m: dict[Any, Any], key: Any, value: Any) -> dict[Any, Any]:
    """Insert into a map being built; returns the map (a CelMap once a bool key comes)."""
    if type(key) is bool and type(m) is dict:
        converted = CelMap()
        for k, v in m.items():
            converted[k] = v
        m = converted
    m[key] = value
    return m


def map_get(m: dict[Any, Any], key: Any, default: Any) -> Any:
    """Map lookup with CEL key semantics: bool keys never match numbers and vice versa,
    numeric keys match across int, uint and double when the values are equal."""
    tk = type(key)
    if tk is bool:
        for k, v in m.items():
            if type(k) is bool and k == key:
                return v
        return default
    if tk is float:
        if not key.is_integer():
            return default
        key = int(key)
    try:
        value = m.get(key, _MISSING)
    except TypeError:  # a list or map as key: no entry has it (cel-go's Find misses)
        return default
    if value is _MISSING:
        return default
    if tk is not str and tk is not bool:
        for k in m:
            if k == key and type(k) is not bool:
                return m[k]
        return default
    return value


def check_int(value: int) -> int:
    if value < INT64_MIN or value > INT64_MAX:
        raise CelEvaluationError("integer overflow")
    return value


def check_uint(value: int) -> UInt:
    if value < 0 or value > UINT64_MAX:
        raise CelEvaluationError("unsigned integer overflow")
    return UInt(value)


def format_double(d: float) -> str:
    """Format a double like Go's ``strconv.FormatFloat(d, 'g', -1, 64)`` (as cel-go does)."""
    if math.isnan(d):
        return "NaN"
    if math.isinf(d):
        return "+Inf" if d > 0 else "-Inf"
    if d == 0:
        return "-0" if math.copysign(1.0, d) < 0 else "0"
    text = repr(abs(d))
    mantissa, _, exp_text = text.partition("e")
    exponent = int(exp_text) if exp_text else 0
    int_part, _, frac_part = mantissa.partition(".")
    if frac_part == "0":
        frac_part = ""
    digits = (int_part + frac_part).lstrip("0")
    # Decimal point position relative to the start of ``digits``.
    leading_zeros = len(int_part + frac_part) - len((int_part + frac_part).lstrip("0"))
    point = len(int_part) - leading_zeros + exponent
    digits = digits.rstrip("0") or "0"
    exp10 = point - 1
    sign = "-" if d < 0 else ""
    if exp10 < -4 or exp10 >= 6:
        head, tail = digits[0], digits[1:]
        body = head + ("." + tail if tail else "")
        esign = "-" if exp10 < 0 else "+"
        return f"{sign}{body}e{esign}{abs(exp10):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * (-point)}{digits}"
    if point >= len(digits):
        return f"{sign}{digits}{'0' * (point - len(digits))}"
    return f"{sign}{digits[:point]}.{digits[point:]}"
