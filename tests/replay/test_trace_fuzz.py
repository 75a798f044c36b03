"""Generated traces: reading one gives entries or a TraceError naming the entry, never another
exception; the entries it accepts replay without one. Derandomized; about 600 inputs in CI
(``HYPOTHESIS_PROFILE=fuzz`` runs ten times as many, see tests/conftest.py)."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from replay_builders import gpu_nodes, pod

from kubedra.replay import Replay, TraceError, parse_trace
from kubedra.scheduler import new_simulation

FUZZ = settings(deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
SCALE = max(1, settings.default.max_examples // 100)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.sampled_from(["0s", "90s", "5m", "1h", "1d", "-1h", ".inf", "1e999", "node-a", "gpu-0"]),
)
keys = st.sampled_from(
    [
        "at",
        "duration",
        "count",
        "restart",
        "objects",
        "file",
        "cordon",
        "drain",
        "delete",
        "taint",
        "untaint",
        "create",
        "add-nodes",
        "condition",
        "metadata",
        "spec",
        "name",
    ]
) | st.text(max_size=5)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=8,
)
GOOD = {"at": "0s", "duration": "1h", "objects": [pod("p")]}
ACTIONS = [
    {"at": "30m", "cordon": "node-a"},
    {"at": "1h", "drain": "node-b"},
    {"at": "2h", "taint": {"device": "gpu-0", "key": "k"}},
    {"at": "3h", "delete": {"kind": "Pod", "name": "p"}},
]


@FUZZ
@given(st.lists(values, max_size=4))
def test_random_entries_read_or_fail_with_a_trace_error(data: list[Any]) -> None:
    try:
        parse_trace(data, "t.yaml")
    except TraceError as error:
        assert str(error).startswith("t.yaml")


@st.composite
def mutated(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A working trace with one field somewhere replaced by a random value."""
    entries = [copy.deepcopy(GOOD), *copy.deepcopy(ACTIONS)]
    entry = draw(st.sampled_from(entries))
    key = draw(st.sampled_from(sorted(entry)))
    target: Any = entry
    if isinstance(entry[key], dict) and draw(st.booleans()):
        target = entry[key]
        key = draw(st.sampled_from(sorted(target)))
    target[key] = draw(values)
    return entries


@FUZZ
@given(mutated())
def test_mutated_traces_replay_or_fail_with_a_trace_error(entries: list[dict[str, Any]]) -> None:
    try:
        trace = parse_trace(entries, "t.yaml")
    except TraceError as error:
        assert str(error).startswith("t.yaml: ")
        return
    sim = new_simulation()
    assert sim.load(gpu_nodes("node-a", "node-b")) == []
    state = Replay(sim, trace, until=86400 * SCALE).run()
    assert state.end <= 86400 * SCALE
