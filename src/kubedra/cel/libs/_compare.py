"""CEL ordering and arithmetic on runtime values, as cel-go's Comparer and Adder traits."""

from __future__ import annotations

import math
from typing import Any

from kubedra.cel.errors import CelEvaluationError
from kubedra.cel.values import Duration, Timestamp, UInt, check_int, check_uint

_NUMBERS = (int, UInt, float)
_DURATION_MAX = (1 << 63) - 1
_DURATION_MIN = -(1 << 63)


def comparable(value: Any) -> bool:
    return isinstance(value, (int, float, str, bytes, Duration, Timestamp))


def compare(a: Any, b: Any) -> int:
    """-1, 0 or 1; numbers compare across int, uint and double as cel-go does."""
    ta, tb = type(a), type(b)
    if ta is bool or tb is bool:
        if ta is not tb:
            raise CelEvaluationError("no such overload")
        return (a > b) - (a < b)
    if ta in _NUMBERS and tb in _NUMBERS:
        if (ta is float and math.isnan(a)) or (tb is float and math.isnan(b)):
            raise CelEvaluationError("NaN values cannot be ordered")
        return (a > b) - (a < b)
    if ta is tb and ta in (str, bytes):
        return (a > b) - (a < b)
    if ta is tb and ta in (Duration, Timestamp):
        return (a.ns > b.ns) - (a.ns < b.ns)
    raise CelEvaluationError("no such overload")


def add(a: Any, b: Any) -> Any:
    """``a + b`` for the summable types (int, uint, double, duration) with overflow errors."""
    ta, tb = type(a), type(b)
    if ta is not tb:
        raise CelEvaluationError("no such overload")
    if ta is int:
        return check_int(a + b)
    if ta is UInt:
        return check_uint(int(a) + int(b))
    if ta is float:
        return a + b
    if ta is Duration:
        total = a.ns + b.ns
        if not _DURATION_MIN <= total <= _DURATION_MAX:
            raise CelEvaluationError("integer overflow")
        return Duration(total)
    raise CelEvaluationError("no such overload")
