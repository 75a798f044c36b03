"""Field errors rendered exactly like apimachinery's ``field.Error``.

The rendering rules matter because users compare our messages with what the apiserver prints:
strings are quoted like Go's ``%q``, simple scalars are printed bare, composite values as compact
JSON, and Required/Forbidden/TooLong/Internal errors never show the value.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum

from kubedra.gofmt import quote as go_quote


class ErrorType(StrEnum):
    """apimachinery ``field.ErrorType``, valued by its display text ("Invalid value"...).

    Being a string, it compares equal to the text the apiserver prints; ``reason`` gives the
    machine-readable cause type. Decoding (type) errors are plain ``INVALID`` errors.
    """

    NOT_FOUND = "Not found"
    REQUIRED = "Required value"
    DUPLICATE = "Duplicate value"
    INVALID = "Invalid value"
    NOT_SUPPORTED = "Unsupported value"
    FORBIDDEN = "Forbidden"
    TOO_LONG = "Too long"
    TOO_MANY = "Too many"
    INTERNAL = "Internal error"

    @property
    def text(self) -> str:
        return self.value

    @property
    def reason(self) -> str:
        return _REASONS[self]


_REASONS = {
    ErrorType.NOT_FOUND: "FieldValueNotFound",
    ErrorType.REQUIRED: "FieldValueRequired",
    ErrorType.DUPLICATE: "FieldValueDuplicate",
    ErrorType.INVALID: "FieldValueInvalid",
    ErrorType.NOT_SUPPORTED: "FieldValueNotSupported",
    ErrorType.FORBIDDEN: "FieldValueForbidden",
    ErrorType.TOO_LONG: "FieldValueTooLong",
    ErrorType.TOO_MANY: "FieldValueTooMany",
    ErrorType.INTERNAL: "InternalError",
}


class _Omitted:
    """Marker for a bad value that is not shown (like Go's ``omitValue``)."""

    def __repr__(self) -> str:
        return "<omitted>"


OMITTED = _Omitted()


@dataclass(frozen=True)
class GoLiteral:
    """A bad value already rendered the way Go renders it (e.g. an internal struct as JSON)."""

    text: str

    def __str__(self) -> str:
        return self.text


_VALUE_HIDDEN = {ErrorType.REQUIRED, ErrorType.FORBIDDEN, ErrorType.TOO_LONG, ErrorType.INTERNAL}


@dataclass(frozen=True)
class FieldError:
    """One validation error: type, field path, offending value and detail."""

    type: ErrorType
    field: str
    bad_value: object
    detail: str

    @property
    def value(self) -> object:
        """The offending value as plain JSON data, for machine-readable output."""
        if isinstance(self.bad_value, GoLiteral):
            return json.loads(self.bad_value.text)
        if self.bad_value is OMITTED:
            return None
        return self.bad_value

    def body(self) -> str:
        """The message without the field path, like ``field.Error.ErrorBody()``."""
        if self.type in _VALUE_HIDDEN or self.bad_value is OMITTED:
            text = self.type.text
        else:
            text = f"{self.type.text}: {render_value(self.bad_value)}"
        if self.detail:
            text += f": {self.detail}"
        return text

    def __str__(self) -> str:
        return f"{self.field}: {self.body()}"


def render_value(value: object) -> str:
    """Render a bad value the way ``ErrorBody`` does for the corresponding Go value."""
    if isinstance(value, GoLiteral):
        return value.text
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return go_quote(value)
    if value is None:
        return "null"
    return go_json(value)


def go_json(value: object, *, sort_keys: bool = True, indent: int | None = None) -> str:
    """Compact JSON as Go's ``json.Marshal`` writes it (sorted map keys, HTML-safe escapes);
    with ``indent``, as ``json.MarshalIndent(value, "", " " * indent)``.

    Struct values keep their field order, so callers pass ``sort_keys=False`` for those.
    """
    text = json.dumps(
        value,
        ensure_ascii=False,
        separators=(",", ": ") if indent is not None else (",", ":"),
        indent=indent,
        sort_keys=sort_keys,
        default=str,
    )
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def go_struct(*fields: tuple[str, object]) -> GoLiteral:
    """An internal Go struct without JSON tags, as ``json.Marshal`` prints it: every field by
    its Go name, in declaration order, unset pointers as null."""
    return GoLiteral(go_json(dict(fields), sort_keys=False))


def required(path: str, detail: str = "") -> FieldError:
    return FieldError(ErrorType.REQUIRED, path, "", detail)


def invalid(path: str, value: object, detail: str) -> FieldError:
    return FieldError(ErrorType.INVALID, path, value, detail)


def type_invalid(path: str, value: object, detail: str) -> FieldError:
    """A value of the wrong JSON type (the apiserver could not even decode the object)."""
    return FieldError(ErrorType.INVALID, path, value, detail)


def duplicate(path: str, value: object) -> FieldError:
    return FieldError(ErrorType.DUPLICATE, path, value, "")


def not_found(path: str, value: object, detail: str = "") -> FieldError:
    return FieldError(ErrorType.NOT_FOUND, path, value, detail)


def forbidden(path: str, detail: str) -> FieldError:
    return FieldError(ErrorType.FORBIDDEN, path, "", detail)


def not_supported(path: str, value: object, supported: list[str]) -> FieldError:
    detail = ""
    if supported:
        detail = "supported values: " + ", ".join(go_quote(v) for v in supported)
    return FieldError(ErrorType.NOT_SUPPORTED, path, value, detail)


def too_long(path: str, max_length: int) -> FieldError:
    unit = "byte" if max_length == 1 else "bytes"
    return FieldError(
        ErrorType.TOO_LONG, path, "<value omitted>", f"may not be more than {max_length} {unit}"
    )


def too_many(path: str, actual: int, maximum: int) -> FieldError:
    unit = "item" if maximum == 1 else "items"
    return FieldError(
        ErrorType.TOO_MANY,
        path,
        actual if actual >= 0 else OMITTED,
        f"must have at most {maximum} {unit}",
    )


def internal(path: str, detail: str) -> FieldError:
    return FieldError(ErrorType.INTERNAL, path, None, detail)


def child(path: str, *names: str) -> str:
    """``field.Path.Child``: dotted names."""
    for name in names:
        path = f"{path}.{name}" if path else name
    return path


def index(path: str, i: int) -> str:
    """``field.Path.Index``: ``[i]``."""
    return f"{path}[{i}]"


def key(path: str, k: str) -> str:
    """``field.Path.Key``: ``[key]`` without quotes, as Go prints it."""
    return f"{path}[{k}]"
