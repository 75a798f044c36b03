"""What the apiserver would say about a ResourceSlice, asked before the publisher writes it.

A driver's pools are turned into the slices the publisher would create and each is decoded
(unknown fields and wrong types, as strict decoding reports them), defaulted and validated with
kubedra's copy of the apiserver's rules, so that a misspelt field or an invalid attribute is
refused when the driver publishes, with the apiserver's message, instead of failing in the
background later.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kubedra.api.defaults import apply_defaults
from kubedra.api.io import DecodeError, decode
from kubedra.api.models.base import KubeModel
from kubedra.api.validation import format_invalid, validate_object


def as_wire(value: Any, what: str) -> dict[str, Any]:
    """A wire dict from a dict or a typed model of :mod:`kubedra.api.models`."""
    if isinstance(value, KubeModel):
        return value.to_wire()
    if isinstance(value, dict):
        return value
    raise TypeError(
        f"{what}: expected a dict or a kubedra.api.models object, got {type(value).__name__}"
    )


def as_wire_list(values: Sequence[Any], what: str) -> list[dict[str, Any]]:
    """:func:`as_wire` for each item (the common all-dicts case costs one check per item)."""
    wire: list[dict[str, Any]] = []
    for index, value in enumerate(values):
        wire.append(value if type(value) is dict else as_wire(value, f"{what}[{index}]"))
    return wire


def slice_problem(obj: dict[str, Any]) -> str | None:
    """The apiserver's message refusing ``obj``, or None when it would be accepted."""
    try:
        wire = decode(obj)
    except DecodeError as error:
        return str(error)
    errors = validate_object(apply_defaults(wire))
    return format_invalid(wire, errors) if errors else None
