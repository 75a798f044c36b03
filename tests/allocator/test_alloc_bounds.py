"""The search is bounded in time (upstream's filterTimeout) and pruned where it cannot win."""

from __future__ import annotations

import time
from pathlib import Path

import hard_cases
import pytest
from alloc_builders import picked

from kubedra.allocator.engine import Allocator, Outcome
from kubedra.allocator.features import Features
from kubedra.allocator.search import ABORTED, DEFAULT_TIMEOUT


def _run(case: hard_cases.Case, **options: object) -> tuple[Outcome, float]:
    inputs, target, claims = case
    allocator = Allocator(Features(), inputs["classes"], inputs["slices"], **options)  # type: ignore[arg-type]
    start = time.perf_counter()
    outcome = allocator.allocate(target, claims)
    return outcome, time.perf_counter() - start


@pytest.mark.parametrize(
    "build",
    [
        hard_cases.three_claims_then_unsatisfiable,
        hard_cases.subrequests_with_last_unsatisfiable,
        hard_cases.six_of_identical_then_unsatisfiable,
    ],
)
def test_unsatisfiable_inputs_are_answered_quickly(build: object) -> None:
    outcome, seconds = _run(build())  # type: ignore[operator]
    assert outcome.unschedulable, outcome
    assert seconds < 1.0


def test_two_claims_over_a_search_heavy_case(shared_dir: Path) -> None:
    outcome, seconds = _run(hard_cases.two_claims_over_search_case(shared_dir))
    assert seconds < 1.0
    # The second claim cannot get 32 of the 25 devices left, so it takes 4 + 5 as the first.
    assert picked(outcome, 1) == [f"bulk/modest=gpu-{i:02d}" for i in range(9, 13)] + [
        f"side=gpu-{i:02d}" for i in range(13, 18)
    ]


def test_a_long_search_is_aborted_with_upstreams_error() -> None:
    outcome, seconds = _run(hard_cases.three_claims_then_unsatisfiable(), timeout=0.2, prune=False)
    assert outcome.error == ABORTED == "filter operation aborted: context deadline exceeded"
    assert outcome.timed_out and not outcome.node_local
    assert 0.2 <= seconds < 1.5


def test_the_bound_can_be_set_per_call_and_defaults_to_upstreams() -> None:
    inputs, target, claims = hard_cases.six_of_identical_then_unsatisfiable()
    allocator = Allocator(Features(), inputs["classes"], inputs["slices"], prune=False)
    assert allocator.timeout == DEFAULT_TIMEOUT == 10.0
    start = time.perf_counter()
    assert allocator.allocate(target, claims, timeout=0.1).timed_out
    assert time.perf_counter() - start < 1.0
