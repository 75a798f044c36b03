"""Fuzzing the bounds of issue 23 (items 3, 4, 11): workload counts, step durations and
claims a driver reads. Whatever the values: a decoding error, a field error or a result
within the bounds, never a Python exception; and what the checks let through never asks
for more than the bounds allow.

CI runs a fixed seed with a small budget; a long run::

    KUBEDRA_HOSTILE_FUZZ_EXAMPLES=5000 python -m pytest tests/api/test_hostile_fuzz.py -q -s

prints the counts.
"""

from __future__ import annotations

import copy
import math
import os
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubedra.api.limits import MAX_DURATION_SECONDS
from kubedra.api.workloads import check_workload, expand_pods, pod_count
from kubedra.cluster.timeline import TimelineError, parse_duration, parse_timeline
from kubedra.driver.claims import ClaimLookupError, lookup_claim
from kubedra.driver.types import ClaimRef

EXAMPLES = int(os.environ.get("KUBEDRA_HOSTILE_FUZZ_EXAMPLES", "150"))
FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
STATS: Counter[str] = Counter()

VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**64), 2**64),
    st.sampled_from([0, 1, 2**31 - 1, 2**31, -1, 100_001]),
    st.floats(),
    st.text(max_size=12),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)
WORKLOADS = [
    ("apps/v1", "Deployment", ("spec", "replicas")),
    ("apps/v1", "ReplicaSet", ("spec", "replicas")),
    ("v1", "ReplicationController", ("spec", "replicas")),
    ("apps/v1", "StatefulSet", ("spec", "replicas")),
    ("apps/v1", "StatefulSet", ("spec", "ordinals", "start")),
    ("batch/v1", "Job", ("spec", "parallelism")),
    ("batch/v1", "Job", ("spec", "completions")),
    ("batch/v1", "Job", ("spec", "suspend")),
    ("batch/v1", "Job", ("spec", "completionMode")),
    ("apps/v1", "Deployment", ("status", "collisionCount")),
]


def _put(obj: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    for key in path[:-1]:
        if not isinstance(obj.get(key), dict):
            obj[key] = {}
        obj = obj[key]
    obj[path[-1]] = value


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(WORKLOADS), VALUES), min_size=1, max_size=4))
def test_workload_counts_are_refused_or_within_int32(fields: list[Any]) -> None:
    (api_version, kind, _), _ = fields[0]
    workload: dict[str, Any] = {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": "w", "namespace": "default"},
        "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x"}]}}},
    }
    for (version, other_kind, path), value in fields:
        if (version, other_kind) == (api_version, kind):
            _put(workload, path, value)
    check = check_workload(copy.deepcopy(workload))
    STATS["workloads"] += 1
    if check.decode_error is not None or check.errors:
        STATS["refused workloads"] += 1
        return
    count = pod_count(workload)
    assert 0 <= count <= 2**31 - 1, workload
    if count <= 50:
        assert len(expand_pods(workload)) == count


@FUZZ
@given(st.one_of(VALUES, st.text(alphabet="0123456789.eE+-hmsu ", max_size=25)))
def test_durations_are_refused_or_within_go_durations(value: Any) -> None:
    STATS["durations"] += 1
    try:
        seconds = parse_duration(value, "x")
    except TimelineError as error:
        assert str(error).startswith("x: ")
        STATS["refused durations"] += 1
        return
    assert math.isfinite(seconds) and 0 <= seconds <= MAX_DURATION_SECONDS


@FUZZ
@given(st.lists(st.fixed_dictionaries({"wait": VALUES}), max_size=6))
def test_timelines_let_at_most_one_duration_pass(steps: list[dict[str, Any]]) -> None:
    try:
        parsed = parse_timeline(steps, "t.yaml")
    except TimelineError:
        return
    assert len(parsed) == len(steps)


class _OneClaim:
    def __init__(self, claim: Any) -> None:
        self.claim = claim

    def get_resource_claim(self, namespace: str, name: str) -> Any:
        return self.claim


_CLAIM_PATHS = [
    ("status",),
    ("status", "allocation"),
    ("status", "allocation", "devices"),
    ("status", "allocation", "devices", "config"),
    ("status", "allocation", "devices", "results"),
    ("metadata", "uid"),
    ("spec",),
    ("apiVersion",),
    ("kind",),
]


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(_CLAIM_PATHS), VALUES), max_size=3))
def test_a_driver_gets_a_decoded_claim_or_that_claims_error(changes: list[Any]) -> None:
    claim: dict[str, Any] = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "c", "namespace": "default", "uid": "uid-c"},
        "spec": {"devices": {"requests": []}},
        "status": {
            "allocation": {
                "devices": {
                    "results": [
                        {"request": "r", "driver": "d.example.com", "pool": "p", "device": "g"}
                    ]
                }
            }
        },
    }
    for path, value in changes:
        _put(claim, path, value)
    STATS["claims"] += 1
    try:
        prepared = lookup_claim(
            _OneClaim(claim), ClaimRef("default", "c", "uid-c"), "d.example.com"
        )
    except ClaimLookupError:
        STATS["refused claims"] += 1
        return
    assert prepared.claim["kind"] == "ResourceClaim"


def test_zz_report_counts() -> None:
    """Runs last in this module: the inputs fed (``-s``)."""
    print(f"\nhostile-input fuzz: {dict(sorted(STATS.items()))}")
    assert STATS["workloads"] >= min(EXAMPLES, 100)
