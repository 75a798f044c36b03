"""Exact numbers for the allocator's capacity and counter arithmetic.

Quantities are parsed and printed by :class:`kubedra.api.quantity.Quantity`; sums and
comparisons in the search run on plain ``int`` values in units of 10^-9 (exact for every
Kubernetes quantity the allocator meets) because they sit on the hot path.
"""

from __future__ import annotations

from typing import Any

from kubedra.api.quantity import Quantity

Number = int


class QuantityError(ValueError):
    """A quantity string in the input that Kubernetes would not accept."""


def parse(text: Any, where: str) -> Quantity:
    """Parse a quantity given as a JSON string (or number), naming ``where`` on failure."""
    try:
        return Quantity.parse(str(text))
    except ValueError as err:
        raise QuantityError(f"{where}: {err}") from None


def exact(q: Quantity) -> Number:
    """The exact value of ``q`` in units of 10^-9."""
    return q.nanos


def from_number(value: int) -> Quantity:
    """A BinarySI quantity for a whole number, as Go's ``resource.NewQuantity(v, BinarySI)``."""
    return Quantity.from_int(value, "BinarySI")
