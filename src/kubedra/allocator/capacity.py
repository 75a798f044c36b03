"""Consumable capacity: how much of a shareable device one request takes.

A request's capacity (or, when it asks for none, the policy default or the whole capacity) is
rounded up to the device's request policy; a value the policy does not allow makes the device
unusable for that request.

A ``validRange`` with a step is evaluated in whole units (Go's ``Quantity.Value()``, which
rounds up) unless DRAFractionalCapacityRange is on (beta in 1.37, off by default) and min,
max and step are all exact in milli-units with a step of at least ``1m``: then the
arithmetic runs in milli-units, so that ``step: 100m`` works (upstream's ``useMilli`` in
``structured/internal/*/consumable_capacity.go``).
"""

from __future__ import annotations

from collections.abc import Mapping

from kubedra.allocator.inventory import CapacityInfo, DeviceInfo
from kubedra.allocator.quantities import Number, exact, from_number
from kubedra.api.quantity import Quantity

# Per device capacity: (name, consumed amount, consumed quantity as it is reported).
Consumption = tuple[tuple[str, Number, Quantity], ...]


def _go_mod(a: int, b: int) -> int:
    """Go's ``%``: the remainder takes the sign of the dividend."""
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def _go_quotient(a: int, b: int) -> int:
    """Go's integer ``/``: truncates toward zero."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _exact_milli(q: Quantity) -> int | None:
    """The value in milli-units when that is exact (upstream's ``safeMilliValue``)."""
    milli = q.milli_value()
    return milli if milli * 1_000_000 == q.nanos else None


def use_milli(cap: CapacityInfo, fractional: bool) -> bool:
    """Whether the range of ``cap`` is evaluated in milli-units."""
    if not fractional:
        return False
    for q in (cap.range_min, cap.range_max, cap.range_step):
        if q is not None and _exact_milli(q) is None:
            return False
    step = cap.range_step
    return step is None or step.milli_value() >= 1


def consumed_by(
    requested: Quantity | None, cap: CapacityInfo, fractional: bool = False
) -> Quantity:
    """What a request consumes of one capacity, after the request policy's rounding."""
    if requested is None:
        return cap.default if cap.default is not None else cap.value
    if not cap.policy:
        return requested
    if cap.has_range and cap.range_min is not None:
        minimum = cap.range_min
        if exact(requested) < exact(minimum):
            return minimum
        if cap.range_step is None:
            return requested
        if use_milli(cap, fractional):
            return _round_up_milli(requested, minimum, cap.range_step)
        low = minimum.value()
        step = cap.range_step.value()
        added = requested.value() - low
        # Integer arithmetic as in Go: a float quotient loses precision on large values.
        n = _go_quotient(added, step) if step else 0
        if step and _go_mod(added, step) != 0:
            n += 1
        return from_number(low + step * n)
    if cap.valid_values is not None:
        wanted = exact(requested)
        for value in cap.valid_values:
            if wanted <= exact(value):
                return value
        return requested
    return requested


def _round_up_milli(requested: Quantity, minimum: Quantity, step: Quantity) -> Quantity:
    """The milli-unit rounding; the result takes the step's format, a whole number as such."""
    low = minimum.milli_value()
    size = step.milli_value()
    added = requested.milli_value() - low
    n = _go_quotient(added, size)
    if _go_mod(added, size) != 0:
        n += 1
    value = low + size * n
    if value % 1000 == 0:
        return Quantity.from_int(value // 1000, step.format)
    return Quantity.from_milli(value, step.format)


def violates_policy(consumed: Quantity, cap: CapacityInfo, fractional: bool = False) -> bool:
    if not cap.policy:
        return False
    amount = exact(consumed)
    if cap.default is not None and amount == exact(cap.default):
        return False
    if cap.has_range:
        if cap.range_max is not None and amount > exact(cap.range_max):
            return True
        if cap.range_step is not None:
            if use_milli(cap, fractional):
                step = cap.range_step.milli_value()
                low = cap.range_min.milli_value() if cap.range_min is not None else 0
                value = _exact_milli(consumed)
                if value is None:
                    return True
            else:
                step = cap.range_step.value()
                low = cap.range_min.value() if cap.range_min is not None else 0
                value = consumed.value()
            if step and _go_mod(value - low, step) != 0:
                return True
        return False
    if cap.valid_values:
        return not any(amount == exact(v) for v in cap.valid_values)
    return False


def static_consumption(
    device: DeviceInfo, requests: Mapping[str, Quantity] | None, fractional: bool = False
) -> Consumption | None:
    """Per-capacity consumption of ``requests`` on ``device``; None when the device cannot serve it.

    Unknown capacity names in the request and policy violations both rule the device out.
    """
    if requests:
        for name in requests:
            if name not in device.capacity:
                return None
    out: list[tuple[str, Number, Quantity]] = []
    for name, cap in device.capacity.items():
        consumed = consumed_by(requests.get(name) if requests else None, cap, fractional)
        if violates_policy(consumed, cap, fractional):
            return None
        out.append((name, exact(consumed), consumed))
    return tuple(out)
