"""Turning raw documents into checked ``v1`` wire dicts, as the apiserver's decoder does.

A document must be a mapping with string ``apiVersion`` and ``kind`` naming a supported kind.
``List`` and ``*List`` documents are unpacked into their items. The request namespace is
filled in (or a stray one cleared) as the apiserver does. Older ``resource.k8s.io`` versions are
converted to ``v1``; fields and kinds of a release other than the selected one are reported.
The typed models then check every field's type (strings,
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
from kubedra.api.io.reading import MAX_OBJECT_BYTES, LoadError, RawDocument
from kubedra.api.io.release_fields import kind_problem, strip_other_release_fields
from kubedra.api.models import FULLY_MODELED_GROUPS, KINDS, NAMESPACED_KINDS, KubeObject
from kubedra.api.releases import DEFAULT
from kubedra.api.scheduling_versions import CONVERTIBLE as SCHEDULING_CONVERTIBLE
from kubedra.api.scheduling_versions import to_storage

MAX_REPORTED_PROBLEMS = 10

SUPPORTED_KINDS: frozenset[tuple[str, str]] = (
    frozenset(KINDS)
    | frozenset(
        (version, kind)
        for version in CONVERTIBLE_VERSIONS
        for (v1_version, kind) in KINDS
        if v1_version == "resource.k8s.io/v1"
        and not (kind == "DeviceTaintRule" and version.endswith("v1beta1"))
    )
    | SCHEDULING_CONVERTIBLE
)
"""Every (apiVersion, kind) accepted: the stored kinds, the v1beta1/v1beta2 versions of the
resource.k8s.io/v1 kinds and the scheduling.k8s.io/v1alpha3 versions of v1beta1 kinds."""


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
    strict_errors: tuple[str, ...] = ()
    """Unknown fields (dropped from ``wire``), as strict decoding reports them: the object is
    still validated, so that these and its validation errors are reported together."""

    def location(self) -> str:
        where = f"{self.source}: document {self.document}"
        return where if self.item is None else f"{where}, items[{self.item}]"

    def strict_error(self) -> LoadError | None:
        """The strict decoding problems as one error line, or None when there are none."""
        if not self.strict_errors:
            return None
        message = f"{object_name(self.wire)}: strict decoding error: " + "; ".join(
            _capped(list(self.strict_errors))
        )
        return LoadError(self.source, self.document, message, self.item)


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

MODELED_KINDS = frozenset(kind for _version, kind in SUPPORTED_KINDS)
"""Kind names kubedra models: one of them in a version kubedra does not know (``v9`` Pod) is
an error, as ``kubectl create`` reports it, not an object to skip."""


NAMESPACED_WORKLOAD_KINDS = frozenset(
    {"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob"}
    | {"ReplicationController", "PodTemplate"}
)
"""Unmodelled kinds that are namespaced and carry pod templates: they get the request namespace
like the modelled kinds, so that the pods made from them land where kubectl would put them.
Other unmodelled kinds are left as read (kubedra does not know their scope)."""


def _is_strict(api_version: str, kind: str) -> bool:
    return _group(api_version) in STRICT_GROUPS or kind in MODELED_KINDS


@dataclass(frozen=True)
class DecodeOptions:
    """What the request would carry: the namespace and the apiserver's release."""

    namespace: str = "default"
    """The request namespace: given to namespaced objects that have none."""
    enforce_namespace: bool = False
    """Whether the namespace was chosen explicitly (``-n``), so that an object with another
    namespace is refused instead of keeping its own."""
    release: str = DEFAULT
    """The Kubernetes release whose fields and kinds decode."""


DEFAULT_OPTIONS = DecodeOptions()


def decode_document(
    raw: RawDocument, options: DecodeOptions = DEFAULT_OPTIONS
) -> Iterator[LoadedObject | UnmodeledObject | LoadError]:
    """The objects of one document (several for a list), or the errors that stop them."""
    content = raw.content
    if not isinstance(content, dict):
        yield LoadError(
            raw.source, raw.document, f"document is {json_type(content)}, not an object"
        )
        return
    api_version, kind = content.get("apiVersion"), content.get("kind")
    if (
        isinstance(api_version, str)
        and isinstance(kind, str)
        and _is_list_kind(api_version, kind, content)
    ):
        yield from _decode_list(raw, api_version, kind, options)
        return
    yield _decode_object(raw.source, raw.document, None, content, options, raw.measure)


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
    raw: RawDocument, api_version: str, kind: str, options: DecodeOptions
) -> Iterator[LoadedObject | UnmodeledObject | LoadError]:
    items = raw.content.get("items")
    if items is None:
        return
    if not isinstance(items, list):
        yield LoadError(
            raw.source, raw.document, f"{kind}: items is {json_type(items)}, not an array"
        )
        return
    item_kind = None if kind == "List" else kind[: -len("List")]
    for position, item in enumerate(items):
        if not isinstance(item, dict):
            message = f"{kind} item is {json_type(item)}, not an object"
            yield LoadError(raw.source, raw.document, message, position)
            continue
        if item_kind is not None:
            item = {"apiVersion": api_version, "kind": item_kind} | item
        yield _decode_object(raw.source, raw.document, position, item, options, raw.measure)


def _decode_object(
    source: str,
    document: int,
    item: int | None,
    content: dict[Any, Any],
    options: DecodeOptions,
    measure: bool = False,
) -> LoadedObject | UnmodeledObject | LoadError:
    api_version, kind = content.get("apiVersion"), content.get("kind")
    problem = _type_meta_problem(api_version, kind)
    if problem is None and measure:
        size = _json_size(content)
        if size > MAX_OBJECT_BYTES:
            problem = (
                f"{object_name(content)} is {size} bytes as JSON, more than the apiserver "
                f"accepts in one request ({MAX_OBJECT_BYTES} bytes, 3 MiB)"
            )
    if problem is None:
        assert isinstance(api_version, str) and isinstance(kind, str)
        problem = kind_problem(api_version, kind, options.release)
    if problem is not None:
        return LoadError(source, document, problem, item)
    assert isinstance(api_version, str) and isinstance(kind, str)
    modeled = (api_version, kind) in SUPPORTED_KINDS
    if modeled or kind in NAMESPACED_WORKLOAD_KINDS:
        content, problem = _with_request_namespace(content, kind, options)
        if problem is not None:
            return LoadError(source, document, problem, item)
    if not modeled:
        return UnmodeledObject(source, document, item, api_version, kind, content)
    try:
        wire, unknown = decode_lenient(content, options.release)
    except DecodeError as error:
        return LoadError(source, document, str(error), item)
    return LoadedObject(source, document, item, api_version, kind, wire, tuple(unknown))


def _json_size(content: Any) -> int:
    """The object's size as kubectl sends it (compact JSON, UTF-8)."""
    try:
        text = json.dumps(content, ensure_ascii=False, separators=(",", ":"), default=str)
    except (ValueError, TypeError, RecursionError):
        return 0  # not JSON data: decoding reports it
    return len(text.encode("utf-8", "surrogatepass"))


NAMESPACE_MISMATCH = (
    "the namespace of the provided object does not match the namespace sent on the request"
)
"""The apiserver's BadRequest (EnsureObjectNamespaceMatchesRequestNamespace)."""


def _with_request_namespace(
    content: dict[Any, Any], kind: str, options: DecodeOptions
) -> tuple[dict[Any, Any], str | None]:
    """Fill or clear ``metadata.namespace`` as the apiserver does for a create request.

    Namespaced kinds without a namespace get the request's; with ``enforce_namespace`` another
    namespace is refused. Cluster-scoped kinds have a stray namespace cleared (their request
    namespace is empty). Mistyped metadata is left for decoding to report.
    """
    metadata = content.get("metadata")
    if metadata is None:
        metadata = {}
    if not isinstance(metadata, dict):
        return content, None
    namespace = metadata.get("namespace")
    if namespace is not None and not isinstance(namespace, str):
        return content, None
    if kind not in NAMESPACED_KINDS and kind not in NAMESPACED_WORKLOAD_KINDS:
        if not namespace:
            return content, None
        cleared = {key: value for key, value in metadata.items() if key != "namespace"}
        return content | {"metadata": cleared}, None
    if not namespace:
        return content | {"metadata": metadata | {"namespace": options.namespace}}, None
    if options.enforce_namespace and namespace != options.namespace:
        return content, f"{object_name(content)}: {NAMESPACE_MISMATCH}"
    return content, None


def _type_meta_problem(api_version: Any, kind: Any) -> str | None:
    missing = [name for name, value in (("apiVersion", api_version), ("kind", kind)) if not value]
    if missing:
        return " and ".join(missing) + " not set"
    for name, value in (("apiVersion", api_version), ("kind", kind)):
        if not isinstance(value, str):
            return f"{name} must be a string, not {json_type(value)}"
    if (api_version, kind) not in SUPPORTED_KINDS and _is_strict(api_version, kind):
        return f'no matches for kind "{kind}" in version "{api_version}"'
    return None


class DecodeError(ValueError):
    """The object does not decode: wrong field types or unknown fields."""


def decode(content: dict[str, Any], release: str = DEFAULT) -> dict[str, Any]:
    """Convert to v1 and check field types; return the v1 wire dict or raise DecodeError.

    Strict: an unknown field (also one of another release) is an error. ``content`` must have
    a supported apiVersion and kind.
    """
    wire, unknown = decode_lenient(content, release)
    if unknown:
        message = f"{object_name(content)} cannot be decoded: " + "; ".join(_capped(unknown))
        raise DecodeError(message)
    return wire


def decode_lenient(
    content: dict[str, Any], release: str = DEFAULT
) -> tuple[dict[str, Any], list[str]]:
    """Like :func:`decode`, but unknown fields are dropped and returned as problems instead of
    stopping the object (wrong types still raise DecodeError)."""
    original_kind = content["kind"]
    wire = to_storage(to_v1(content))
    api_version: str = wire["apiVersion"]
    model = KINDS[(api_version, original_kind)]
    group = api_version.rpartition("/")[0]
    strict = group in FULLY_MODELED_GROUPS
    extra: Literal["forbid"] | None = "forbid" if strict else None
    unknown: list[str] = []
    try:
        try:
            parsed: KubeObject = model.model_validate(wire, extra=extra)
        except ValidationError as error:
            details = error.errors(include_url=False)
            if not all(detail["type"] == "extra_forbidden" for detail in details):
                raise
            unknown = [_describe_problem(model, detail) for detail in details]
            parsed = model.model_validate(wire, extra="ignore")
    except ValidationError as error:
        raise DecodeError(describe_validation_error(content, model, error)) from None
    except RecursionError:
        raise DecodeError(f"{object_name(content)}: object nested too deeply") from None
    decoded = parsed.to_wire()
    if strict:
        unknown.extend(strip_other_release_fields(decoded, release))
    return decoded, unknown


def _capped(problems: list[str]) -> list[str]:
    shown = problems[:MAX_REPORTED_PROBLEMS]
    if len(problems) > len(shown):
        shown.append(f"and {len(problems) - len(shown)} more")
    return shown


def object_name(content: dict[str, Any]) -> str:
    """``Kind.group "namespace/name"``, as the apiserver names an object in its messages."""
    kind, api_version = content.get("kind"), content.get("apiVersion")
    group = api_version.rpartition("/")[0] if isinstance(api_version, str) else ""
    qualified = f"{kind}.{group}" if group else str(kind)
    metadata = content.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    name = metadata.get("name") or metadata.get("generateName") or ""
    name = name if isinstance(name, str) else ""
    namespace = metadata.get("namespace")
    if isinstance(name, str) and isinstance(namespace, str) and namespace and name:
        name = f"{namespace}/{name}"
    return f"{qualified} {json.dumps(name, ensure_ascii=False)}"


def describe_validation_error(
    content: dict[str, Any], model: type[BaseModel], error: ValidationError
) -> str:
    """``<Kind "ns/name"> cannot be decoded: <path>: <problem>; ...`` for a model's errors."""
    problems = [_describe_problem(model, detail) for detail in error.errors(include_url=False)]
    return f"{object_name(content)} cannot be decoded: " + "; ".join(_capped(problems))


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
        return f"{path}: expected {expected}, got {json_type(value)} {_short(value)}".rstrip()
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


def json_type(value: Any) -> str:
    """``a string``, ``an object``, ... as messages name the JSON type of a value."""
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
    if isinstance(value, dict | list) or value is None:
        return ""  # "got null", not "got null null"
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
