"""Everything a rejected or backtracked device took is given back (kubernetes#140431)."""

from __future__ import annotations

from typing import Any

from alloc_builders import allocate, claim, device, picked, request, slice_

_COUNTERS = [{"name": "mem", "counters": {"memory": {"value": "1"}}}]


def _uses_counter(name: str, **fields: Any) -> dict[str, Any]:
    use = [{"counterSet": "mem", "counters": {"memory": {"value": "1"}}}]
    return device(name, consumesCounters=use, **fields)


def _pool(*devices: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        slice_("counters", [], count=2, sharedCounters=_COUNTERS),
        slice_("devices", list(devices), count=2),
    ]


def test_counters_of_a_device_rejected_for_a_taint_are_given_back() -> None:
    taint = {"key": "broken", "value": "yes", "effect": "NoSchedule"}
    slices = _pool(_uses_counter("gpu-0", taints=[taint]), _uses_counter("gpu-1"))
    assert picked(allocate(slices, [claim("c", request("r"))])) == ["r=gpu-1"]


def test_counters_of_a_device_rejected_for_a_constraint_are_given_back() -> None:
    slices = _pool(
        device("gpu-0", attrs={"model": "a"}),
        _uses_counter("gpu-1", attrs={"model": "b"}),
        _uses_counter("gpu-2", attrs={"model": "a"}),
    )
    c = claim(
        "c",
        request("r1"),
        request("r2"),
        constraints=[{"requests": ["r1", "r2"], "matchAttribute": "gpu.example.com/model"}],
    )
    assert picked(allocate(slices, [c])) == ["r1=gpu-0", "r2=gpu-2"]


def test_counters_of_a_backtracked_shared_device_are_given_back() -> None:
    # r1 first takes the shared gpu-0 and its counter; r2 then fits nowhere, so the search
    # backtracks and r1 takes gpu-1, which needs the counter that gpu-0 gave back.
    slices = _pool(
        _uses_counter("gpu-0", allowMultipleAllocations=True, attrs={"model": "a", "group": "x"}),
        _uses_counter("gpu-1", attrs={"model": "b", "group": "y"}),
        device("gpu-2", attrs={"model": "b", "group": "y"}),
    )
    model_b = 'device.attributes["gpu.example.com"].model == "b"'
    r2 = request("r2", selectors=[{"cel": {"expression": model_b}}])
    c = claim(
        "c",
        request("r1"),
        r2,
        constraints=[{"requests": ["r1", "r2"], "matchAttribute": "gpu.example.com/group"}],
    )
    assert picked(allocate(slices, [c])) == ["r1=gpu-1", "r2=gpu-2"]


def test_backtracking_two_shares_that_consume_nothing() -> None:
    # Two All-mode shares of one device consume nothing; undoing both used to raise KeyError.
    shared = device("fpga-1", allowMultipleAllocations=True, capacity={"slots": "0"})
    c = claim(
        "c",
        request("a", allocationMode="All"),
        request("b", allocationMode="All"),
        request("z", count=5),
    )
    outcome = allocate([slice_("s", [shared])], [c])
    assert outcome.unschedulable


def test_a_shared_device_stays_marked_while_another_share_lives() -> None:
    # gpu-0 is shared by r1 and r2; r3 fails and is retried without taking gpu-0's counter
    # twice: the remaining share still holds it.
    slices = _pool(_uses_counter("gpu-0", allowMultipleAllocations=True), _uses_counter("gpu-1"))
    c = claim("c", request("r1"), request("r2"))
    assert picked(allocate(slices, [c])) == ["r1=gpu-0", "r2=gpu-0"]
