"""OpenAPI schemas of the served kinds, generated from :mod:`kubedra.api.models`, per release.

Each kind's schema (and those it refers to) is named as upstream names it
(``io.k8s.api.resource.v1.ResourceClaim``, ``io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta``);
the kinds carry ``x-kubernetes-group-version-kind``, by which ``kubectl explain`` finds them.
A release's schemas leave out the fields that release does not have
(:mod:`kubedra.api.io.release_fields`). Pod, Node and PodDisruptionBudget are partly modelled:
their schemas have the fields kubedra reads, as their models do.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable
from typing import Any

from kubedra.api import models
from kubedra.api.io.release_fields import ITEMS, RELEASE_FIELDS, VALUES
from kubedra.api.models.base import Int32, Int64, KubeModel, KubeObject, QuantityStr, Time
from kubedra.api.releases import SUPPORTED
from kubedra.api.scheduling_versions import STORED_AS
from kubedra.cluster.kinds import KindInfo

Schema = dict[str, Any]

SERVED_ONLY: dict[tuple[str, str], type[KubeObject]] = {
    ("v1", "Event"): models.Event,
    ("coordination.k8s.io/v1", "Lease"): models.Lease,
}
"""Kinds the apiserver serves but nothing loads: their models are not in ``models.KINDS``."""

_PACKAGES = {
    "kubedra.api.models.meta": "io.k8s.apimachinery.pkg.apis.meta.v1",
    "kubedra.api.models.core": "io.k8s.api.core.v1",
    "kubedra.api.models.resource": "io.k8s.api.resource.v1",
    "kubedra.api.models.policy": "io.k8s.api.policy.v1",
    "kubedra.api.models.coordination": "io.k8s.api.coordination.v1",
}
"""Where each model module's types live upstream; the Workload API's modules are named after
the version served (one Python model serves ``v1beta1`` and ``v1alpha3``)."""

_VERSION_SUFFIXES = ("V1Alpha2",)
"""Suffixes that tell kubedra's per-version models apart (``WorkloadV1Alpha2``)."""

_SCALARS: list[tuple[Any, Schema]] = [
    (Int64, {"type": "integer", "format": "int64"}),
    (Int32, {"type": "integer", "format": "int32"}),
    (QuantityStr, {"type": "string", "format": "quantity"}),
    (Time, {"type": "string", "format": "date-time"}),
    (str, {"type": "string"}),
    (bool, {"type": "boolean"}),
    (int, {"type": "integer", "format": "int64"}),
    (float, {"type": "number", "format": "double"}),
]


def model_of(info: KindInfo) -> type[KubeObject] | None:
    """The model of a served kind in its served version (``v1alpha3`` Workload: ``v1beta1``'s)."""
    key = (info.api_version, info.kind)
    stored = STORED_AS.get(key)
    found = models.KINDS.get(key) or SERVED_ONLY.get(key)
    if found is None and stored is not None:
        found = models.KINDS.get((stored, info.kind))
    return found


def package_of(api_version: str) -> str:
    """``io.k8s.api.resource.v1`` for ``resource.k8s.io/v1``, ``io.k8s.api.core.v1`` for v1."""
    group, _, version = api_version.rpartition("/")
    return f"io.k8s.api.{group.split('.')[0] if group else 'core'}.{version}"


def gvk(info: KindInfo) -> dict[str, str]:
    return {"group": info.group, "kind": info.kind, "version": info.api_version.split("/")[-1]}


def _description(model: type[KubeModel]) -> str:
    """The model's docstring (not one it inherits) as plain text: paragraphs joined into
    lines (kubectl wraps them itself), reStructuredText's double backquotes made single."""
    doc = model.__dict__.get("__doc__")
    if not doc:
        return ""
    paragraphs = inspect.cleandoc(doc).split("\n\n")
    return "\n\n".join(" ".join(p.split()) for p in paragraphs).replace("``", "`")


class _Builder:
    """Schemas of one group/version's document, with their references resolved by name."""

    def __init__(self, api_version: str, ref: Callable[[str], str]) -> None:
        self.api_version = api_version
        self.ref = ref
        self.schemas: dict[str, Schema] = {}

    def name(self, model: type[KubeModel], info: KindInfo | None = None) -> str:
        base = model.__name__
        for suffix in _VERSION_SUFFIXES:
            base = base.removesuffix(suffix)
        if info is not None:
            return f"{package_of(info.api_version)}.{base}"
        package = _PACKAGES.get(model.__module__) or package_of(self.api_version)
        return f"{package}.{base}"

    def kind(self, info: KindInfo, model: type[KubeObject]) -> str:
        name = self.name(model, info)
        self.model(model, name)
        self.schemas[name]["x-kubernetes-group-version-kind"] = [gvk(info)]
        return name

    def model(self, model: type[KubeModel], name: str | None = None) -> Schema:
        name = name or self.name(model)
        if name not in self.schemas:
            schema: Schema = {"type": "object"}
            self.schemas[name] = schema  # before the fields: models may refer to themselves
            description = _description(model)
            if description:
                schema["description"] = description
            properties: dict[str, Schema] = {}
            for field_name, field in model.model_fields.items():
                properties[field.alias or field_name] = self.type(field.annotation)
            schema["properties"] = properties
        return {"$ref": self.ref(name)}

    def type(self, annotation: Any) -> Schema:
        for scalar, schema in _SCALARS:
            if annotation is scalar or annotation == scalar:
                return dict(schema)
        origin = typing.get_origin(annotation)
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if origin in (typing.Union, types.UnionType):
            if len(args) == 1:
                return self.type(args[0])
            # IntOrString (PodDisruptionBudget's minAvailable): upstream's own marker
            return {"x-kubernetes-int-or-string": True}
        if origin is typing.Literal:
            return {"type": "string"}
        if origin is list:
            return {"type": "array", "items": self.type(args[0])}
        if origin is dict:
            return {"type": "object", "additionalProperties": self.type(args[1])}
        if inspect.isclass(annotation) and issubclass(annotation, KubeModel):
            return self.model(annotation)
        # Any: RawExtension, opaque parameters, label selectors kubedra does not model
        return {"type": "object", "x-kubernetes-preserve-unknown-fields": True}


def schemas(
    api_version: str,
    kinds: list[KindInfo],
    release: str,
    ref: Callable[[str], str],
) -> dict[str, Schema]:
    """The schemas of ``kinds`` (all of ``api_version``) and of the types they use, as
    ``release`` has them; ``ref`` turns a schema name into a reference."""
    builder = _Builder(api_version, ref)
    for info in kinds:
        model = model_of(info)
        if model is None:
            continue
        name = builder.kind(info, model)
        _drop_other_release_fields(builder.schemas, name, info.kind, release, ref)
    return builder.schemas


def _drop_other_release_fields(
    schemas: dict[str, Schema],
    name: str,
    kind: str,
    release: str,
    ref: Callable[[str], str],
) -> None:
    names = {ref(n): n for n in schemas}
    for field in RELEASE_FIELDS:
        if field.kind != kind or release in field.releases or release not in SUPPORTED:
            continue
        schema: Schema | None = schemas[name]
        *steps, last = field.path
        for step in steps:
            schema = _resolve(schema, names, schemas)
            if schema is None:
                break
            if step == ITEMS:
                schema = schema.get("items")
            elif step == VALUES:
                schema = schema.get("additionalProperties")
            else:
                schema = (schema.get("properties") or {}).get(step)
        schema = _resolve(schema, names, schemas)
        if schema is not None:
            (schema.get("properties") or {}).pop(last, None)


def _resolve(
    schema: Schema | None, names: dict[str, str], schemas: dict[str, Schema]
) -> Schema | None:
    if schema is not None and "$ref" in schema:
        return schemas.get(names.get(schema["$ref"], ""))
    return schema
