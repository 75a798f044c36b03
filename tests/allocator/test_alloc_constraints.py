"""matchAttribute and distinctAttribute, with scalar and list-type attributes."""

from __future__ import annotations

from alloc_builders import allocate, claim, device, picked, request, slice_

from kubedra.allocator.features import Features

NO_LISTS = Features(list_type_attributes=False)


def _roots(*roots: str) -> list[dict[str, object]]:
    return [slice_("s", [device(f"gpu-{i}", attrs={"root": r}) for i, r in enumerate(roots)])]


def _match(*requests: str) -> dict[str, object]:
    body: dict[str, object] = {"matchAttribute": "gpu.example.com/root"}
    if requests:
        body["requests"] = list(requests)
    return body


def test_match_attribute_backtracks_to_a_common_value() -> None:
    c = claim("c", request("a"), request("b", count=2), constraints=[_match()])
    outcome = allocate(_roots("x", "y", "y", "y"), [c])
    assert picked(outcome) == ["a=gpu-1", "b=gpu-2", "b=gpu-3"]
    assert allocate(_roots("x", "y", "y"), [c], features=NO_LISTS).unschedulable


def test_match_attribute_only_for_named_requests() -> None:
    c = claim("c", request("a"), request("b"), constraints=[_match("b")])
    assert picked(allocate(_roots("x", "y"), [c])) == ["a=gpu-0", "b=gpu-1"]


def test_device_without_the_attribute_never_matches() -> None:
    slices = [slice_("s", [device("gpu-0"), device("gpu-1", attrs={"root": "x"})])]
    c = claim("c", request("a"), constraints=[_match()])
    assert picked(allocate(slices, [c])) == ["a=gpu-1"]


def test_distinct_attribute_needs_different_values() -> None:
    c = claim(
        "c", request("a", count=2), constraints=[{"distinctAttribute": "gpu.example.com/root"}]
    )
    assert picked(allocate(_roots("x", "x", "y"), [c])) == ["a=gpu-0", "a=gpu-2"]
    assert allocate(_roots("x", "x"), [c]).unschedulable


def test_distinct_attribute_compares_with_the_latest_device_of_a_request() -> None:
    c = claim(
        "c", request("a", count=3), constraints=[{"distinctAttribute": "gpu.example.com/root"}]
    )
    assert picked(allocate(_roots("x", "y", "y", "x"), [c])) == ["a=gpu-0", "a=gpu-1", "a=gpu-3"]


def _lists(*values: list[str]) -> list[dict[str, object]]:
    return [
        slice_(
            "s",
            [device(f"gpu-{i}", attrs={"roots": {"strings": v}}) for i, v in enumerate(values)],
        )
    ]


def test_list_attributes_match_by_intersection() -> None:
    c = claim(
        "c",
        request("a", count=3),
        constraints=[{"matchAttribute": "gpu.example.com/roots"}],
    )
    slices = _lists(["p", "q"], ["q", "r"], ["p"], ["q"])
    assert picked(allocate(slices, [c])) == ["a=gpu-0", "a=gpu-1", "a=gpu-3"]


def test_list_attributes_do_not_match_without_the_gate() -> None:
    c = claim("c", request("a", count=2), constraints=[{"matchAttribute": "gpu.example.com/roots"}])
    assert allocate(_lists(["p"], ["p"]), [c], features=NO_LISTS).unschedulable


def test_conservative_implementation_does_not_know_distinct_attribute() -> None:
    legacy = Features(
        consumable_capacity=False, binding_conditions=False, list_type_attributes=False
    )
    c = claim("c", request("a"), constraints=[{"distinctAttribute": "gpu.example.com/root"}])
    outcome = allocate(_roots("x"), [c], features=legacy)
    assert (
        outcome.error
        == "claim default/c, constraint #0: empty constraint (unsupported constraint type?)"
    )


def test_devices_of_one_request_are_tried_in_pool_order_only() -> None:
    # Upstream's newer implementations resume the search for a request's next device after
    # the previous one (combinations): a=(gpu-1, gpu-0), which would leave "x" as the
    # remembered value and let b take gpu-2, is never tried.
    c = claim(
        "c",
        request("a", count=2),
        request("b"),
        constraints=[{"distinctAttribute": "gpu.example.com/root"}],
    )
    assert allocate(_roots("x", "y", "y"), [c], features=NO_LISTS).unschedulable


def test_distinct_list_attributes_compare_with_the_latest_set_of_each_request() -> None:
    # b's ["p"] overlaps a's first set but not a's latest one, which is all upstream keeps.
    c = claim(
        "c",
        request("a", count=2),
        request("b"),
        constraints=[{"distinctAttribute": "gpu.example.com/roots"}],
    )
    slices = _lists(["p"], ["q"], ["p"])
    assert picked(allocate(slices, [c])) == ["a=gpu-0", "a=gpu-1", "b=gpu-2"]


def test_distinct_list_attributes_need_disjoint_sets() -> None:
    c = claim(
        "c", request("a", count=2), constraints=[{"distinctAttribute": "gpu.example.com/roots"}]
    )
    slices = _lists(["p", "q"], ["q", "r"], ["r", "s"])
    assert picked(allocate(slices, [c])) == ["a=gpu-0", "a=gpu-2"]
