"""A node template (one Node and its ResourceSlices) turned into new nodes of a cluster.

Planning (``kubedra plan nodes``) and the ``add-nodes`` step of timelines and traces add
nodes this way: the template's Node is renamed, its slices follow it (their names, node
names and per-node pool names), everything else is kept.
"""

from __future__ import annotations

import copy
from typing import Any


class TemplateError(ValueError):
    """The objects are not one Node and its ResourceSlices."""


def split_template(objects: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The template's Node and its ResourceSlices; raises TemplateError for anything else."""
    nodes = [o for o in objects if o.get("kind") == "Node"]
    others = [o for o in objects if o.get("kind") != "Node"]
    if len(nodes) != 1:
        raise TemplateError(f"the template must hold exactly one Node, found {len(nodes)}")
    wrong = [str(o.get("kind")) for o in others if o.get("kind") != "ResourceSlice"]
    if wrong:
        raise TemplateError(f"the template may hold only a Node and ResourceSlices, not {wrong[0]}")
    return nodes[0], others


def instantiate(
    node: dict[str, Any], slices: list[dict[str, Any]], name: str
) -> list[dict[str, Any]]:
    """The template's node and slices for a new node ``name``."""
    old = str((node.get("metadata") or {}).get("name") or "")
    new_node = copy.deepcopy(node)
    meta = new_node.setdefault("metadata", {})
    meta["name"] = name
    labels = meta.get("labels")
    if isinstance(labels, dict) and "kubernetes.io/hostname" in labels:
        labels["kubernetes.io/hostname"] = name
    out = [new_node]
    for s in slices:
        new = copy.deepcopy(s)
        smeta = new.setdefault("metadata", {})
        smeta["name"] = f"{name}-{smeta.get('name') or 'slice'}"
        spec = new.setdefault("spec", {})
        if spec.get("nodeName") == old:
            spec["nodeName"] = name
        pool = spec.get("pool") or {}
        pool_name = str(pool.get("name") or "")
        pool["name"] = name if pool_name == old else f"{name}-{pool_name}"
        out.append(new)
    return out
