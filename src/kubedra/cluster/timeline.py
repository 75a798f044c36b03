"""The ``--events`` timeline: later changes to a simulated cluster, applied in order.

A timeline file is YAML (or JSON): a list of steps, or a mapping with a ``steps`` list.
Each step is a mapping with one action and, optionally, ``after`` (seconds or a duration
such as ``90s``, ``5m``, ``1h`` to let pass before the step):

``create: OBJECT`` or ``create: [OBJECT, ...]``
    create objects of any supported kind (older resource.k8s.io versions are converted)
``delete: {kind: Pod, name: NAME, namespace: NS}``
    delete an object (namespace defaults to the simulation's)
``taint: {device: NAME, driver: D, pool: P, key: K, value: V, effect: NoExecute, name: N}``
    taint devices with a DeviceTaintRule (unset selector fields match every device;
    ``effect`` defaults to NoExecute, ``name`` to a generated one)
``untaint: NAME``
    delete that DeviceTaintRule
``cordon: NODE`` / ``uncordon: NODE``
    set or clear the node's ``spec.unschedulable``
``condition: {claim: NAME, namespace: NS, device: D, type: T, status: "True"}``
    what a driver reports: set a condition on an allocated device in the claim's
    ``status.devices`` (binding conditions; ``reason`` and ``message`` optional)
``wait: DURATION``
    only let time pass (evictions after tolerationSeconds, scheduler retries)
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kubedra.api.io import load_text
from kubedra.api.limits import MAX_DURATION_SECONDS, MAX_DURATION_TEXT
from kubedra.api.validation.resource_common import DEVICE_TAINT_EFFECTS
from kubedra.cluster.kinds import KINDS

Action = Callable[[Any], None]
"""Takes the Simulation (typed Any to keep this module free of the loop)."""

ACTIONS = ("create", "delete", "taint", "untaint", "cordon", "uncordon", "condition", "wait")
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$")
_UNIT = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, None: 1.0}
"""Go's ``time.Duration`` (int64 nanoseconds) ends at about 292 years; so do durations here,
which keeps every later clock computation finite."""


class TimelineError(ValueError):
    """A step that cannot be understood: which step, which field, why."""


@dataclass(frozen=True)
class Step:
    index: int
    description: str
    after: float
    action: Action


def parse_duration(value: Any, where: str) -> float:
    """Seconds, from a number of seconds or ``90s``/``5m``/``2h``/``1d``/``250ms``: finite,
    not negative, and at most what Go's time.Duration holds (int64 nanoseconds, 292 years), as
    every span of time Kubernetes keeps. Traces and step files all read durations here."""
    if isinstance(value, bool):
        raise TimelineError(f"{where}: not a duration: {value!r}")
    if isinstance(value, int):
        seconds = float(value) if abs(value) < 10**300 else float("inf")  # float() overflows
    elif isinstance(value, float):
        seconds = value
    else:
        match = _DURATION.match(str(value))
        if match is None:
            raise TimelineError(f"{where}: not a duration (like 30, 90s, 5m, 1h, 1d): {value!r}")
        seconds = float(match.group(1)) * _UNIT[match.group(2)]
    if math.isnan(seconds):
        raise TimelineError(f"{where}: not a duration: {value!r}")
    if seconds < 0:
        raise TimelineError(f"{where}: must not be negative")
    if seconds > MAX_DURATION_SECONDS:
        raise TimelineError(
            f"{where}: {value!r} is longer than a duration may be "
            f"(at most {MAX_DURATION_TEXT}, Go's time.Duration)"
        )
    return seconds


class ElapsedTime:
    """The time a file's steps let pass so far (``after`` and ``wait``), bounded as one
    duration: the simulated clock never runs past what a time.Duration holds."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def add(self, raw: dict[str, Any], where: str) -> None:
        """Count a step's ``after`` and ``wait`` (already checked one by one)."""
        for key in ("after", "wait"):
            if key in raw:
                self.seconds += parse_duration(raw[key], f"{where}.{key}")
        if self.seconds > MAX_DURATION_SECONDS:
            raise TimelineError(
                f"{where}: the steps up to here let more time pass than a duration holds "
                f"(at most {MAX_DURATION_TEXT}, Go's time.Duration)"
            )


def read_steps_file(path: str | Path) -> Any:
    """The one YAML (or JSON) document of a steps file, read as manifests are: a regular
    file of bounded size, aliases that do not expand past the text, no deep nesting."""
    from kubedra.api.io.reading import LoadError, read_documents

    documents = list(read_documents(Path(path)))
    problems = [d for d in documents if isinstance(d, LoadError)]
    if problems:
        raise TimelineError(str(problems[0]))
    if len(documents) > 1:
        raise TimelineError(f"{path}: one YAML document of steps, not {len(documents)}")
    return documents[0].content if documents else None  # type: ignore[union-attr]


def load_timeline(path: str | Path) -> list[Step]:
    """Read and check every step of a timeline file; raises TimelineError."""
    return parse_timeline(read_steps_file(path), str(path))


def parse_timeline(data: Any, source: str = "<events>") -> list[Step]:
    if isinstance(data, dict) and "steps" in data:
        data = data["steps"]
    if data is None:
        return []
    if not isinstance(data, list):
        raise TimelineError(f"{source}: a timeline is a list of steps (or a map with steps)")
    elapsed = ElapsedTime()
    steps = []
    for i, raw in enumerate(data):
        step = parse_step(i, raw, f"{source}: step {i + 1}")
        elapsed.add(raw, f"{source}: step {i + 1}")
        steps.append(step)
    return steps


def parse_step(index: int, raw: Any, where: str) -> Step:
    """One step (``where`` names it in errors, e.g. ``FILE: step 3``)."""
    if not isinstance(raw, dict):
        raise TimelineError(f"{where}: a step is a map with one of {', '.join(ACTIONS)}")
    actions = [key for key in raw if key in ACTIONS]
    unknown = [key for key in raw if key not in ACTIONS and key != "after"]
    if unknown:
        raise TimelineError(f"{where}: unknown field {unknown[0]!r}")
    if len(actions) != 1:
        raise TimelineError(f"{where}: needs exactly one of {', '.join(ACTIONS)}")
    after = parse_duration(raw.get("after", 0), f"{where}.after")
    name = actions[0]
    description, action = build_action(name, raw[name], f"{where}.{name}")
    return Step(index, description, after, action)


def build_action(name: str, value: Any, where: str) -> tuple[str, Action]:
    """The description and the action of one timeline action ``name`` (one of ACTIONS)."""
    return _BUILDERS[name](value, where)


def _create(value: Any, where: str) -> tuple[str, Action]:
    items = value if isinstance(value, list) else [value]
    objects: list[dict[str, Any]] = []
    for i, item in enumerate(items):
        at = f"{where}[{i}]" if isinstance(value, list) else where
        if not isinstance(item, dict):
            raise TimelineError(f"{at}: an object is a map")
        loaded = load_text(json.dumps(item), at, json_input=True)
        if loaded.errors:
            raise TimelineError(f"{at}: {loaded.errors[0].message}")
        for unmodeled in loaded.unmodeled:  # the simulated store cannot create these
            raise TimelineError(
                f'{at}: no matches for kind "{unmodeled.kind}" in version "{unmodeled.api_version}"'
            )
        objects.extend(o.wire for o in loaded.objects)
    names = ", ".join(f"{o.get('kind')} {(o.get('metadata') or {}).get('name')}" for o in objects)

    def run(sim: Any) -> None:
        for obj in objects:
            sim.store.create(sim.kubelet.register(obj))

    return f"create {names}", run


def _delete(value: Any, where: str) -> tuple[str, Action]:
    if not isinstance(value, dict) or not value.get("kind") or not value.get("name"):
        raise TimelineError(f"{where}: needs kind and name")
    kind, name, namespace = str(value["kind"]), str(value["name"]), value.get("namespace")
    if kind not in KINDS:
        raise TimelineError(f"{where}.kind: unsupported kind {kind!r}")

    def run(sim: Any) -> None:
        sim.store.delete(kind, name, namespace)

    return f"delete {kind} {name}", run


def _taint(value: Any, where: str) -> tuple[str, Action]:
    if not isinstance(value, dict):
        raise TimelineError(f"{where}: needs device/driver/pool and key")
    if not value.get("key"):
        raise TimelineError(f"{where}.key: required")
    selector = {k: str(value[k]) for k in ("driver", "pool", "device") if value.get(k)}
    taint = {"key": str(value["key"]), "effect": str(value.get("effect") or "NoExecute")}
    if taint["effect"] not in DEVICE_TAINT_EFFECTS:
        choices = ", ".join(f'"{e}"' for e in DEVICE_TAINT_EFFECTS)
        raise TimelineError(
            f'{where}.effect: Unsupported value: "{taint["effect"]}": supported values: {choices}'
        )
    if value.get("value") is not None:
        taint["value"] = str(value["value"])
    meta: dict[str, Any] = (
        {"name": str(value["name"])} if value.get("name") else {"generateName": "taint-"}
    )
    rule = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceTaintRule",
        "metadata": meta,
        "spec": {"deviceSelector": selector, "taint": taint},
    }
    target = "/".join(selector.get(k, "*") for k in ("driver", "pool", "device"))

    def run(sim: Any) -> None:
        sim.store.create(rule)

    return f"taint {target} {taint['key']}:{taint['effect']}", run


def _untaint(value: Any, where: str) -> tuple[str, Action]:
    if not isinstance(value, str) or not value:
        raise TimelineError(f"{where}: the DeviceTaintRule's name")

    def run(sim: Any) -> None:
        sim.store.delete("DeviceTaintRule", value)

    return f"untaint {value}", run


def _cordon(unschedulable: bool) -> Callable[[Any, str], tuple[str, Action]]:
    def build(value: Any, where: str) -> tuple[str, Action]:
        if not isinstance(value, str) or not value:
            raise TimelineError(f"{where}: the node's name")

        def run(sim: Any) -> None:
            node = sim.store.get("Node", value)
            if node is None:
                raise TimelineError(f'{where}: nodes "{value}" not found')
            spec = dict(node.get("spec") or {})
            if unschedulable:
                spec["unschedulable"] = True
            else:
                spec.pop("unschedulable", None)
            sim.store.update(node | {"spec": spec})

        return f"{'cordon' if unschedulable else 'uncordon'} {value}", run

    return build


def _condition(value: Any, where: str) -> tuple[str, Action]:
    if not isinstance(value, dict):
        raise TimelineError(f"{where}: needs claim, device, type and status")
    for required in ("claim", "device", "type", "status"):
        if not value.get(required):
            raise TimelineError(f"{where}.{required}: required")
    claim_name, device = str(value["claim"]), str(value["device"])
    condition_type, status = str(value["type"]), str(value["status"])
    if status not in ("True", "False", "Unknown"):
        raise TimelineError(f'{where}.status: must be "True", "False" or "Unknown"')

    def run(sim: Any) -> None:
        claim = sim.store.get("ResourceClaim", claim_name, value.get("namespace"))
        if claim is None:
            raise TimelineError(f'{where}: resourceclaims "{claim_name}" not found')
        claim_status = dict(claim.get("status") or {})
        allocation = claim_status.get("allocation") or {}
        results = [
            r
            for r in (allocation.get("devices") or {}).get("results") or []
            if r.get("device") == device
        ]
        if not results:
            raise TimelineError(f"{where}: device {device!r} is not allocated to {claim_name}")
        result = results[0]
        key = (result.get("driver"), result.get("pool"), device)
        entries = [dict(d) for d in claim_status.get("devices") or []]
        entry = next(
            (d for d in entries if (d.get("driver"), d.get("pool"), d.get("device")) == key),
            None,
        )
        if entry is None:
            entry = {"driver": key[0], "pool": key[1], "device": device}
            entries.append(entry)
        condition = {
            "type": condition_type,
            "status": status,
            "reason": str(value.get("reason") or "Simulated"),
            "message": str(value.get("message") or ""),
            "lastTransitionTime": sim.clock.timestamp(),
        }
        others = [c for c in entry.get("conditions") or [] if c.get("type") != condition_type]
        entry["conditions"] = [*others, condition]
        claim_status["devices"] = entries
        sim.store.update(claim | {"status": claim_status})

    return f"condition {condition_type}={status} on {claim_name}/{device}", run


def _wait(value: Any, where: str) -> tuple[str, Action]:
    seconds = parse_duration(value, where)

    def run(sim: Any) -> None:
        sim.clock.advance(seconds)

    return f"wait {value}", run


_BUILDERS: dict[str, Callable[[Any, str], tuple[str, Action]]] = {
    "create": _create,
    "delete": _delete,
    "taint": _taint,
    "untaint": _untaint,
    "cordon": _cordon(True),
    "uncordon": _cordon(False),
    "condition": _condition,
    "wait": _wait,
}
