"""Writing objects as Kubernetes writes them: camelCase, no nulls, no empty optional fields."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from kubedra.api.io import yaml_emit
from kubedra.api.models import KubeModel

OPAQUE_FIELDS = frozenset({"parameters", "data", "fieldsV1"})
"""Fields holding arbitrary JSON (``runtime.RawExtension``): written exactly as given."""

KEPT_WHEN_EMPTY = frozenset({"spec"})
"""Top-level fields Kubernetes writes even when empty (they are not ``omitempty``)."""


def to_clean_wire(obj: KubeModel | dict[str, Any]) -> dict[str, Any]:
    """The object's wire dict without nulls and without empty lists and maps."""
    wire = obj.to_wire() if isinstance(obj, KubeModel) else obj
    cleaned = {}
    for key, value in wire.items():
        value = _clean(key, value)
        if value is not None or key in KEPT_WHEN_EMPTY:
            cleaned[key] = {} if value is None else value
    return cleaned


def _clean(key: str, value: Any) -> Any:
    """The cleaned value, or None when Kubernetes would omit it."""
    if key in OPAQUE_FIELDS:
        return value
    if isinstance(value, dict):
        cleaned = {}
        for child_key, child in value.items():
            child = _clean(str(child_key), child)
            if child is not None:
                cleaned[child_key] = child
        return cleaned or None
    if isinstance(value, list):
        items = [_clean("", item) for item in value]
        kept = [item if item is not None else {} for item in items]
        return kept or None
    return value


def dump_yaml(objs: Iterable[KubeModel | dict[str, Any]]) -> str:
    """A multi-document YAML stream, one document per object."""
    return "---\n".join(yaml_emit.dump(to_clean_wire(obj)) for obj in objs)


def dump_json(objs: Iterable[KubeModel | dict[str, Any]]) -> str:
    """One JSON object, or a ``v1`` ``List`` of them when there are several (as ``kubectl``)."""
    documents = [to_clean_wire(obj) for obj in objs]
    if len(documents) == 1:
        return json.dumps(documents[0], indent=2) + "\n"
    listing = {"apiVersion": "v1", "kind": "List", "items": documents, "metadata": {}}
    return json.dumps(listing, indent=2) + "\n"
