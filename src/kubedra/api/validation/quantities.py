"""Quantity parsing for validation, on top of the shared ``Quantity`` type."""

from __future__ import annotations

from functools import lru_cache

from kubedra.api.quantity import ERR_FORMAT_WRONG, Quantity


def _wire_text(value: object) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return str(value)
    return value if isinstance(value, str) else None


def quantity_error(value: object) -> str | None:
    """Why Kubernetes would not decode this wire value as a quantity, or None if it would."""
    text = _wire_text(value)
    if text is None:
        return ERR_FORMAT_WRONG
    return _parse(text)[1]


def parse_quantity(value: object) -> Quantity | None:
    """The quantity a wire value denotes, or None when it is absent or does not parse."""
    text = _wire_text(value)
    if text is None:
        return None
    return _parse(text)[0]


@lru_cache(maxsize=16384)
def _parse(text: str) -> tuple[Quantity | None, str | None]:
    """Quantities repeat across devices ("80Gi" on every GPU), so parses are cached."""
    try:
        return Quantity.parse(text), None
    except ValueError as exc:
        return None, str(exc)
