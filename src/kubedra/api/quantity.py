"""Kubernetes ``resource.Quantity``: exact parsing, arithmetic and canonical serialization.

Quantities appear in device capacities, consumed capacity and CEL selectors, and kubedra must
produce byte-identical strings and identical comparisons to the API server. Values are kept
exactly as integers in units of 10^-9 (parsing rounds everything finer than a nano up, as
Kubernetes does), which makes comparison and addition single integer operations.

Kubernetes stores a quantity in one of two representations: a scaled int64 (the fast path) or
an arbitrary precision decimal (``inf.Dec``). The choice is observable: ``AsInt64`` (and with
it CEL's ``isInteger``/``asInteger``) only succeeds for the int64 form, and arithmetic in the
CEL library mutates a shared decimal in place. Each ``Quantity`` therefore remembers which form
Kubernetes would use and, for the decimal form, its scale.
"""

from __future__ import annotations

import math
from typing import Final

__all__ = [
    "BINARY_SI",
    "DECIMAL_EXPONENT",
    "DECIMAL_SI",
    "ERR_FORMAT_WRONG",
    "ERR_NUMERIC",
    "ERR_SUFFIX",
    "Quantity",
    "QuantityParseError",
]

DECIMAL_EXPONENT: Final = "DecimalExponent"
BINARY_SI: Final = "BinarySI"
DECIMAL_SI: Final = "DecimalSI"

_SPLIT_RE_STRING = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
ERR_FORMAT_WRONG: Final = f"quantities must match the regular expression '{_SPLIT_RE_STRING}'"
ERR_NUMERIC: Final = "unable to parse numeric part of quantity"
ERR_SUFFIX: Final = "unable to parse quantity's suffix"

_INT64_MAX: Final = (1 << 63) - 1
_INT64_MIN: Final = -(1 << 63)
_NANO: Final = 10**9
# Python integers are unbounded, but a value of 10**(10**9) would exhaust memory; Kubernetes
# keeps such values as (mantissa, exponent). kubedra refuses them instead.
_MAX_DECIMAL_DIGITS: Final = 100_000

_SUFFIX_CHARS: Final = frozenset("eEinumkKMGTP")
_DIGITS: Final = frozenset("0123456789")

# suffix -> (base, exponent, format)
_SUFFIXES: Final[dict[str, tuple[int, int, str]]] = {
    "": (10, 0, DECIMAL_SI),
    "n": (10, -9, DECIMAL_SI),
    "u": (10, -6, DECIMAL_SI),
    "m": (10, -3, DECIMAL_SI),
    "k": (10, 3, DECIMAL_SI),
    "M": (10, 6, DECIMAL_SI),
    "G": (10, 9, DECIMAL_SI),
    "T": (10, 12, DECIMAL_SI),
    "P": (10, 15, DECIMAL_SI),
    "E": (10, 18, DECIMAL_SI),
    "Ki": (2, 10, BINARY_SI),
    "Mi": (2, 20, BINARY_SI),
    "Gi": (2, 30, BINARY_SI),
    "Ti": (2, 40, BINARY_SI),
    "Pi": (2, 50, BINARY_SI),
    "Ei": (2, 60, BINARY_SI),
}
_DECIMAL_SUFFIX_FOR_EXPONENT: Final = {
    -9: "n",
    -6: "u",
    -3: "m",
    0: "",
    3: "k",
    6: "M",
    9: "G",
    12: "T",
    15: "P",
    18: "E",
}
_BINARY_SUFFIX_FOR_EXPONENT: Final = {10: "Ki", 20: "Mi", 30: "Gi", 40: "Ti", 50: "Pi", 60: "Ei"}

# Go's math.Pow10 tables: Pow10 is computed from them, not correctly rounded for negative n.
_POW10_TAB: Final = tuple(float(f"1e{i}") for i in range(32))
_POW10_POS_TAB32: Final = tuple(float(f"1e{32 * i}") for i in range(10))
_POW10_NEG_TAB32: Final = (
    1.0,
    1e-32,
    1e-64,
    1e-96,
    1e-128,
    1e-160,
    1e-192,
    1e-224,
    1e-256,
    1e-288,
    1e-320,
)


class QuantityParseError(ValueError):
    """The text is not a Kubernetes quantity; the message is the apimachinery error text."""


def _go_pow10(n: int) -> float:
    if 0 <= n <= 308:
        return _POW10_POS_TAB32[n // 32] * _POW10_TAB[n % 32]
    if -323 <= n <= 0:
        return _POW10_NEG_TAB32[-n // 32] / _POW10_TAB[-n % 32]
    return math.inf if n > 0 else 0.0


def _int_to_float(value: int) -> float:
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _in_int64(value: int) -> bool:
    return _INT64_MIN <= value <= _INT64_MAX


def _int64_multiply(a: int, b: int) -> int | None:
    """Go's int64Multiply: the exact product when it fits, None on overflow."""
    if a in (0, 1) or b in (0, 1):
        return a * b
    if _INT64_MIN in (a, b):
        return None
    product = a * b
    return product if _in_int64(product) else None


def _positive_scale_int64(base: int, scale: int) -> int | None:
    """Go's positiveScaleInt64: ``base * 10**scale`` if it fits in an int64."""
    if scale == 0 or base == 0:
        return base
    if scale > 19 or base == _INT64_MIN:
        return None
    product = base * 10**scale
    return product if _in_int64(product) else None


def _wrap_int64(value: int) -> int:
    """Go's big.Int.Int64(): the low 64 bits as a signed integer."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


def _pow10_nanos(digits: int, exponent10: int) -> int:
    """``digits * 10**exponent10`` in nanos, rounded up (away from zero) to a whole nano."""
    shift = exponent10 + 9
    if shift >= 0:
        if shift > _MAX_DECIMAL_DIGITS:
            raise QuantityParseError("quantity is too large for kubedra to represent exactly")
        return digits * 10**shift
    if digits == 0:
        return 0
    if -shift > len(str(digits)):
        return 1
    return -(-digits // 10**-shift)


class _Dec:
    """A shared, mutable arbitrary precision decimal, like Go's ``*inf.Dec``.

    Kubernetes' CEL ``add``/``sub`` copy a Quantity by value, which shares the decimal pointer
    and writes the sum through it; sharing this object reproduces that.
    """

    __slots__ = ("nanos", "scale", "shared")

    def __init__(self, nanos: int, scale: int, shared: bool = True) -> None:
        self.nanos = nanos
        self.scale = scale  # inf.Dec scale: value = unscaled * 10**-scale
        # False for values a CEL program computes itself: kubedra may fold those into
        # constants reused by every evaluation, where Kubernetes builds them afresh each
        # time, so writing through them would leak from one evaluation into the next.
        self.shared = shared

    def unscaled(self) -> int:
        if self.scale >= 9:
            return self.nanos * 10 ** (self.scale - 9)
        return self.nanos // 10 ** (9 - self.scale)


class Quantity:
    """An exact Kubernetes quantity. Immutable for Python callers, hashable, totally ordered."""

    __slots__ = ("_d", "_n", "_s", "_scale", "format")

    _n: int  # value in nanos (int64 form)
    _scale: int  # Go int64Amount scale: value = int64 * 10**scale (int64 form)
    _d: _Dec | None  # set for the inf.Dec form
    _s: str | None  # cached serialization (the original text when Kubernetes keeps it)
    format: str

    def __init__(self) -> None:
        raise TypeError("use Quantity.parse() or Quantity.from_int()")

    # --- construction -------------------------------------------------------------------

    @classmethod
    def from_int(cls, value: int, fmt: str = DECIMAL_SI) -> Quantity:
        """Like Go's ``NewQuantity(value, format)`` (value must fit an int64)."""
        if not _in_int64(value):
            raise ValueError(f"quantity value {value} does not fit in an int64")
        return _int_form(value, 0, fmt)

    @classmethod
    def from_milli(cls, value: int, fmt: str = DECIMAL_SI) -> Quantity:
        """Like Go's ``NewMilliQuantity(value, format)``."""
        if not _in_int64(value):
            raise ValueError(f"quantity value {value} does not fit in an int64")
        return _int_form(value, -3, fmt)

    @classmethod
    def parse(cls, text: str) -> Quantity:
        """Parse like Go's ``resource.ParseQuantity``; raises QuantityParseError."""
        cached = _PARSE_CACHE.get(text)
        if cached is None:
            cached = _parse(text)
            if len(_PARSE_CACHE) < _PARSE_CACHE_LIMIT:
                _PARSE_CACHE[text] = cached
        if cached._d is not None:
            # The decimal form is mutable through CEL arithmetic: never hand out a shared one.
            return _dec_form(cached._d.nanos, cached._d.scale, cached.format)
        return cached

    # --- value access -------------------------------------------------------------------

    @property
    def nanos(self) -> int:
        """The exact value in units of 10^-9."""
        d = self._d
        return self._n if d is None else d.nanos

    def sign(self) -> int:
        n = self.nanos
        return (n > 0) - (n < 0)

    def is_zero(self) -> bool:
        return self.nanos == 0

    def is_integer(self) -> bool:
        """True when Go's ``AsInt64`` succeeds (int64 form only, as Kubernetes)."""
        return self.as_int64() is not None

    def as_int64(self) -> int | None:
        """Go's ``AsInt64``: only the int64 form with a non-negative scale converts."""
        if self._d is not None:
            return None
        if self._scale < 0:
            return None
        value = self._n // 10 ** (self._scale + 9)
        return _positive_scale_int64(value, self._scale)

    def as_approximate_float(self) -> float:
        """Go's ``AsApproximateFloat64`` (same rounding steps, so the same double)."""
        d = self._d
        if d is None:
            base = _int_to_float(self._n // 10 ** (self._scale + 9))
            exponent = self._scale
        else:
            base = _int_to_float(d.unscaled())
            exponent = -d.scale
        if exponent == 0:
            return base
        return base * _go_pow10(exponent)

    def value(self) -> int:
        """Go's ``Value()``: the value rounded up to an integer (may wrap like Go)."""
        return self.scaled_value(0)

    def milli_value(self) -> int:
        """Go's ``MilliValue()``: ceil(value * 1000)."""
        return self.scaled_value(-3)

    def scaled_value(self, scale: int) -> int:
        """Go's ``ScaledValue(scale)``: ceil(value / 10**scale), with Go's rounding quirks."""
        d = self._d
        if d is None:
            value = self._n // 10 ** (self._scale + 9)
            if self._scale < scale:
                return _round_away(value, scale - self._scale)
            result = _positive_scale_int64(value, self._scale - scale)
            return 0 if result is None else result
        unscaled = d.unscaled()
        dif = d.scale + scale  # inf scale of the target is -scale
        if dif == 0:
            return _wrap_int64(unscaled)
        if dif < 0:
            return _wrap_int64(_wrap_int64(unscaled) * int(_go_pow10(-dif)))
        if unscaled < _INT64_MAX and dif < 19:
            u = _wrap_int64(unscaled)
            divisor = 10**dif
            quotient = abs(u) // divisor * (1 if u >= 0 else -1)  # Go truncates
            return quotient + 1 if u - quotient * divisor != 0 else quotient
        quotient, remainder = divmod(unscaled, 10**dif)
        return _wrap_int64(quotient) + 1 if remainder else _wrap_int64(quotient)

    # --- arithmetic ---------------------------------------------------------------------

    def add(self, other: Quantity) -> Quantity:
        """The sum, with Go's format and representation rules (a zero takes y's format)."""
        return _sum(self, other, negate=False, alias=False)

    def sub(self, other: Quantity) -> Quantity:
        return _sum(self, other, negate=True, alias=False)

    def neg(self) -> Quantity:
        d = self._d
        if d is None:
            return _int_form(-(self._n // 10 ** (self._scale + 9)), self._scale, self.format)
        return _dec_form(-d.nanos, d.scale, self.format)

    def unshared(self) -> Quantity:
        """This value with a decimal that CEL arithmetic will not write through (for values a
        program creates itself, such as ``quantity("1.5Gi")``)."""
        d = self._d
        if d is None:
            return self
        return _new(0, 0, _Dec(d.nanos, d.scale, shared=False), self._s, self.format)

    def cel_add(self, other: Quantity) -> Quantity:
        """CEL ``add``: like :meth:`add`, but writes through a shared decimal as Kubernetes does."""
        return _sum(self, other, negate=False, alias=True)

    def cel_sub(self, other: Quantity) -> Quantity:
        return _sum(self, other, negate=True, alias=True)

    def cmp(self, other: Quantity) -> int:
        # Inlined ``nanos``: this is the selector hot path (compareTo, isLessThan...).
        d = self._d
        a = self._n if d is None else d.nanos
        d = other._d
        b = other._n if d is None else d.nanos
        return (a > b) - (a < b)

    # --- Python protocol ----------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.nanos == other.nanos

    def __hash__(self) -> int:
        return hash(self.nanos)

    def __lt__(self, other: Quantity) -> bool:
        d = self._d
        e = other._d
        return (self._n if d is None else d.nanos) < (other._n if e is None else e.nanos)

    def __le__(self, other: Quantity) -> bool:
        return not other < self

    def __gt__(self, other: Quantity) -> bool:
        return other < self

    def __ge__(self, other: Quantity) -> bool:
        return not self < other

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Quantity is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Quantity is immutable")

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r})"

    def __str__(self) -> str:
        s = self._s
        if s is None:
            s = _canonical(self.nanos, self.format)
            if self._d is None:  # the decimal form may still change under CEL aliasing
                _set(self, "_s", s)
        return s

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Quantity.parse, (str(self),))


# Quantity.__setattr__ refuses writes, so construction and CEL aliasing go through object.
_set = object.__setattr__


def _new(n: int, scale: int, d: _Dec | None, s: str | None, fmt: str) -> Quantity:
    q = object.__new__(Quantity)
    _set(q, "_n", n)
    _set(q, "_scale", scale)
    _set(q, "_d", d)
    _set(q, "_s", s)
    _set(q, "format", fmt)
    return q


def _int_form(value: int, scale: int, fmt: str, text: str | None = None) -> Quantity:
    return _new(_pow10_nanos(value, scale), scale, None, text, fmt)


def _dec_form(nanos: int, scale: int, fmt: str) -> Quantity:
    return _new(0, 0, _Dec(nanos, scale), None, fmt)


def _round_away(value: int, digits: int) -> int:
    """Go's negativeScaleInt64: divide by 10**digits, rounding away from zero."""
    divisor = 10**digits
    quotient, remainder = divmod(abs(value), divisor)
    if remainder:
        quotient += 1
    return quotient if value >= 0 else -quotient


def _sum(q: Quantity, y: Quantity, *, negate: bool, alias: bool) -> Quantity:
    """Go's ``Quantity.Add``/``Sub`` on a copy of q."""
    fmt = y.format if q.nanos == 0 else q.format
    qd, yd = q._d, y._d
    if qd is None and yd is None:
        a_val = q._n // 10 ** (q._scale + 9)
        b_val = y._n // 10 ** (y._scale + 9)
        if negate:
            b_val = _wrap_int64(-b_val)  # Go negates in int64 arithmetic
        result = _int64_add_amounts(a_val, q._scale, b_val, y._scale)
        if result is not None:
            return _int_form(result[0], result[1], fmt)
        a_scale = -q._scale
    else:
        a_scale = qd.scale if qd is not None else -q._scale
    b_scale = yd.scale if yd is not None else -y._scale
    nanos = q.nanos - y.nanos if negate else q.nanos + y.nanos
    scale = max(a_scale, b_scale)
    if alias and qd is not None and qd.shared:
        qd.nanos = nanos
        qd.scale = scale
        return _new(0, 0, qd, None, fmt)
    return _new(0, 0, _Dec(nanos, scale, shared=not alias), None, fmt)


def _int64_add_amounts(a: int, a_scale: int, b: int, b_scale: int) -> tuple[int, int] | None:
    """Go's int64Amount.Add: (value, scale) of the sum, or None when it leaves int64."""
    if b == 0:
        return a, a_scale
    if a == 0:
        return b, b_scale
    if a_scale == b_scale:
        total = a + b
        return (total, a_scale) if _in_int64(total) else None
    if a_scale > b_scale:
        scaled = _positive_scale_int64(a, a_scale - b_scale)
        if scaled is None:
            return None
        total = scaled + b
        return (total, b_scale) if _in_int64(total) else None
    scaled = _positive_scale_int64(b, b_scale - a_scale)
    if scaled is None:
        return None
    total = a + scaled
    return (total, a_scale) if _in_int64(total) else None


# --- parsing ------------------------------------------------------------------------------

_PARSE_CACHE: dict[str, Quantity] = {}
_PARSE_CACHE_LIMIT: Final = 65536


def _split(text: str) -> tuple[bool, str, str, str, str]:
    """Go's parseQuantityString: (positive, value, num, denom, suffix)."""
    positive = True
    pos = 0
    end = len(text)
    if pos < end and text[0] in "+-":
        positive = text[0] == "+"
        pos += 1
    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""
    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    num = text[start:pos] or "0"
    if pos >= end:
        return positive, text, num, "", ""
    denom = ""
    if text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        denom = text[start:pos]
        if pos >= end:
            return positive, text, num, denom, ""
    value = text[:pos]
    suffix_start = pos
    while pos < end and text[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise QuantityParseError(ERR_FORMAT_WRONG)
    return positive, value, num, denom, text[suffix_start:]


def _interpret(suffix: str) -> tuple[int, int, str]:
    known = _SUFFIXES.get(suffix)
    if known is not None:
        return known
    if len(suffix) > 1 and suffix[0] in "eE":
        digits = suffix[1:]
        body = digits[1:] if digits[0] in "+-" else digits
        if not body or not body.isdigit() or not body.isascii():
            raise QuantityParseError(ERR_SUFFIX)
        exponent = int(digits)
        if not _in_int64(exponent):
            raise QuantityParseError(ERR_SUFFIX)
        # Go narrows the exponent to an int32.
        exponent &= 0xFFFFFFFF
        if exponent >= 1 << 31:
            exponent -= 1 << 32
        return 10, exponent, DECIMAL_EXPONENT
    raise QuantityParseError(ERR_SUFFIX)


def _parse(text: str) -> Quantity:
    if not text:
        raise QuantityParseError(ERR_FORMAT_WRONG)
    if text == "0":
        return _int_form(0, 0, DECIMAL_SI, "0")
    positive, value, num, denom, suffix = _split(text)
    base, exponent, fmt = _interpret(suffix)

    # The int64 fast path, taken exactly when Kubernetes takes it.
    precision = -1
    scale = 0
    mantissa = 1
    if fmt == BINARY_SI:
        if exponent >= 0 and not denom:
            mantissa = 1 << exponent
            precision = 15 - len(num) - (exponent * 3 // 10) - 1
    else:
        scale = exponent
        precision = 18 - (len(num) + len(denom))
    if precision >= 0:
        scale -= len(denom)
        if scale >= -9:
            shifted = num + denom
            digits = int(shifted)
            result = _int64_multiply(digits, mantissa)
            if result is not None:
                if not positive:
                    result = -result
                keep = False
                if fmt == BINARY_SI:
                    keep = exponent % 10 == 0 and digits & 0x07 != 0
                else:
                    keep = scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
                return _int_form(result, scale, fmt, text if keep else None)

    # The inf.Dec path: exact, then rounded up to a whole nano and capped for BinarySI.
    if not any(c in _DIGITS for c in value):
        raise QuantityParseError(ERR_NUMERIC)
    digits = int(num + denom)
    if base == 10:
        nanos = _pow10_nanos(digits, exponent - len(denom))
        dec_scale = len(denom) - exponent
    else:
        numerator = digits << exponent
        divisor = 10 ** len(denom)
        nanos = -(-numerator * _NANO // divisor)
        dec_scale = len(denom)
    if digits != 0:
        dec_scale = 9
    if fmt == BINARY_SI and nanos > _INT64_MAX * _NANO:
        nanos = _INT64_MAX * _NANO
        dec_scale = 0
    if fmt == BINARY_SI and 0 < nanos < _NANO:
        fmt = DECIMAL_SI
    if not positive:
        nanos = -nanos
    return _dec_form(nanos, dec_scale, fmt)


# --- serialization ------------------------------------------------------------------------


def _canonical(nanos: int, fmt: str) -> str:
    """Go's ``Quantity.CanonicalizeBytes`` joined with its suffix."""
    if nanos == 0:
        return "0"
    if fmt == BINARY_SI:
        if -1024 * _NANO < nanos < 1024 * _NANO or nanos % _NANO:
            fmt = DECIMAL_SI
        else:
            amount = nanos // _NANO
            exponent = 0
            while abs(amount) >= 1024 and amount % 1024 == 0:
                amount //= 1024
                exponent += 10
            return f"{amount}{_BINARY_SUFFIX_FOR_EXPONENT.get(exponent, '')}"
    elif fmt != DECIMAL_SI:
        fmt = DECIMAL_EXPONENT
    mantissa = nanos
    exponent = -9
    while mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    rest = exponent % 3
    mantissa *= 10**rest
    exponent -= rest
    if fmt == DECIMAL_SI:
        return f"{mantissa}{_DECIMAL_SUFFIX_FOR_EXPONENT.get(exponent, '')}"
    return f"{mantissa}e{exponent}" if exponent else str(mantissa)
