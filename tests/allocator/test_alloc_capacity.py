"""Request policies of consumable capacity: defaults, rounding and violations."""

from __future__ import annotations

from typing import Any

import pytest

from kubedra.allocator.capacity import consumed_by, violates_policy
from kubedra.allocator.inventory import CapacityInfo
from kubedra.api.quantity import Quantity


def _cap(value: str, policy: dict[str, Any] | None = None) -> CapacityInfo:
    raw: dict[str, Any] = {"value": value}
    if policy is not None:
        raw["requestPolicy"] = policy
    return CapacityInfo("memory", raw, "test")


def _q(text: str) -> Quantity:
    return Quantity.parse(text)


STEPPED = {"default": "1Gi", "validRange": {"min": "1Gi", "max": "8Gi", "step": "2Gi"}}


@pytest.mark.parametrize(
    ("requested", "policy", "expected"),
    [
        (None, None, "40Gi"),
        (None, STEPPED, "1Gi"),
        ("3Gi", None, "3Gi"),
        ("512Mi", STEPPED, "1Gi"),
        ("2Gi", STEPPED, "3Gi"),
        ("3Gi", STEPPED, "3Gi"),
        ("5Gi", {"validValues": ["4Gi", "8Gi"]}, "8Gi"),
        ("9Gi", {"validValues": ["4Gi", "8Gi"]}, "9Gi"),
    ],
)
def test_consumed_amount(
    requested: str | None, policy: dict[str, Any] | None, expected: str
) -> None:
    cap = _cap("40Gi", policy)
    consumed = consumed_by(_q(requested) if requested else None, cap)
    assert str(consumed) == expected


def test_policy_violations() -> None:
    stepped = _cap("40Gi", STEPPED)
    assert not violates_policy(_q("1Gi"), stepped)
    assert not violates_policy(_q("7Gi"), stepped)
    assert violates_policy(_q("9Gi"), stepped)  # above max
    assert violates_policy(_q("2Gi"), stepped)  # off the step grid
    listed = _cap("40Gi", {"validValues": ["4Gi", "8Gi"]})
    assert violates_policy(_q("9Gi"), listed)
    assert not violates_policy(_q("8Gi"), listed)
    assert not violates_policy(_q("123"), _cap("40Gi"))


def test_rounding_up_to_a_step_is_exact_for_huge_values() -> None:
    # 8E - 1 is a multiple of 7, so 8E is the result (printed BinarySI, as Go's
    # NewQuantity does); a float quotient would be off by dozens of steps.
    cap = _cap("9E", {"validRange": {"min": "1", "step": "7"}})
    assert consumed_by(_q("8E"), cap) == _q("8E")
    assert str(consumed_by(_q("8E"), cap)) == "7629394531250Mi"
