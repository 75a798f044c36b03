"""Writing objects as Kubernetes writes them: camelCase, no nulls, no empty optional fields."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from kubedra.api.io import yaml_emit
from kubedra.api.models import KubeModel

OPAQUE_FIELDS = frozenset({"parameters", "data", "fieldsV1"})
"""Fields holding arbitrary JSON (``runtime.RawExtension``): written exactly as given."""

KEPT_WHEN_EMPTY = frozenset({"spec"})
"""Top-level fields Kubernetes writes even when empty (they are not ``omitempty``)."""


EXTRA_DEPTH = 5000
"""Frames added while writing: loading accepts objects as deep as the parsers allow (about a
thousand levels), and writing one recurses a few frames per level."""


@contextmanager
def _room_for_depth() -> Iterator[None]:
    """Whatever loaded can be written: raise the recursion limit for the writer's recursion."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(old + EXTRA_DEPTH)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def to_clean_wire(obj: KubeModel | dict[str, Any]) -> dict[str, Any]:
    """The object's wire dict without nulls and without empty lists and maps."""
    with _room_for_depth():
        return _clean_top(obj)


def _clean_top(obj: KubeModel | dict[str, Any]) -> dict[str, Any]:
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
    with _room_for_depth():
        return "---\n".join(yaml_emit.dump(_clean_top(obj)) for obj in objs)


def dump_json(objs: Iterable[KubeModel | dict[str, Any]]) -> str:
    """One JSON object, or a ``v1`` ``List`` of them when there are several (as ``kubectl``)."""
    with _room_for_depth():
        documents = [_clean_top(obj) for obj in objs]
        if len(documents) == 1:
            return json.dumps(documents[0], indent=2) + "\n"
        listing = {"apiVersion": "v1", "kind": "List", "items": documents, "metadata": {}}
        return json.dumps(listing, indent=2) + "\n"
