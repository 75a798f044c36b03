"""Wrong types and garbage never raise: they become field errors at the exact path."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubedra.api.validation import validate_object
from kubedra.api.validation.schema import KIND_SCHEMAS
from kubedra.api.validation.typecheck import ListOf, MapOf, Scalar
from validation_fixtures import (
    allocated_claim,
    claim_template,
    device_class,
    device_taint_rule,
    namespace,
    node,
    partitionable_slice,
    pod,
    priority_class,
    rendered_errors,
    shared_device_slice,
    with_value,
)

TYPE_CASES = [
    (
        "string where int64 is expected",
        with_value(allocated_claim(), ("spec", "devices", "requests", 0, "exactly", "count"), "2"),
        ['spec.devices.requests[0].exactly.count: Invalid value: "string": must be of type int64'],
    ),
    (
        "float where int64 is expected",
        with_value(allocated_claim(), ("spec", "devices", "requests", 0, "exactly", "count"), 1.5),
        ['spec.devices.requests[0].exactly.count: Invalid value: "number": must be of type int64'],
    ),
    (
        "int64 overflow",
        with_value(shared_device_slice(), ("spec", "pool", "generation"), 2**63),
        ["spec.pool.generation: Invalid value: 9223372036854775808: must be of type int64"],
    ),
    (
        "map where a list is expected",
        with_value(allocated_claim(), ("spec", "devices", "requests"), {"name": "gpu"}),
        ['spec.devices.requests: Invalid value: "object": must be of type array'],
    ),
    (
        "list where a map is expected",
        with_value(node(), ("metadata", "labels"), ["a"]),
        ['metadata.labels: Invalid value: "array": must be of type object'],
    ),
    (
        "number as label value",
        with_value(node(), ("metadata", "labels"), {"zone": 1}),
        ['metadata.labels[zone]: Invalid value: "integer": must be of type string'],
    ),
    (
        "string where bool is expected",
        with_value(shared_device_slice(), ("spec", "devices", 1, "allNodes"), "true"),
        ['spec.devices[1].allNodes: Invalid value: "string": must be of type boolean'],
    ),
    (
        "bad quantity",
        with_value(
            partitionable_slice(), ("spec", "devices", 0, "capacity", "memory", "value"), "40GB"
        ),
        [
            'spec.devices[0].capacity[memory].value: Invalid value: "40GB": quantities must match '
            "the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        ],
    ),
    (
        "numeric quantity is fine",
        with_value(
            partitionable_slice(), ("spec", "devices", 0, "capacity", "memory", "value"), 4096
        ),
        [],
    ),
    (
        "null required field is an unset field",
        with_value(
            allocated_claim(),
            ("spec", "devices", "requests", 0, "exactly", "deviceClassName"),
            None,
        ),
        ["spec.devices.requests[0].exactly.deviceClassName: Required value"],
    ),
    (
        "spec is a string",
        with_value(device_class(), ("spec",), "gpu"),
        ['spec: Invalid value: "string": must be of type object'],
    ),
]


@pytest.mark.parametrize(
    ("obj", "expected"), [(c[1], c[2]) for c in TYPE_CASES], ids=[c[0] for c in TYPE_CASES]
)
def test_wrong_types_are_field_errors(obj: dict, expected: list[str]) -> None:
    assert rendered_errors(obj) == expected


def test_unknown_kind_is_reported() -> None:
    assert rendered_errors({"kind": "Deployment"}) == [
        'kind: Unsupported value: "Deployment": supported values: "CompositePodGroup", '
        '"DeviceClass", '
        '"DeviceTaintRule", '
        '"Namespace", "Node", "Pod", "PodDisruptionBudget", "PodGroup", "PriorityClass", '
        '"ResourceClaim", "ResourceClaimTemplate", "ResourcePoolStatusRequest", '
        '"ResourceSlice", "Workload"'
    ]


def test_non_object_is_reported() -> None:
    assert [str(e) for e in validate_object([1, 2])] == [  # type: ignore[arg-type]
        ': Invalid value: "array": must be of type object'
    ]


SEEDS = [
    allocated_claim(),
    claim_template(),
    device_class(),
    device_taint_rule(),
    partitionable_slice(),
    shared_device_slice(),
    pod(),
    node(),
    namespace(),
    priority_class(),
]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            found.extend(_paths(v, (*prefix, k)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found.extend(_paths(v, (*prefix, i)))
    return found


@settings(max_examples=1500, deadline=None)
@given(seed=st.sampled_from(SEEDS), data=st.data(), replacement=json_values)
def test_mutated_objects_never_raise(seed: dict, data: st.DataObject, replacement: object) -> None:
    obj = copy.deepcopy(seed)
    path = data.draw(st.sampled_from(_paths(obj)[1:]))
    target: Any = obj
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = replacement
    for error in validate_object(obj):
        assert str(error)


def _from_schema(spec: Any) -> st.SearchStrategy[Any]:
    """Objects of the right JSON types with arbitrary values, built from the wire schema."""
    if isinstance(spec, Scalar):
        return {
            Scalar.STRING: st.text(max_size=12) | st.sampled_from(["a", "gpu", "x.com/y", ""]),
            Scalar.INT64: st.integers(min_value=-(2**63), max_value=2**63 - 1),
            Scalar.INT32: st.integers(min_value=-(2**31), max_value=2**31 - 1),
            Scalar.BOOL: st.booleans(),
            Scalar.QUANTITY: st.sampled_from(["1", "0", "-1", "1.5", "16Gi", "100m", "1e3"]),
            Scalar.ANY: json_values,
        }[spec]
    if isinstance(spec, ListOf):
        return st.none() | st.lists(_from_schema(spec.item), max_size=3)
    if isinstance(spec, MapOf):
        keys = st.text(max_size=8) | st.sampled_from(["memory", "a.com/b", "cpu"])
        return st.none() | st.dictionaries(keys, _from_schema(spec.value), max_size=3)
    return st.fixed_dictionaries({}, optional={k: _from_schema(v) for k, v in spec.items()})


@settings(max_examples=300, deadline=None)
@given(data=st.data(), kind=st.sampled_from(sorted(KIND_SCHEMAS)))
def test_random_well_typed_objects_never_raise(data: st.DataObject, kind: str) -> None:
    obj = data.draw(_from_schema(KIND_SCHEMAS[kind]))
    obj["kind"] = kind
    for error in validate_object(obj):
        assert str(error)
