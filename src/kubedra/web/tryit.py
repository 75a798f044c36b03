"""The page's editor: check manifests with kubedra's validation, preview a CEL selector.

Nothing here touches the cluster; creating the checked objects is the app's job (through
the served cluster, so they are scheduled like any other write).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kubedra.api.defaults import apply_defaults
from kubedra.api.io import load_text
from kubedra.api.validation import validate_object
from kubedra.cel import compile_selector
from kubedra.cel.errors import CelCompileError, CelError
from kubedra.cluster.kinds import kind_info
from kubedra.cluster.store import Store
from kubedra.web.view import cel_device, device_key

MAX_OBJECTS = 20
"""Objects one editor submission may hold."""
_POSITION = re.compile(r"<input>:(\d+):(\d+):")


@dataclass
class Checked:
    """The objects of an editor text and the problems found in them."""

    objects: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)


def _label(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    return f"{obj.get('kind')}/{meta.get('name') or meta.get('generateName') or ''}"


def check_manifests(text: str, namespace: str) -> Checked:
    """Parse, default and validate every object; errors carry object, field path, message."""
    result = Checked()
    loaded = load_text(text, "editor", namespace=namespace)
    for error in loaded.errors:
        result.errors.append({"object": None, "field": None, "message": str(error)})
    for unmodeled in loaded.unmodeled:  # a Secret or a Deployment: nothing the page can add
        label = _label(unmodeled.content)
        message = f"unsupported kind {unmodeled.kind} ({unmodeled.api_version})"
        result.errors.append({"object": label, "field": "kind", "message": message})
    objects = loaded.objects
    if not objects and not result.errors:
        result.errors.append({"object": None, "field": None, "message": "no objects given"})
    if len(objects) > MAX_OBJECTS:
        result.errors.append(
            {"object": None, "field": None, "message": f"at most {MAX_OBJECTS} objects at once"}
        )
        return result
    for loaded_obj in objects:
        obj = dict(loaded_obj.wire)
        label = _label(obj)
        info = kind_info(str(obj.get("kind")))
        if info is None:
            result.errors.append(
                {"object": label, "field": "kind", "message": f"unsupported kind {obj.get('kind')}"}
            )
            continue
        meta = dict(obj.get("metadata") or {})
        if info.namespaced:
            meta.setdefault("namespace", namespace)
        obj["metadata"] = meta
        for problem in validate_object(apply_defaults(obj)):
            result.errors.append(
                {"object": label, "field": problem.field, "message": problem.body()}
            )
        result.objects.append(obj)
    return result


def preview_selector(store: Store, expression: str) -> dict[str, Any]:
    """The devices a selector matches now, or its compile error with line and column."""
    try:
        compiled = compile_selector(expression)
    except CelCompileError as error:
        text = str(error)
        match = _POSITION.search(text)
        return {
            "ok": False,
            "error": text,
            "line": int(match.group(1)) if match else None,
            "column": int(match.group(2)) if match else None,
            "matches": [],
            "errors": {},
        }
    matches: list[str] = []
    errors: dict[str, str] = {}
    for slc in store.list("ResourceSlice"):
        spec = slc.get("spec") or {}
        driver = str(spec.get("driver") or "")
        pool = str((spec.get("pool") or {}).get("name") or "")
        for dev in spec.get("devices") or []:
            key = device_key(driver, pool, str(dev.get("name") or ""))
            try:
                if compiled.matches(cel_device(dev, driver)):
                    matches.append(key)
            except CelError as error:
                errors[key] = str(error)
    return {
        "ok": True,
        "error": None,
        "line": None,
        "column": None,
        "matches": matches,
        "errors": errors,
    }
