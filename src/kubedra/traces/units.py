"""The units of ``trace generate``'s flags: durations (``90s``, ``5m``, ``2h``, ``1d`` or plain
seconds, as in traces) and Kubernetes quantities for cpu and memory."""

from __future__ import annotations

import math
import re

from kubedra.api.quantity import Quantity, QuantityParseError
from kubedra.traces.errors import TraceInputError

_DURATION = re.compile(r"([0-9]+(?:\.[0-9]+)?)(s|m|h|d)?")
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, None: 1}


def seconds(text: str, flag: str) -> float:
    """A positive duration in seconds."""
    match = _DURATION.fullmatch(text.strip())
    if match is None:
        raise TraceInputError(f"{flag}: not a duration (like 45, 90s, 5m, 2h, 1d): {text!r}")
    value = float(match.group(1)) * _SECONDS[match.group(2)]
    if not 0 < value < math.inf:
        raise TraceInputError(f"{flag}: must be more than zero: {text!r}")
    return value


def _quantity(text: str, flag: str) -> Quantity:
    try:
        quantity = Quantity.parse(text.strip())
    except QuantityParseError:
        raise TraceInputError(f"{flag}: not a quantity (like 8, 500m, 64Gi): {text!r}") from None
    if quantity.sign() <= 0:
        raise TraceInputError(f"{flag}: must be more than zero: {text!r}")
    return quantity


_INT64_MAX = 2**63 - 1


def _at_most(quantity: Quantity, limit: Quantity, text: str, flag: str) -> Quantity:
    """Go's Value() and MilliValue() wrap beyond int64 (``1e30`` reads as 0 bytes): the
    amounts written must stay within it."""
    if quantity.cmp(limit) > 0:
        raise TraceInputError(f"{flag}: more than {limit} (int64): {text!r}")
    return quantity


def millicores(text: str, flag: str) -> int:
    """A cpu quantity in millicores (``8`` is 8000, ``500m`` is 500)."""
    limit = Quantity.from_milli(_INT64_MAX)
    return _at_most(_quantity(text, flag), limit, text, flag).milli_value()


def mebibytes(text: str, flag: str) -> int:
    """A memory quantity in whole MiB, rounded down (``64Gi`` is 65536)."""
    limit = Quantity.from_int(_INT64_MAX)
    mib = _at_most(_quantity(text, flag), limit, text, flag).value() // 2**20
    if mib < 1:
        raise TraceInputError(f"{flag}: less than 1Mi: {text!r}")
    return mib


def memory(text: str, flag: str) -> str:
    """A memory quantity as given, checked (``80Gi``)."""
    _quantity(text, flag)
    return text.strip()
