"""Every step a timeline may hold: ``kubedra simulate --events`` steps plus the planning ones.

The timeline's steps (create, delete, taint, untaint, cordon, uncordon, condition, wait) and:

- ``add-nodes: {template: FILE, count: N, name: BASE}``: N nodes built from a Node and its
  ResourceSlices (paths relative to the steps file);
- ``drain: NODE``: cordon the node and evict its pods; each evicted pod is created again
  unbound (as its controller would), so it moves to another node or waits;
- ``remove-node: NODE``: drain, then delete the node and its ResourceSlices;
- ``add-slice: SLICE`` / ``remove-slice: NAME``: create or delete a ResourceSlice;
- ``set-class-selector: {class: NAME, selectors: [{cel: {expression: ...}}]}``: replace a
  DeviceClass's selectors through the store, so that the scheduler re-evaluates the pods
  waiting for devices while allocated claims keep their devices, as upstream.

``kubedra simulate`` (``--events`` and ``--what-if``), ``kubedra plan what-if`` and the
timeline entries of replay traces (kubedra.replay) read their steps here, so that every step
works in all of them. A replay leaves re-creating drained pods to its own workload controllers
(``recreate_drained=False``).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kubedra.api.io import load_paths, load_text
from kubedra.api.limits import DEFAULT_MAX_NODES
from kubedra.api.validation.api import validate_object
from kubedra.cluster.nodetemplate import TemplateError, instantiate, split_template
from kubedra.cluster.podcopy import copy_of
from kubedra.cluster.simulation import Simulation
from kubedra.cluster.timeline import (
    ACTIONS,
    ElapsedTime,
    Step,
    TimelineError,
    build_action,
    parse_duration,
    parse_step,
    read_steps_file,
)

OWN = ("add-nodes", "drain", "remove-node", "add-slice", "remove-slice", "set-class-selector")
ALL = (*ACTIONS, *OWN)
_RESOURCE_V1 = "resource.k8s.io/v1"

Built = tuple[str, Callable[[Simulation], None]]


def _drain(value: Any, where: str, remove: bool, recreate: bool = True) -> Built:
    if not isinstance(value, str) or not value:
        raise TimelineError(f"{where}: the node's name")
    node_name = value

    def run(sim: Simulation) -> None:
        node = sim.store.get("Node", node_name)
        if node is None:
            raise TimelineError(f'{where}: nodes "{node_name}" not found')
        spec = dict(node.get("spec") or {}) | {"unschedulable": True}
        sim.store.update(node | {"spec": spec})
        victims = [
            p for p in sim.store.list("Pod") if (p.get("spec") or {}).get("nodeName") == node_name
        ]
        for pod in victims:
            meta = pod["metadata"]
            sim.store.delete("Pod", meta["name"], meta.get("namespace"))
        sim.settle()  # claims of the evicted pods are released first
        if remove:
            for s in sim.store.list("ResourceSlice"):
                if (s.get("spec") or {}).get("nodeName") == node_name:
                    sim.store.delete("ResourceSlice", s["metadata"]["name"])
            sim.store.delete("Node", node_name)
        if not recreate:
            return
        for pod in victims:
            again = copy_of(pod, pod["metadata"]["name"])
            sim.load([again])

    return f"{'remove-node' if remove else 'drain'} {node_name}", run


def _add_nodes(value: Any, where: str, base_dir: Path, max_nodes: int) -> Built:
    if not isinstance(value, dict) or not value.get("template"):
        raise TimelineError(f"{where}.template: required (a Node and its ResourceSlices)")
    unknown = [k for k in value if k not in ("template", "count", "name")]
    if unknown:
        raise TimelineError(f"{where}: unknown field {unknown[0]!r}")
    count = value.get("count", 1)
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise TimelineError(f"{where}.count: a whole number of at least 1")
    if count > max_nodes:
        raise TimelineError(
            f"{where}.count: {count} nodes, more than the {max_nodes} a step may add "
            "(raise the bound with --max-nodes)"
        )
    path = Path(str(value["template"]))
    if not path.is_absolute():
        path = base_dir / path
    try:
        node, slices = split_template(_template_objects(path))
    except TemplateError as error:
        raise TimelineError(f"{where}.template: {error}") from None
    base = str(value.get("name") or (node.get("metadata") or {}).get("name") or "node")

    def run(sim: Simulation) -> None:
        taken = {n["metadata"]["name"] for n in sim.store.list("Node")}
        index = 0
        for _ in range(count):
            index += 1
            while f"{base}-{index}" in taken:
                index += 1
            problems = sim.load(instantiate(copy.deepcopy(node), slices, f"{base}-{index}"))
            if problems:
                raise TimelineError(f"{where}: {problems[0].object}: {problems[0].message}")

    return f"add {count} node(s) from {value['template']}", run


def _template_objects(path: Path) -> list[dict[str, Any]]:
    loaded = load_paths([path])
    if loaded.errors:
        raise TemplateError(str(loaded.errors[0]))
    return [o.wire for o in loaded.objects]


def _add_slice(value: Any, where: str, base_dir: Path) -> Built:
    if not isinstance(value, dict):
        raise TimelineError(f"{where}: a ResourceSlice (a map)")
    raw = {"apiVersion": _RESOURCE_V1, "kind": "ResourceSlice", **value}
    if raw["kind"] != "ResourceSlice":
        raise TimelineError(f"{where}.kind: must be ResourceSlice, not {raw['kind']!r}")
    loaded = load_text(json.dumps(raw), where, json_input=True)
    if loaded.errors:
        raise TimelineError(f"{where}: {loaded.errors[0].message}")
    if not loaded.objects:
        raise TimelineError(f"{where}.apiVersion: not a ResourceSlice version: {raw['apiVersion']}")
    wire = loaded.objects[0].wire
    errors = validate_object(wire)
    if errors:
        raise TimelineError(f"{where}.{errors[0]}")
    name = (wire.get("metadata") or {}).get("name") or "(generated)"

    def run(sim: Simulation) -> None:
        sim.store.create(copy.deepcopy(wire))

    return f"add-slice {name}", run


def _remove_slice(value: Any, where: str, base_dir: Path) -> Built:
    if not isinstance(value, str) or not value:
        raise TimelineError(f"{where}: the ResourceSlice's name")

    def run(sim: Simulation) -> None:
        if sim.store.get("ResourceSlice", value) is None:
            raise TimelineError(f'{where}: resourceslices.resource.k8s.io "{value}" not found')
        sim.store.delete("ResourceSlice", value)

    return f"remove-slice {value}", run


def _set_class_selector(value: Any, where: str, base_dir: Path) -> Built:
    if not isinstance(value, dict):
        raise TimelineError(f"{where}: needs class and selectors")
    unknown = [k for k in value if k not in ("class", "selectors")]
    if unknown:
        raise TimelineError(f"{where}: unknown field {unknown[0]!r}")
    class_name = value.get("class")
    if not isinstance(class_name, str) or not class_name:
        raise TimelineError(f"{where}.class: required (the DeviceClass's name)")
    selectors = value.get("selectors")
    if not isinstance(selectors, list):
        raise TimelineError(f"{where}.selectors: required (a list of {{cel: {{expression: ...}}}})")
    probe = {
        "apiVersion": _RESOURCE_V1,
        "kind": "DeviceClass",
        "metadata": {"name": class_name},
        "spec": {"selectors": selectors},
    }
    errors = validate_object(probe)  # as the apiserver checks the update: CEL compiles
    if errors:
        error = errors[0]
        field = error.field.removeprefix("spec.")
        raise TimelineError(f"{where}.{field}: {str(error).removeprefix(error.field + ': ')}")

    def run(sim: Simulation) -> None:
        device_class = sim.store.get("DeviceClass", class_name)
        if device_class is None:
            raise TimelineError(
                f'{where}.class: deviceclasses.resource.k8s.io "{class_name}" not found'
            )
        spec = dict(device_class.get("spec") or {}) | {"selectors": copy.deepcopy(selectors)}
        sim.store.update(device_class | {"spec": spec})

    return f"set-class-selector {class_name}", run


_OWN_BUILDERS: dict[str, Callable[[Any, str, Path], Built]] = {
    "add-slice": _add_slice,
    "remove-slice": _remove_slice,
    "set-class-selector": _set_class_selector,
}


def build(
    name: str,
    value: Any,
    where: str,
    base_dir: Path,
    *,
    recreate_drained: bool = True,
    max_nodes: int = DEFAULT_MAX_NODES,
) -> Built:
    """The description and action of the step ``name`` (one of ALL) with its ``value``;
    ``where`` names it in errors, ``base_dir`` is where relative file names start; drained
    pods are created again unbound unless ``recreate_drained`` is false; an ``add-nodes``
    step adds at most ``max_nodes`` nodes. Raises TimelineError."""
    if name in ("drain", "remove-node"):
        return _drain(value, where, remove=name == "remove-node", recreate=recreate_drained)
    if name == "add-nodes":
        return _add_nodes(value, where, base_dir, max_nodes)
    if name in _OWN_BUILDERS:
        return _OWN_BUILDERS[name](value, where, base_dir)
    description, action = build_action(name, value, where)
    return description, action


def parse_steps(
    data: Any, source: str, base_dir: Path, max_nodes: int = DEFAULT_MAX_NODES
) -> list[Step]:
    """The steps of a what-if or events file; raises TimelineError naming step and field.
    An ``add-nodes`` step adds at most ``max_nodes`` nodes, and the steps together let at
    most one time.Duration pass."""
    if isinstance(data, dict) and "steps" in data:
        data = data["steps"]
    if data is None:
        return []
    if not isinstance(data, list):
        raise TimelineError(f"{source}: a list of steps (or a map with steps)")
    steps: list[Step] = []
    elapsed = ElapsedTime()
    for i, raw in enumerate(data):
        where = f"{source}: step {i + 1}"
        if not isinstance(raw, dict):
            raise TimelineError(f"{where}: a step is a map with one of {', '.join(ALL)}")
        unknown = [k for k in raw if k not in ALL and k != "after"]
        actions = [k for k in raw if k in ALL]
        if unknown and actions:
            raise TimelineError(f"{where}: unknown field {unknown[0]!r}")
        if unknown:
            raise TimelineError(f"{where}: unknown step {unknown[0]!r} (one of {', '.join(ALL)})")
        if len(actions) != 1:
            raise TimelineError(f"{where}: needs exactly one of {', '.join(ALL)}")
        name = actions[0]
        if name not in OWN:
            steps.append(parse_step(i, raw, where))
        else:
            after = parse_duration(raw.get("after", 0), f"{where}.after")
            description, action = build(
                name, raw[name], f"{where}.{name}", base_dir, max_nodes=max_nodes
            )
            steps.append(Step(i, description, after, action))
        elapsed.add(raw, where)
    return steps


def load_steps(path: Path, max_nodes: int = DEFAULT_MAX_NODES) -> list[Step]:
    """Read (as manifests are read: bounded) and check every step of a file; raises
    TimelineError."""
    return parse_steps(read_steps_file(path), str(path), path.parent, max_nodes)
