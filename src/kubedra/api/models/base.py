"""The base model and the scalar wire types shared by every Kubernetes object.

The models describe the JSON wire format: camelCase aliases, strict types (Kubernetes decodes
JSON into Go structs, which refuse a string where an integer belongs), optional fields that
default to ``None`` so that a dump with ``exclude_none`` reproduces what Kubernetes omits, and
``extra="allow"`` so that unknown fields survive a round trip. The loader validates with
``extra="forbid"`` to report unknown fields the way ``kubectl --validate=strict`` does.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict
from pydantic.alias_generators import to_camel

from kubedra.api.models.quantities import canonical_quantity

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


class KubeModel(BaseModel):
    """Base of every wire model: camelCase on the wire, strict types, unknown fields kept."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        strict=True,
        serialize_by_alias=True,
    )

    def to_wire(self) -> dict[str, Any]:
        """The object as Kubernetes serializes it: camelCase, unset and null fields omitted."""
        return self.model_dump(by_alias=True, exclude_none=True, exclude_unset=True)


def _int64(value: Any) -> Any:
    """Accept integral floats (YAML ``2.0`` reaches Go's decoder as ``2``) and check the range."""
    if isinstance(value, float) and not isinstance(value, bool) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        if not INT64_MIN <= value <= INT64_MAX:
            raise ValueError(f"integer {value} does not fit in 64 bits")
        return value
    return value  # let the strict int check produce the type error


def _int32(value: Any) -> Any:
    value = _int64(value)
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**31) <= value < 2**31:
        raise ValueError(f"integer {value} does not fit in 32 bits")
    return value


def _quantity(value: Any) -> Any:
    """Quantities arrive as strings or JSON numbers; both decode, the result is canonical text."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return value  # the strict str check reports the wrong type
    return canonical_quantity(value)


_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


def _time(value: Any) -> Any:
    """metav1.Time: an RFC 3339 timestamp string, as Go's time.Time decoder requires."""
    if isinstance(value, datetime):
        text = value.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    if isinstance(value, str) and not _RFC3339.match(value):
        raise ValueError(f"{value!r} is not an RFC 3339 timestamp")
    return value


Int64 = Annotated[int, BeforeValidator(_int64)]
"""A Go ``int64``: JSON integers only (integral floats accepted, as from YAML)."""

Int32 = Annotated[int, BeforeValidator(_int32)]
"""A Go ``int32``."""

QuantityStr = Annotated[str, BeforeValidator(_quantity)]
"""A ``resource.Quantity``, kept in its canonical string form."""

Time = Annotated[str, BeforeValidator(_time)]
"""A ``metav1.Time``, kept as the RFC 3339 string."""

RawJSON = Any
"""A ``runtime.RawExtension``: any JSON value, passed through untouched."""


class KubeObject(KubeModel):
    """A top-level object: ``apiVersion`` and ``kind`` are always written, first."""

    api_version: str
    kind: str

    def to_wire(self) -> dict[str, Any]:
        return {"apiVersion": self.api_version, "kind": self.kind} | super().to_wire()
