"""A fresh, unbound copy of a pod: what a controller creates again for a pod that went."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

SERVER_FIELDS = ("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields")
"""Metadata the apiserver sets on create; a copy starts without it."""


def copy_of(pod: Mapping[str, Any], name: str) -> dict[str, Any]:
    """A fresh, unbound copy of ``pod`` named ``name`` (no status, no ``spec.nodeName``)."""
    out = copy.deepcopy(dict(pod))
    meta = {k: v for k, v in (out.get("metadata") or {}).items() if k not in SERVER_FIELDS}
    meta.pop("generateName", None)
    meta["name"] = name
    out["metadata"] = meta
    out.pop("status", None)
    spec = dict(out.get("spec") or {})
    spec.pop("nodeName", None)
    out["spec"] = spec
    return out
