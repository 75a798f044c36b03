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
from kubedra.api.validation import ErrorType, validate_object
from kubedra.api.validation.cel_checks import validate_selector_expression
from kubedra.cel import compile_selector
from kubedra.cel.errors import CelError
from kubedra.cel.selector import RUNTIME_COST_LIMIT
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


@dataclass(frozen=True)
class DeviceRef:
    """One device of a ResourceSlice, as the preview sees it."""

    key: str
    driver: str
    device: dict[str, Any]


def slice_devices(store: Store) -> list[DeviceRef]:
    """Every device of every ResourceSlice: taken under the cluster lock, evaluated after
    (the store hands out objects it never changes in place)."""
    devices: list[DeviceRef] = []
    for slc in store.list("ResourceSlice"):
        spec = slc.get("spec") or {}
        driver = str(spec.get("driver") or "")
        pool = str((spec.get("pool") or {}).get("name") or "")
        for dev in spec.get("devices") or []:
            devices.append(
                DeviceRef(device_key(driver, pool, str(dev.get("name") or "")), driver, dev)
            )
    return devices


def preview_selector(devices: list[DeviceRef], expression: str) -> dict[str, Any]:
    """The devices a selector matches, or the error validation gives it (with line and
    column for a compile error).

    Checked as a claim's selector is validated (length, compilation, estimated cost) before
    any device is tried, and evaluated with one cost budget for the whole request: once
    the devices tried so far have spent the runtime limit, the rest are not tried."""
    problems = validate_selector_expression(expression, "expression")
    if problems:
        problem = problems[0]  # a compile error's text is its detail, as the page showed it
        text = problem.detail if problem.type is ErrorType.INVALID else problem.body()
        match = _POSITION.search(text)
        return {
            "ok": False,
            "error": text,
            "line": int(match.group(1)) if match else None,
            "column": int(match.group(2)) if match else None,
            "matches": [],
            "errors": {},
        }
    compiled = compile_selector(expression)
    matches: list[str] = []
    errors: dict[str, str] = {}
    spent = 0
    for index, ref in enumerate(devices):
        if spent > RUNTIME_COST_LIMIT:
            errors[ref.key] = (
                f"not tried: the devices before it spent this preview's cost budget "
                f"({RUNTIME_COST_LIMIT}); {len(devices) - index} device(s) left"
            )
            continue
        try:
            matched, cost = compiled.evaluate(cel_device(ref.device, ref.driver))
        except CelError as error:
            spent += getattr(error, "cost", None) or 0
            errors[ref.key] = str(error)
            continue
        spent += cost
        if matched:
            matches.append(ref.key)
    return {
        "ok": True,
        "error": None,
        "line": None,
        "column": None,
        "matches": matches,
        "errors": errors,
    }
