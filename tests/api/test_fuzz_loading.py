"""Generated input for the load -> convert -> default -> validate -> dump pipeline: never a
traceback, never a raw Python error, every input within a time bound.

Five properties: garbled YAML text (with explicit tags, aliases, merge keys and the scalar forms
YAML readers disagree on), structurally valid objects with random subtrees swapped for random
values, random objects of every supported kind, arbitrary dicts given straight to conversion
and defaulting, and the fast YAML reader against the reference one. About 2,400 inputs in CI
(derandomized); ``HYPOTHESIS_PROFILE=fuzz python -m pytest tests/api/test_fuzz_loading.py``
runs ten times as many (see tests/conftest.py).
"""

from __future__ import annotations

import copy
import json
import time
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubedra.api.checking import check_loaded
from kubedra.api.conversion import to_v1
from kubedra.api.defaults import apply_defaults
from kubedra.api.io import SUPPORTED_KINDS, dump_yaml, load_text, to_clean_wire
from kubedra.api.io.reading import ManifestLoader, _parse_fast

FUZZ = settings(deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
SCALE = max(1, settings.default.max_examples // 100)
"""1 in the ci and dev profiles, 10 in the fuzz profile."""

SECONDS_PER_INPUT = 5.0
"""No single input may take longer (most take milliseconds; a loaded CI machine is slow)."""

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    st.sampled_from(["", "1Gi", "ExactCount", "All", "Equal", "2026-01-01T00:00:00Z", "-1"]),
)
keys = st.sampled_from(
    ["name", "spec", "devices", "requests", "exactly", "count", "value", "metadata", "items"]
) | st.text(max_size=6)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=10,
)

YAML_PIECES = [
    "apiVersion: ",
    "resource.k8s.io/v1",
    "resource.k8s.io/v1beta1",
    "v1",
    "kind: ",
    "List",
    "ResourceClaim",
    "ResourceSlice",
    "DeviceClass",
    "Pod",
    "items:",
    "metadata:",
    "name: x",
    "spec:",
    "devices:",
    "requests:",
    "- ",
    "  ",
    "\n",
    "---\n",
    ": ",
    "{",
    "}",
    "[",
    "]",
    ",",
    "&a ",
    "*a",
    "!!str ",
    "!!binary ",
    '"',
    "'",
    "#",
    "|\n",
    ">\n",
    "? ",
    "~",
    "null",
    "0x1F",
    "1e3",
    "-.inf",
    "true",
    "\t",
    "%YAML 1.1\n",
    "\x00",
    "\u2028",
    "\ufeff",
    *("!!timestamp ", "!!float ", "!!int ", "!!bool ", "!!set ", "!!omap ", "!!pairs "),
    *("!!null ", "!!map ", "!!seq ", "!!binary aGVsbG8=", "<<: ", "&b ", "*b", ":", "? "),
    *("1:1", "_2", "0o7", "017", "1_0", ".5", "2020-01-01", "2020-01-01 1:2:3", "+", "x"),
]
garbled_yaml = st.lists(st.sampled_from(YAML_PIECES) | st.text(max_size=3), max_size=40).map(
    "".join
)


def _assert_clean(text: str) -> None:
    """The pipeline finishes in time; every problem is one line; rules never crash; whatever
    loads can be dumped and read back."""
    start = time.perf_counter()
    loaded = load_text(text, source="fuzz.yaml")
    report = check_loaded(loaded)
    for error in report.load_errors:
        line = str(error)
        assert len(line.splitlines()) == 1, line
        assert "internal error" not in line, line
    if loaded.objects:
        reloaded = load_text(dump_yaml([obj.wire for obj in loaded.objects]))
        assert len(reloaded.objects) == len(loaded.objects)
    assert time.perf_counter() - start < SECONDS_PER_INPUT, text[:200]


@settings(FUZZ, max_examples=600 * SCALE)
@given(garbled_yaml)
def test_garbled_yaml_never_raises(text: str) -> None:
    _assert_clean(text)


VALID_OBJECTS: list[dict[str, Any]] = [
    obj.wire
    for obj in load_text(
        """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s, labels: {a: b}}
spec:
  driver: gpu.example.com
  nodeName: n
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes: {model: {string: m}, index: {int: 1}, v: {version: 1.0.0}}
    capacity: {memory: {value: 8Gi, requestPolicy: {default: 1Gi, validValues: [1Gi, 2Gi]}}}
    taints: [{key: k, value: v, effect: NoSchedule}]
    consumesCounters: [{counterSet: c, counters: {mem: {value: 1Gi}}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: default}
spec:
  devices:
    requests:
    - name: a
      exactly:
        deviceClassName: gpu.example.com
        selectors: [{cel: {expression: 'device.driver == "x"'}}]
        tolerations: [{key: k, operator: Exists}]
    - name: b
      firstAvailable: [{name: s, deviceClassName: gpu.example.com, count: 2}]
    constraints: [{requests: [a], matchAttribute: gpu.example.com/model}]
    config: [{requests: [a], opaque: {driver: gpu.example.com, parameters: {x: 1}}}]
status:
  allocation:
    devices:
      results: [{request: a, driver: gpu.example.com, pool: p, device: gpu-0}]
  reservedFor: [{resource: pods, name: p, uid: u}]
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaimTemplate
metadata: {name: t, namespace: default}
spec:
  spec:
    devices:
      requests: [{name: a, deviceClassName: gpu.example.com, count: 1}]
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  resourceClaims: [{name: gpu, resourceClaimName: c}]
  containers: [{name: c, image: i, resources: {claims: [{name: gpu}], limits: {cpu: "1"}}}]
"""
    ).objects
]


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for position, child in enumerate(value):
            found += _paths(child, (*prefix, position))
    return found


@st.composite
def mutated_objects(draw: st.DrawFn) -> dict[str, Any]:
    obj = copy.deepcopy(draw(st.sampled_from(VALID_OBJECTS)))
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        path = draw(st.sampled_from(_paths(obj)[1:]))
        parent = obj
        for step in path[:-1]:
            parent = parent[step]
        parent[path[-1]] = draw(json_values)
    return obj


@settings(FUZZ, max_examples=600 * SCALE)
@given(mutated_objects())
def test_wrong_types_anywhere_never_raise(obj: dict[str, Any]) -> None:
    _assert_clean(json.dumps(obj))


@st.composite
def random_objects(draw: st.DrawFn) -> dict[str, Any]:
    api_version, kind = draw(st.sampled_from(sorted(SUPPORTED_KINDS)))
    body = draw(st.dictionaries(st.sampled_from(["metadata", "spec", "status", "x"]), json_values))
    return {"apiVersion": api_version, "kind": kind} | body


@settings(FUZZ, max_examples=500 * SCALE)
@given(random_objects())
def test_random_objects_of_every_kind_never_raise(obj: dict[str, Any]) -> None:
    _assert_clean(json.dumps(obj))
    for loaded in load_text(json.dumps(obj)).objects:
        [reloaded] = load_text(dump_yaml([loaded.wire])).objects
        assert to_clean_wire(reloaded.wire) == to_clean_wire(loaded.wire)


@settings(FUZZ, max_examples=500 * SCALE)
@given(random_objects() | st.dictionaries(keys, json_values, max_size=4))
def test_conversion_and_defaulting_accept_any_dict(obj: dict[str, Any]) -> None:
    before = copy.deepcopy(obj)
    apply_defaults(to_v1(obj))
    assert obj == before


@settings(FUZZ, max_examples=200 * SCALE)
@given(st.lists(json_values, min_size=1, max_size=3), st.booleans())
def test_fast_yaml_path_reads_what_pyyaml_reads(documents: list[Any], flow: bool) -> None:
    text = yaml.safe_dump_all(documents, default_flow_style=flow)
    fast = _parse_fast(text)
    if fast is not None:
        assert fast == list(yaml.load_all(text, Loader=ManifestLoader))
