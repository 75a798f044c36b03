"""Rendering of field errors and of the apiserver's aggregate "is invalid" message."""

from __future__ import annotations

import pytest

from kubedra.api.validation import ErrorType, FieldError, format_invalid, validate_object
from kubedra.api.validation.errors import go_quote, too_long, too_many
from validation_fixtures import pod, resource_claim, resource_slice, with_value


@pytest.mark.parametrize(
    ("error", "text"),
    [
        (
            FieldError(ErrorType.INVALID, "a.b", -1, "must be greater than zero"),
            "a.b: Invalid value: -1: must be greater than zero",
        ),
        (FieldError(ErrorType.INVALID, "a", "x", "bad"), 'a: Invalid value: "x": bad'),
        (FieldError(ErrorType.INVALID, "a", True, "bad"), "a: Invalid value: true: bad"),
        (FieldError(ErrorType.INVALID, "a", None, "bad"), "a: Invalid value: null: bad"),
        (FieldError(ErrorType.INVALID, "a", ["x", 1], "bad"), 'a: Invalid value: ["x",1]: bad'),
        (FieldError(ErrorType.REQUIRED, "a", "", ""), "a: Required value"),
        (FieldError(ErrorType.REQUIRED, "a", "", "why"), "a: Required value: why"),
        (FieldError(ErrorType.FORBIDDEN, "a", "ignored", "no"), "a: Forbidden: no"),
        (FieldError(ErrorType.DUPLICATE, "a[1]", "gpu", ""), 'a[1]: Duplicate value: "gpu"'),
        (FieldError(ErrorType.NOT_FOUND, "a", "x", ""), 'a: Not found: "x"'),
        (too_long("a", 64), "a: Too long: may not be more than 64 bytes"),
        (too_long("a", 1), "a: Too long: may not be more than 1 byte"),
        (too_many("a", 129, 128), "a: Too many: 129: must have at most 128 items"),
        (too_many("a", 2, 1), "a: Too many: 2: must have at most 1 item"),
    ],
)
def test_field_error_rendering(error: FieldError, text: str) -> None:
    assert str(error) == text


@pytest.mark.parametrize(
    ("raw", "quoted"),
    [
        ("plain", '"plain"'),
        ('say "hi"\n', '"say \\"hi\\"\\n"'),
        ("tab\tback\\", '"tab\\tback\\\\"'),
        ("\x00\x7f", '"\\x00\\x7f"'),
        ("grüße ✓", '"grüße ✓"'),
        ("\u200b", '"\\u200b"'),
    ],
)
def test_strings_are_quoted_like_go(raw: str, quoted: str) -> None:
    assert go_quote(raw) == quoted


def test_error_type_carries_the_machine_reason() -> None:
    assert ErrorType.INVALID.reason == "FieldValueInvalid"
    assert ErrorType.TOO_MANY.reason == "FieldValueTooMany"
    assert ErrorType.REQUIRED == "Required value"
    assert str(ErrorType.NOT_SUPPORTED) == "Unsupported value"


def test_single_error_is_not_bracketed() -> None:
    claim = with_value(resource_claim(), ("spec", "devices", "requests", 0, "exactly", "count"), -1)
    assert format_invalid(claim, validate_object(claim)) == (
        'ResourceClaim.resource.k8s.io "team-a/training" is invalid: '
        "spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero"
    )


def test_several_errors_are_bracketed_and_comma_separated() -> None:
    claim = with_value(resource_claim(), ("spec", "devices", "requests", 0, "exactly", "count"), -1)
    claim = with_value(claim, ("spec", "devices", "config", 0, "opaque", "driver"), "")
    assert format_invalid(claim, validate_object(claim)) == (
        'ResourceClaim.resource.k8s.io "team-a/training" is invalid: ['
        "spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero, "
        "spec.devices.config[0].opaque.driver: Required value]"
    )


def test_identical_messages_are_reported_once() -> None:
    error = FieldError(ErrorType.REQUIRED, "spec.driver", "", "")
    assert format_invalid(resource_slice(), [error, error]) == (
        'ResourceSlice.resource.k8s.io "node-1-gpu.example.com-x7b2k" is invalid: spec.driver: '
        "Required value"
    )


def test_core_kinds_have_no_group() -> None:
    broken = with_value(pod(), ("spec", "containers"), [])
    assert format_invalid(broken, validate_object(broken)) == (
        'Pod "team-a/trainer" is invalid: spec.containers: Required value'
    )


def test_value_is_plain_json_data_for_machines() -> None:
    slice_ = with_value(resource_slice(), ("spec", "devices", 0, "attributes", "model"), {})
    slice_ = with_value(
        slice_, ("spec", "devices", 1, "attributes", "model"), {"int": 1, "bool": True}
    )
    first, second = validate_object(slice_)
    assert first.value == ""
    assert second.value == {
        "IntValue": 1,
        "BoolValue": True,
        "StringValue": None,
        "VersionValue": None,
        "IntValues": None,
        "BoolValues": None,
        "StringValues": None,
        "VersionValues": None,
    }
