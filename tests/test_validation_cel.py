"""CEL selector checks: compile errors, non-bool results, length and estimated cost."""

from __future__ import annotations

import pytest

from kubedra.api.validation import ErrorType, validate_object
from validation_fixtures import device_class, rendered_errors, resource_claim, with_value

CLASS_EXPR = ("spec", "selectors", 0, "cel", "expression")
CLAIM_EXPR = ("spec", "devices", "requests", 0, "exactly", "selectors", 0, "cel", "expression")
SUB_SELECTORS = ("spec", "devices", "requests", 1, "firstAvailable", 0, "selectors")
TEN = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"
# Upstream's example of a selector whose estimated cost is above 1,000,000.
EXPENSIVE = (
    f"{TEN}.all(x, {TEN}.all(y, {TEN}.all(z, {TEN}.all(z2, {TEN}.all(z3, {TEN}.all(z4, "
    f"{TEN}.all(z5, int('1'.find('[0-9]*')) < 100)))))))"
)

VALID_SELECTORS = [
    'device.driver == "gpu.example.com"',
    "device.capacity['gpu.example.com'].memory.compareTo(quantity('16Gi')) >= 0",
    'device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.0.0"))',
    'cel.bind(gpu, device.attributes["gpu.example.com"], gpu.model == "a100" && gpu.healthy)',
    "device.allowMultipleAllocations",
]


@pytest.mark.parametrize("expression", VALID_SELECTORS)
def test_valid_selectors_pass(expression: str) -> None:
    assert rendered_errors(with_value(device_class(), CLASS_EXPR, expression)) == []


def test_syntax_error_is_invalid_with_the_compiler_message() -> None:
    (error,) = validate_object(with_value(device_class(), CLASS_EXPR, "device.driver =="))
    assert error.type is ErrorType.INVALID
    assert error.field == "spec.selectors[0].cel.expression"
    assert error.bad_value == "device.driver =="
    assert error.detail.startswith("compilation failed: ERROR: <input>:1:17: Syntax error:")


def test_undeclared_reference_in_a_claim() -> None:
    (error,) = validate_object(with_value(resource_claim(), CLAIM_EXPR, "gpu.memory > 1"))
    assert error.field == "spec.devices.requests[0].exactly.selectors[0].cel.expression"
    assert error.detail.startswith(
        "compilation failed: ERROR: <input>:1:1: undeclared reference to 'gpu'"
    )


def test_non_bool_result() -> None:
    assert rendered_errors(with_value(device_class(), CLASS_EXPR, "1 + 1")) == [
        'spec.selectors[0].cel.expression: Invalid value: "1 + 1": must evaluate to bool or the '
        "unknown type, not int"
    ]


def test_estimated_cost_above_the_limit_in_a_subrequest() -> None:
    claim = with_value(resource_claim(), SUB_SELECTORS, [{"cel": {"expression": EXPENSIVE}}])
    assert rendered_errors(claim) == [
        "spec.devices.requests[1].firstAvailable[0].selectors[0].cel.expression: Forbidden: too "
        "complex, exceeds cost limit"
    ]


def test_too_long_expressions_are_not_compiled() -> None:
    expression = 'device.driver == "' + "x" * 10240 + '"'
    assert rendered_errors(with_value(device_class(), CLASS_EXPR, expression)) == [
        "spec.selectors[0].cel.expression: Too long: may not be more than 10240 bytes"
    ]


def test_longest_allowed_expression_compiles() -> None:
    prefix = 'device.driver == "'
    expression = prefix + "x" * (10240 - len(prefix) - 1) + '"'
    assert len(expression) == 10240
    assert rendered_errors(with_value(device_class(), CLASS_EXPR, expression)) == []
