"""A pod whose scheduling fails with an error (not a rejection) is retried by upstream's error
backoff forever; a replay must still end, and its clock must not step through those retries
one by one when nothing changes between them."""

from __future__ import annotations

from typing import Any

from replay_builders import gpu_nodes, one_gpu_template, pod, replay


def _too_many_devices() -> dict[str, Any]:
    """A template asking for more devices than a claim may ever hold (32): every Filter
    fails with an error, as upstream's allocator does."""
    template = one_gpu_template("many")
    exactly = template["spec"]["spec"]["devices"]["requests"][0]["exactly"]
    exactly.update(allocationMode="ExactCount", count=33)
    return template


ENTRIES = [
    {"at": "0s", "objects": [pod("bad", template="many")]},
    {"at": "0s", "duration": "1h", "objects": [pod("good")]},
]


def test_a_replay_with_a_pod_that_always_errors_ends() -> None:
    state = replay([*gpu_nodes("node-a"), _too_many_devices()], ENTRIES)
    # It ends with the last real event (the good pod's end) and the retry that follows it.
    assert 3600 <= state.end <= 3600 + 10
    by_name = {r.name: r for r in state.records}
    assert by_name["good"].to_dict()["finished"] == 3600
    assert by_name["bad"].to_dict()["bound"] is None


def test_futile_error_retries_are_no_moments_of_their_own() -> None:
    state = replay([*gpu_nodes("node-a"), _too_many_devices()], ENTRIES, until=86400)
    assert state.end == 86400
    # Before: one sample every 10 s of the day (8,600 and more); now the moments that change
    # something, the first retries and the end.
    assert len(state.series) < 20
