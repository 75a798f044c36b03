"""The DRA selector API: compile errors, evaluation, the device variable, cost."""

from __future__ import annotations

import pytest

from kubedra.cel import CelCompileError, CelEvaluationError, compile_selector
from kubedra.cel.device import CelDevice

GPU = CelDevice.from_v1(
    {
        "name": "gpu-0",
        "attributes": {
            "model": {"string": "A100"},
            "numa": {"int": 1},
            "ecc": {"bool": True},
            "driverVersion": {"version": "1.2.3"},
            "other.example.com/x": {"int": 3},
            "links": {"ints": [3, 1, 2]},
        },
        "capacity": {"memory": {"value": "24Gi"}},
    },
    "gpu.example.com",
)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('device.driver == "gpu.example.com"', True),
        ('device.attributes["gpu.example.com"].model == "A100"', True),
        ('device.attributes["gpu.example.com"].numa < 2', True),
        ('device.attributes["other.example.com"].x == 3', True),
        ('device.attributes["gpu.example.com"].ecc && !device.allowMultipleAllocations', True),
        ('"model" in device.attributes["gpu.example.com"]', True),
        ('has(device.attributes["gpu.example.com"].uuid)', False),
        ('size(device.attributes["unknown.example.com"]) == 0', True),
        ('device.attributes["gpu.example.com"].model.startsWith("A1")', True),
        ('device.attributes["gpu.example.com"].model.matches("^A[0-9]+$")', True),
        ('device.attributes["gpu.example.com"].links.exists(l, l == 2)', True),
        ('device.attributes["gpu.example.com"].?uuid.orValue("none") == "none"', True),
        ('cel.bind(a, device.attributes["gpu.example.com"], a.numa + 1 == 2)', True),
    ],
)
def test_selector_results(expression: str, expected: bool) -> None:
    selector = compile_selector(expression)
    assert selector.matches(GPU) is expected
    assert selector.evaluate(GPU)[0] is expected


def test_compile_errors_use_cel_go_format() -> None:
    with pytest.raises(CelCompileError) as err:
        compile_selector("1 == 1.0")
    assert str(err.value) == (
        "compilation failed: ERROR: <input>:1:3: found no matching overload for '_==_' "
        "applied to '(int, double)'\n | 1 == 1.0\n | ..^"
    )
    with pytest.raises(CelCompileError, match="undeclared reference to 'nope'"):
        compile_selector("nope == 1")
    with pytest.raises(CelCompileError, match="must evaluate to bool or the unknown type, not int"):
        compile_selector("1")


def test_missing_key_error_has_upstream_hint() -> None:
    selector = compile_selector('device.attributes["gpu.example.com"].uuid == "x"')
    with pytest.raises(CelEvaluationError) as err:
        selector.matches(GPU)
    assert str(err.value) == (
        "no such key: uuid. consider using CEL optional chaining (.? followed by orValue()) "
        "or guarding the check with has() for optional fields"
    )


def test_cost_of_memory_selector_matches_upstream() -> None:
    pytest.importorskip(
        "kubedra.cel.libs.quantity", reason="the quantity library lands with cellibs"
    )
    selector = compile_selector(
        'device.capacity["gpu.example.com"].memory.compareTo(quantity("16Gi")) >= 0'
    )
    assert selector.evaluate(GPU) == (True, 7)


def test_compiled_selectors_are_cached() -> None:
    assert compile_selector("true") is compile_selector("true")


@pytest.mark.parametrize(
    ("expression", "fields"),
    [
        ('device.driver == "gpu.example.com"', {"driver"}),
        ("device.allowMultipleAllocations", {"allowMultipleAllocations"}),
        (
            'device.driver.startsWith("gpu") && device.attributes["a"].x == 1',
            {"driver", "attributes"},
        ),
        ('device.capacity["a"].memory.isGreaterThan(quantity("1Gi"))', {"capacity"}),
        ('{"k": device.driver}["k"] == "gpu.example.com"', {"driver"}),
        ("[1, 2].all(x, x > 0)", set()),
        ("true", set()),
        # Uses of ``device`` other than reading a field: the selector may read anything.
        ("has(device.driver)", None),
        ('cel.bind(d, device, d.driver == "x")', None),
        ("[device].size() == 1", None),
        ('device.?driver.orValue("") == "x"', None),
        # A comprehension variable named device: cautious, not wrong.
        ("[1].exists(device, device == 1)", None),
    ],
)
def test_device_fields_say_what_a_selector_reads(expression: str, fields: set[str] | None) -> None:
    found = compile_selector(expression).device_fields
    assert found == (None if fields is None else frozenset(fields))
