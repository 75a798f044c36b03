"""Turning raw documents into checked ``v1`` wire dicts, as the apiserver's decoder does.

A document must be a mapping with string ``apiVersion`` and ``kind`` naming a supported kind.
``List`` and ``*List`` documents are unpacked into their items. Older ``resource.k8s.io``
versions are converted to ``v1``. The typed models then check every field's type (strings,
integers, booleans, quantities, timestamps) and, for the fully modeled ``resource.k8s.io``
kinds, that no field is unknown. The result is the model's own serialization: nulls dropped,
quantities canonical, unknown fields of partially modeled kinds (Pod, Node, ...) kept.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from kubedra.api.conversion import CONVERTIBLE_VERSIONS, to_v1
from kubedra.api.io.reading import LoadError, RawDocument
from kubedra.api.models import FULLY_MODELED_GROUPS, KINDS, KubeObject

MAX_REPORTED_PROBLEMS = 10

SUPPORTED_KINDS: frozenset[tuple[str, str]] = frozenset(KINDS) | frozenset(
    (version, kind)
    for version in CONVERTIBLE_VERSIONS
    for (v1_version, kind) in KINDS
    if v1_version == "resource.k8s.io/v1"
    and not (kind == "DeviceTaintRule" and version.endswith("v1beta1"))
)
"""Every (apiVersion, kind) accepted: the v1 kinds and their v1beta1/v1beta2 versions."""


@dataclass(frozen=True)
class LoadedObject:
    """One object read from a manifest, as a checked v1 wire dict."""

    source: str
    document: int
    item: int | None
    api_version: str
    """The apiVersion written in the file (``wire`` is always the v1 form)."""
    kind: str
    wire: dict[str, Any]

    def location(self) -> str:
        where = f"{self.source}: document {self.document}"
        return where if self.item is None else f"{where}, items[{self.item}]"


@dataclass(frozen=True)
class UnmodeledObject:
    """An object of a kind kubedra has no model for (a Deployment, a Service, ...), kept as read.

    Workloads among them are checked through their pod templates (:mod:`kubedra.api.workloads`);
    the others are reported as skipped. Unknown versions of ``resource.k8s.io`` kinds are
    errors instead, since they are most likely typos in a DRA manifest.
    """

    source: str
    document: int
    item: int | None
    api_version: str
    kind: str
    content: dict[str, Any]

    def location(self) -> str:
        where = f"{self.source}: document {self.document}"
        return where if self.item is None else f"{where}, items[{self.item}]"


STRICT_GROUPS = frozenset({"resource.k8s.io"})
"""Groups whose unknown kinds and versions are errors rather than skipped objects."""


def decode_document(raw: RawDocument) -> Iterator[LoadedObject | UnmodeledObject | LoadError]:
    """The objects of one document (several for a list), or the errors that stop them."""
    content = raw.content
    if not isinstance(content, dict):
        yield LoadError(
            raw.source, raw.document, f"document is {_json_type(content)}, not an object"
        )
        return
    api_version, kind = content.get("apiVersion"), content.get("kind")
    if (
        isinstance(api_version, str)
        and isinstance(kind, str)
        and _is_list_kind(api_version, kind, content)
    ):
        yield from _decode_list(raw, api_version, kind)
        return
    yield _decode_object(raw.source, raw.document, None, content)


def _is_list_kind(api_version: str, kind: str, content: dict[Any, Any]) -> bool:
    """``v1 List``, ``<Kind>List`` of a supported kind, or of any other kind with ``items``."""
    if kind == "List":
        return True
    if not kind.endswith("List"):
        return False
    if (api_version, kind.removesuffix("List")) in SUPPORTED_KINDS:
        return True
    return _group(api_version) not in STRICT_GROUPS and isinstance(content.get("items"), list)


def _group(api_version: str) -> str:
    return api_version.rpartition("/")[0]


def _decode_list(
    raw: RawDocument, api_version: str, kind: str
) -> Iterator[LoadedObject | UnmodeledObject | LoadError]:
    items = raw.content.get("items")
    if items is None:
        return
    if not isinstance(items, list):
        yield LoadError(
            raw.source, raw.document, f"{kind}: items is {_json_type(items)}, not an array"
        )
        return
    item_kind = None if kind == "List" else kind[: -len("List")]
    for position, item in enumerate(items):
        if not isinstance(item, dict):
            message = f"{kind} item is {_json_type(item)}, not an object"
            yield LoadError(raw.source, raw.document, message, position)
            continue
        if item_kind is not None:
            item = {"apiVersion": api_version, "kind": item_kind} | item
        yield _decode_object(raw.source, raw.document, position, item)


def _decode_object(
    source: str, document: int, item: int | None, content: dict[Any, Any]
) -> LoadedObject | UnmodeledObject | LoadError:
    api_version, kind = content.get("apiVersion"), content.get("kind")
    problem = _type_meta_problem(api_version, kind)
    if problem is not None:
        return LoadError(source, document, problem, item)
    assert isinstance(api_version, str) and isinstance(kind, str)
    if (api_version, kind) not in SUPPORTED_KINDS:
        return UnmodeledObject(source, document, item, api_version, kind, content)
    try:
        wire = decode(content)
    except DecodeError as error:
        return LoadError(source, document, str(error), item)
    return LoadedObject(source, document, item, api_version, kind, wire)


def _type_meta_problem(api_version: Any, kind: Any) -> str | None:
    missing = [name for name, value in (("apiVersion", api_version), ("kind", kind)) if not value]
    if missing:
        return " and ".join(missing) + " not set"
    for name, value in (("apiVersion", api_version), ("kind", kind)):
        if not isinstance(value, str):
            return f"{name} must be a string, not {_json_type(value)}"
    group = _group(api_version)
    if (api_version, kind) not in SUPPORTED_KINDS and group in STRICT_GROUPS:
        return f'no matches for kind "{kind}" in version "{api_version}"'
    return None


class DecodeError(ValueError):
    """The object does not decode: wrong field types or unknown fields."""


def decode(content: dict[str, Any]) -> dict[str, Any]:
    """Convert to v1 and check field types; return the v1 wire dict or raise DecodeError.

    ``content`` must have a supported apiVersion and kind.
    """
    original_kind = content["kind"]
    wire = to_v1(content)
    api_version: str = wire["apiVersion"]
    model = KINDS[(api_version, original_kind)]
    group = api_version.rpartition("/")[0]
    extra: Literal["forbid"] | None = "forbid" if group in FULLY_MODELED_GROUPS else None
    try:
        parsed: KubeObject = model.model_validate(wire, extra=extra)
    except ValidationError as error:
        raise DecodeError(_describe_validation_error(content, model, error)) from None
    except RecursionError:
        raise DecodeError(f"{object_name(content)}: object nested too deeply") from None
    return parsed.to_wire()


def object_name(content: dict[str, Any]) -> str:
    """``Kind.group "namespace/name"``, as the apiserver names an object in its messages."""
    kind, api_version = content.get("kind"), content.get("apiVersion")
    group = api_version.rpartition("/")[0] if isinstance(api_version, str) else ""
    qualified = f"{kind}.{group}" if group else str(kind)
    metadata = content.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    name = metadata.get("name") or metadata.get("generateName") or ""
    namespace = metadata.get("namespace")
    if isinstance(name, str) and isinstance(namespace, str) and namespace and name:
        name = f"{namespace}/{name}"
    return f"{qualified} {json.dumps(name, ensure_ascii=False)}"


def _describe_validation_error(
    content: dict[str, Any], model: type[BaseModel], error: ValidationError
) -> str:
    problems = [_describe_problem(model, detail) for detail in error.errors(include_url=False)]
    shown = problems[:MAX_REPORTED_PROBLEMS]
    if len(problems) > len(shown):
        shown.append(f"and {len(problems) - len(shown)} more")
    return f"{object_name(content)} cannot be decoded: " + "; ".join(shown)


def field_path(model: type[BaseModel], location: tuple[int | str, ...]) -> str:
    """Render a pydantic error location like ``field.Path`` does: ``spec.devices[0].name``,
    map keys in brackets (``capacity[memory]``). The model tells maps from objects."""
    path = ""
    annotation: Any = model
    for part in location:
        if part == "[key]":
            return path + " (map key)"
        annotation = _unwrap(annotation)
        origin = get_origin(annotation)
        if isinstance(part, int):
            path += f"[{part}]"
            annotation = get_args(annotation)[0] if origin is list else Any
        elif origin is dict:
            path += f"[{_printable(part)}]"
            annotation = get_args(annotation)[1]
        else:
            path += f".{_printable(part)}" if path else _printable(part)
            annotation = _field_annotation(annotation, part)
    return path


def _printable(name: str) -> str:
    """Names with control characters or spaces are shown quoted and escaped."""
    return name if name.isprintable() and " " not in name and name else json.dumps(name)


def _unwrap(annotation: Any) -> Any:
    """Strip ``X | None`` and ``Annotated[X, ...]`` down to ``X``."""
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
        elif origin in (Union, UnionType):
            members = [arg for arg in get_args(annotation) if arg is not type(None)]
            if len(members) != 1:
                return Any
            annotation = members[0]
        else:
            return annotation


def _field_annotation(annotation: Any, alias: str) -> Any:
    if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
        return Any
    for name, info in annotation.model_fields.items():
        if alias in (info.alias, name):
            return info.annotation
    return Any


def _describe_problem(model: type[BaseModel], detail: Any) -> str:
    path = field_path(model, tuple(detail["loc"]))
    kind = detail["type"]
    value = detail.get("input")
    if kind == "extra_forbidden":
        return f'unknown field "{path}"'
    expected = _EXPECTED.get(kind)
    if expected is not None:
        return f"{path}: expected {expected}, got {_json_type(value)} {_short(value)}".rstrip()
    message = str(detail.get("msg", "invalid value")).removeprefix("Value error, ")
    return f"{path}: {message}"


_EXPECTED = {
    "string_type": "string",
    "int_type": "integer",
    "int_from_float": "integer",
    "bool_type": "boolean",
    "list_type": "array",
    "dict_type": "object",
    "model_type": "object",
    "model_attributes_type": "object",
}


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def _short(value: Any) -> str:
    if isinstance(value, dict | list):
        return ""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
