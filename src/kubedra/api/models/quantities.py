"""Quantity decoding for the wire models.

Kubernetes decodes a ``resource.Quantity`` from a JSON string or number and serializes it back
in canonical form; the models do the same so that every consumer sees canonical strings.
"""

from __future__ import annotations

from functools import lru_cache

from kubedra.api.quantity import Quantity


@lru_cache(maxsize=8192, typed=True)
def canonical_quantity(value: str | int | float) -> str:
    """Parse a quantity as Kubernetes does and return its canonical serialization.

    Cached: a cluster repeats the same few capacity values thousands of times."""
    text = value if isinstance(value, str) else repr(value)
    return str(Quantity.parse(text))
