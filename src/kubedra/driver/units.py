"""Whole-byte quantities as the example driver and NVML discovery publish them."""

from __future__ import annotations

import re

_QUANTITY = re.compile(r"^([0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$")
_FACTORS = {
    None: 1,
    "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
    "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
}  # fmt: skip


def parse_bytes(quantity: str) -> int:
    """Integer bytes of a simple quantity like ``80Gi``; ValueError for other forms."""
    match = _QUANTITY.match(quantity)
    if not match:
        raise ValueError(f"quantity {quantity!r}: expected an integer with an optional suffix")
    return int(match.group(1)) * _FACTORS[match.group(2)]


def binary_quantity(value: int) -> str:
    """Canonical BinarySI text of a whole number of bytes (``85899345920`` -> ``80Gi``), the
    form Kubernetes serializes ``resource.NewQuantity(n, BinarySI)`` in."""
    for suffix in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"):
        factor = _FACTORS[suffix]
        if value and value % factor == 0:
            return f"{value // factor}{suffix}"
    return str(value)
