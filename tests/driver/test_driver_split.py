"""Slice splitting at the API limits."""

from __future__ import annotations

from kubedra.driver.split import split_pool


def plain(n: int, start: int = 0) -> list[dict]:
    return [{"name": f"dev-{i}"} for i in range(start, start + n)]


def tainted(n: int, start: int = 0) -> list[dict]:
    return [
        {"name": f"t-{i}", "taints": [{"key": "k", "effect": "NoSchedule"}]}
        for i in range(start, start + n)
    ]


def consuming(n: int) -> list[dict]:
    return [
        {"name": f"c-{i}", "consumesCounters": [{"counterSet": "cs", "counters": {"m": {}}}]}
        for i in range(n)
    ]


def sizes(devices: list[dict], counters: list[dict] | None = None) -> list[tuple[int, int]]:
    return [(len(s.devices), len(s.shared_counters)) for s in split_pool(devices, counters)]


def test_plain_devices_fill_slices_of_128():
    assert sizes(plain(128)) == [(128, 0)]
    assert sizes(plain(129)) == [(128, 0), (1, 0)]
    assert sizes(plain(256)) == [(128, 0), (128, 0)]


def test_taints_or_counter_consumption_limit_a_slice_to_64():
    assert sizes(tainted(64)) == [(64, 0)]
    assert sizes(tainted(65)) == [(64, 0), (1, 0)]
    assert sizes(consuming(129)) == [(64, 0), (64, 0), (1, 0)]


def test_a_restricted_device_closes_a_large_plain_slice():
    devices = plain(100) + tainted(1) + plain(63, start=100)
    assert sizes(devices) == [(100, 0), (64, 0)]
    names = [d["name"] for s in split_pool(devices) for d in s.devices]
    assert names == [d["name"] for d in devices]  # order is priority and is kept


def test_counter_sets_get_their_own_slices_first_eight_at_most():
    counters = [{"name": f"cs-{i}", "counters": {}} for i in range(9)]
    assert sizes(plain(3), counters) == [(0, 8), (0, 1), (3, 0)]


def test_an_empty_pool_still_gets_one_empty_slice():
    assert sizes([]) == [(0, 0)]
    assert sizes([], [{"name": "cs", "counters": {}}]) == [(0, 1)]
