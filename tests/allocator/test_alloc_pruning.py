"""Pruning never changes a result: pruned and plain searches agree on generated cases.

The budget is small in CI (fixed seed); ``KUBEDRA_PRUNE_EXAMPLES=5000 python -m pytest
tests/allocator/test_alloc_pruning.py`` runs a large one.
"""

from __future__ import annotations

import os
from typing import Any
from unittest import mock

from alloc_builders import (
    DRIVER,
    allocated,
    claim,
    device,
    device_class,
    node,
    picked,
    result,
    slice_,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubedra.allocator.engine import Allocator, Outcome
from kubedra.allocator.explain import EQUIVALENT_FAILED
from kubedra.allocator.features import GATE_NAMES, Features

EXAMPLES = int(os.environ.get("KUBEDRA_PRUNE_EXAMPLES", "300"))

_SELECTORS = [
    'device.attributes["gpu.example.com"].model == "a"',
    'device.attributes["gpu.example.com"].model == "b"',
    'device.attributes["gpu.example.com"].numa == 1',
    'device.attributes["gpu.example.com"].numa == 0',
    'device.attributes["gpu.example.com"].model != "c"',
    'device.attributes["gpu.example.com"].model == "a"',
    'device.attributes["gpu.example.com"].numa == 1',
    # A runtime error on devices without the attribute: the search may raise it.
    'device.attributes["gpu.example.com"].rare == 1',
]
_TAINT = {"key": "broken", "value": "yes", "effect": "NoSchedule"}
_TOLERATION = {"key": "broken", "operator": "Exists"}


@st.composite
def _device(draw: st.DrawFn, name: str, counters: bool) -> dict[str, Any]:
    attrs: dict[str, Any] = {
        "model": draw(st.sampled_from(["a", "b"])),
        "numa": draw(st.integers(0, 1)),
    }
    if draw(st.integers(0, 7)) == 0:
        attrs["rare"] = 1
    fields: dict[str, Any] = {"attrs": attrs}
    if draw(st.integers(0, 4)) == 0:
        fields["taints"] = [_TAINT]
    if counters and draw(st.booleans()):
        amount = str(draw(st.integers(1, 2)))
        fields["consumesCounters"] = [{"counterSet": "set", "counters": {"c": {"value": amount}}}]
    if draw(st.integers(0, 3)) == 0:
        fields["allowMultipleAllocations"] = True
        fields["capacity"] = {"mem": {"value": "4"}}
    return device(name, **fields)


@st.composite
def _slices(draw: st.DrawFn) -> list[dict[str, Any]]:
    out = []
    for p in range(draw(st.integers(1, 2))):
        pool = f"pool-{p}"
        counters = draw(st.booleans())
        devices = [draw(_device(f"d{p}{i}", counters)) for i in range(draw(st.integers(2, 7)))]
        count = 2 if counters else 1
        out.append(slice_(f"{pool}-devices", devices, pool=pool, count=count))
        if counters:
            limit = str(draw(st.integers(1, 4)))
            shared = [{"name": "set", "counters": {"c": {"value": limit}}}]
            out.append(slice_(f"{pool}-counters", [], pool=pool, count=2, sharedCounters=shared))
    return out


@st.composite
def _exactly(draw: st.DrawFn, features: Features) -> dict[str, Any]:
    body: dict[str, Any] = {"deviceClassName": DRIVER}
    if draw(st.integers(0, 7)) == 0:
        body["allocationMode"] = "All"
    else:
        body["count"] = draw(st.integers(1, 3))
    if draw(st.integers(0, 3)):
        body["selectors"] = [{"cel": {"expression": draw(st.sampled_from(_SELECTORS))}}]
    if draw(st.integers(0, 3)) == 0:
        body["tolerations"] = [_TOLERATION]
    if features.consumable_capacity and draw(st.integers(0, 3)) == 0:
        body["capacity"] = {"requests": {"mem": str(draw(st.integers(1, 3)))}}
    if features.admin_access and draw(st.integers(0, 6)) == 0:
        body["adminAccess"] = True
    return body


@st.composite
def _claims(draw: st.DrawFn, features: Features) -> list[dict[str, Any]]:
    claims = []
    for c in range(draw(st.integers(1, 2))):
        requests = []
        names = []
        for r in range(draw(st.integers(1, 4))):
            name = f"r{r}"
            names.append(name)
            if features.prioritized_list and draw(st.integers(0, 3)) == 0:
                subs = []
                for s in range(draw(st.integers(2, 3))):
                    sub = draw(_exactly(features))
                    sub.pop("adminAccess", None)
                    subs.append({"name": f"s{s}", **sub})
                requests.append({"name": name, "firstAvailable": subs})
            else:
                requests.append({"name": name, "exactly": draw(_exactly(features))})
        devices: dict[str, Any] = {}
        if draw(st.integers(0, 2)) == 0:
            kind = draw(st.sampled_from(["matchAttribute", "distinctAttribute"]))
            attribute = draw(st.sampled_from(["gpu.example.com/model", "gpu.example.com/numa"]))
            chosen = draw(st.sampled_from([[], names[:2]]))
            devices["constraints"] = [{"requests": chosen, kind: attribute}]
        claims.append(claim(f"c{c}", *requests, **devices))
    return claims


@st.composite
def _case(draw: st.DrawFn) -> dict[str, Any]:
    gates = {gate: draw(st.booleans()) for gate in GATE_NAMES.values()}
    features = Features.from_gates(gates)
    slices = draw(_slices())
    held = []
    if draw(st.booleans()):
        held = [allocated(claim("held"), result("r", "d00", pool="pool-0"))]
    return {
        "features": features,
        "slices": slices,
        "claims": draw(_claims(features)),
        "allocated": held,
    }


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k != "shareID"}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _outcome(case: dict[str, Any], prune: bool) -> tuple[Any, ...]:
    allocator = Allocator(
        case["features"],
        [device_class()],
        case["slices"],
        case["allocated"],
        timeout=None,
        prune=prune,
    )
    allocator.prune_after = 0
    outcome: Outcome = allocator.allocate(node(), case["claims"])
    return _strip(outcome.allocations), outcome.error, outcome.node_local


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(_case())
def test_pruned_and_plain_searches_agree(case: dict[str, Any]) -> None:
    assert _outcome(case, prune=True) == _outcome(case, prune=False)


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(_case())
def test_pruning_agrees_when_results_overflow(case: dict[str, Any]) -> None:
    # With the per-claim limit of 32 results lowered to 3, small cases overflow often, which
    # steers the search to other subrequests: pruning must not change that either.
    with mock.patch("kubedra.allocator.search.ALLOCATION_RESULTS_MAX_SIZE", 3):
        assert _outcome(case, prune=True) == _outcome(case, prune=False)


def _pruned(slices: list[dict[str, Any]], claims: list[dict[str, Any]]) -> Outcome:
    allocator = Allocator(Features(), [device_class()], slices, timeout=None)
    allocator.prune_after = 0
    return allocator.allocate(node(), claims)


def test_devices_that_differ_for_a_later_request_are_not_interchangeable() -> None:
    # r1 = d0 leaves one model-b device for r2; d1 differs from d0 only in what r2 selects,
    # so it must still be tried for r1 (and wins).
    slices = [
        slice_(
            "s",
            [
                device("d0", attrs={"model": "b"}),
                device("d1", attrs={"model": "a"}),
                device("d2", attrs={"model": "b"}),
            ],
        )
    ]
    model_b = [{"cel": {"expression": 'device.attributes["gpu.example.com"].model == "b"'}}]
    c = claim(
        "c",
        {"name": "r1", "exactly": {"deviceClassName": DRIVER}},
        {"name": "r2", "exactly": {"deviceClassName": DRIVER, "count": 2, "selectors": model_b}},
    )
    assert picked(_pruned(slices, [c])) == ["r1=d1", "r2=d0", "r2=d2"]


def test_interchangeable_devices_after_a_failure_are_skipped() -> None:
    # After r1 = d0 fails, d1..d5 are interchangeable with d0: the answer comes at once.
    slices = [slice_("s", [device(f"d{i}") for i in range(6)])]
    claims = [
        claim("a", {"name": "r1", "exactly": {"deviceClassName": DRIVER, "count": 2}}),
        claim("b", {"name": "r1", "exactly": {"deviceClassName": DRIVER, "count": 5}}),
    ]
    assert _pruned(slices, claims).unschedulable


def test_the_recorder_names_devices_skipped_as_equivalent() -> None:
    slices = [slice_("s", [device(f"d{i}") for i in range(6)])]
    claims = [
        claim("a", {"name": "r1", "exactly": {"deviceClassName": DRIVER, "count": 2}}),
        claim("b", {"name": "r1", "exactly": {"deviceClassName": DRIVER, "count": 5}}),
    ]
    allocator = Allocator(Features(), [device_class()], slices, timeout=None)
    allocator.prune_after = 0
    outcome, recorder = allocator.explain(node(), claims)
    assert outcome.unschedulable
    skipped = recorder.reasons[("default/a", "r1")][EQUIVALENT_FAILED]
    assert skipped.count >= 1 and skipped.examples[0].startswith("gpu.example.com/node-1/d")
