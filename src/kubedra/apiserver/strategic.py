"""Strategic merge patches (``application/strategic-merge-patch+json``), as kubectl computes
them for ``kubectl apply``, ``kubectl diff``, ``kubectl label`` and ``kubectl edit``.

A strategic merge patch is a JSON merge patch in which some lists are merged element by
element, matched on a merge key, instead of being replaced: a patch that changes one
container's image names only that container (``containers: [{name: main, image: new}]``).
Which lists merge, and on which key, is upstream's (the ``patchStrategy:"merge"`` and
``patchMergeKey`` tags of k8s.io/api core/v1 and metav1); every other list is replaced whole,
as it is for the ``resource.k8s.io`` and ``scheduling.k8s.io`` kinds, whose types declare none.

Directives: ``$patch: replace`` (a map or list replaced whole), ``$patch: delete`` (a map, or
a list element by its key, removed), ``$setElementOrder/FIELD`` (the order of a merged list),
``$deleteFromPrimitiveList/FIELD`` (values removed from a merged list of scalars),
``$retainKeys`` (the keys of a map to keep, for union fields). ``null`` deletes a key.
"""

from __future__ import annotations

from typing import Any

from kubedra.apiserver.status import bad_request

POD_MERGE_KEYS = {
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "ports": "containerPort",
    "env": "name",
    "volumeMounts": "mountPath",
    "volumeDevices": "devicePath",
    "volumes": "name",
    "imagePullSecrets": "name",
    "hostAliases": "ip",
    "resourceClaims": "name",
    "schedulingGates": "name",
    "topologySpreadConstraints": "topologyKey",
    "conditions": "type",
    "podIPs": "ip",
    "hostIPs": "ip",
    "resourceClaimStatuses": "name",
}
"""core/v1 Pod: lists merged by key (field name -> merge key)."""

NODE_MERGE_KEYS = {"conditions": "type", "addresses": "type"}
NAMESPACE_MERGE_KEYS = {"conditions": "type"}

OBJECT_META_MERGE_KEYS = {"ownerReferences": "uid"}
MERGED_SCALAR_LISTS = frozenset({"finalizers"})
"""metav1.ObjectMeta: owner references merge by uid, finalizers as a set of strings."""

MERGE_KEYS: dict[str, dict[str, str]] = {
    "Pod": POD_MERGE_KEYS,
    "Node": NODE_MERGE_KEYS,
    "Namespace": NAMESPACE_MERGE_KEYS,
}

ORDER = "$setElementOrder/"
DELETE_FROM = "$deleteFromPrimitiveList/"


def strategic_merge_patch(target: dict[str, Any], patch: dict[str, Any], kind: str) -> Any:
    """``target`` (left unchanged) with ``patch`` applied as the apiserver applies a
    strategic merge patch to an object of ``kind``."""
    keys = {**MERGE_KEYS.get(kind, {}), **OBJECT_META_MERGE_KEYS}
    merged = _merge_map(target, patch, keys, "")
    return merged if merged is not None else {}


def _merge_map(
    target: Any, patch: dict[str, Any], keys: dict[str, str], field: str
) -> dict[str, Any] | None:
    """``patch`` applied to the map ``target``, the value of ``field`` (None: delete it)."""
    directive = patch.get("$patch")
    if directive == "replace":
        return {k: v for k, v in patch.items() if k != "$patch"}
    if directive == "delete":
        return None
    if directive is not None:
        raise bad_request(f"Unknown patch type: {directive}")
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if key.startswith("$"):
            continue
        if value is None:
            result.pop(key, None)
            continue
        current = result.get(key)
        if isinstance(value, list) and key in keys:
            result[key] = _merge_list(current, value, keys[key], keys)
        elif isinstance(value, list) and field == "metadata" and key in MERGED_SCALAR_LISTS:
            existing = current if isinstance(current, list) else []
            result[key] = existing + [v for v in value if v not in existing]
        elif isinstance(value, dict):
            merged = _merge_map(current, value, keys, key)
            if merged is None:
                result.pop(key, None)
            else:
                result[key] = merged
        else:
            result[key] = value
    for name, values in _directives(patch, DELETE_FROM).items():
        if isinstance(result.get(name), list) and isinstance(values, list):
            result[name] = [v for v in result[name] if v not in values]
    for name, order in _directives(patch, ORDER).items():
        if isinstance(result.get(name), list) and isinstance(order, list):
            result[name] = _ordered(result[name], order, keys.get(name))
    retain = patch.get("$retainKeys")
    if isinstance(retain, list):
        result = {k: v for k, v in result.items() if k in retain}
    return result


def _merge_list(current: Any, items: list[Any], merge_key: str, keys: dict[str, str]) -> list[Any]:
    if any(isinstance(item, dict) and item.get("$patch") == "replace" for item in items):
        return [item for item in items if not (isinstance(item, dict) and "$patch" in item)]
    result = list(current) if isinstance(current, list) else []
    for item in items:
        if not isinstance(item, dict) or merge_key not in item:
            result.append(item)
            continue
        at = next(
            (
                i
                for i, old in enumerate(result)
                if isinstance(old, dict) and old.get(merge_key) == item[merge_key]
            ),
            None,
        )
        if item.get("$patch") == "delete":
            if at is not None:
                del result[at]
            continue
        merged = _merge_map(result[at] if at is not None else {}, item, keys, "")
        if merged is None:
            continue
        if at is None:
            result.append(merged)
        else:
            result[at] = merged
    return result


def _ordered(items: list[Any], order: list[Any], merge_key: str | None) -> list[Any]:
    """The elements named in ``order`` in that order, then the others as they were."""

    def key(item: Any) -> Any:
        if merge_key is not None and isinstance(item, dict):
            return item.get(merge_key)
        return item

    wanted = [key(o) for o in order]
    placed = sorted(
        (item for item in items if key(item) in wanted), key=lambda i: wanted.index(key(i))
    )
    return placed + [item for item in items if key(item) not in wanted]


def _directives(patch: dict[str, Any], prefix: str) -> dict[str, Any]:
    return {k[len(prefix) :]: v for k, v in patch.items() if k.startswith(prefix)}
