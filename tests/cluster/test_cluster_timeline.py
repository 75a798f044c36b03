"""Timeline files: parsing, clear errors, and steps applied on the simulated clock."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from cluster_builders import claim, device_class, gpu_slice, node, pod

from kubedra.cluster.simulation import Simulation
from kubedra.cluster.timeline import (
    TimelineError,
    load_timeline,
    parse_duration,
    parse_timeline,
)
from kubedra.scheduler import new_simulation


def test_durations() -> None:
    assert parse_duration(30, "x") == 30
    assert parse_duration("90s", "x") == 90
    assert parse_duration("5m", "x") == 300
    assert parse_duration("1.5h", "x") == 5400
    with pytest.raises(TimelineError, match="x: not a duration"):
        parse_duration("soon", "x")
    assert parse_duration("1d", "x") == 86400
    assert parse_duration("250ms", "x") == 0.25


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (float("inf"), "is longer than a duration may be"),
        ("99999999999999999999h", "is longer than a duration may be"),
        (10**400, "is longer than a duration may be"),
        (float("nan"), "x: not a duration: nan"),
        (-1, "x: must not be negative"),
    ],
)
def test_durations_are_bounded_as_go_time_duration(value: Any, message: str) -> None:
    """Infinite, NaN and overlong durations are errors naming the field, not clock overflows."""
    with pytest.raises(TimelineError, match=re.escape(message)):
        parse_duration(value, "x")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"nope": 1}, "a timeline is a list of steps"),
        ([{"cordon": "a", "uncordon": "a"}], "step 1: needs exactly one of"),
        ([{"taint": {"device": "g0"}}], "step 1.taint.key: required"),
        ([{"delete": {"kind": "Widget", "name": "w"}}], "unsupported kind 'Widget'"),
        (
            [{"create": {"apiVersion": "v1", "kind": "Pod", "spec": {"containers": "x"}}}],
            'step 1.create: Pod "" cannot be decoded: spec.containers: expected array',
        ),
        (
            [{"create": [{"apiVersion": "v9", "kind": "Pod"}]}],
            'create[0]: no matches for kind "Pod"',
        ),
        ([{"condition": {"claim": "c", "device": "d", "type": "t", "status": "yes"}}], "status"),
    ],
)
def test_errors_name_the_step_and_field(data: Any, message: str) -> None:
    with pytest.raises(TimelineError, match=re.escape(message)):
        parse_timeline(data, "t.yaml")


def run(sim: Simulation, steps: list[dict[str, Any]]) -> None:
    parsed = parse_timeline(steps)
    for i, step in enumerate(parsed):

        def action(s: Simulation, step: Any = step) -> None:
            s.clock.advance(step.after)
            step.action(s)

        sim.apply(action, step.description, parsed[i + 1].after if i + 1 < len(parsed) else None)


def test_untaint_before_the_toleration_ends_cancels_the_eviction() -> None:
    toleration = {"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
    sim = new_simulation()
    objects = [node("n1"), device_class(), gpu_slice("n1", "g0"), claim("c", [toleration])]
    assert sim.load([*objects, pod("p", claim="c")]) == []
    sim.run()
    run(
        sim,
        [{"taint": {"name": "r", "device": "g0", "key": "k"}}, {"after": "100s", "untaint": "r"}],
    )
    kept = sim.store.get("Pod", "p", "default")
    assert kept is not None and kept["status"]["phase"] == "Running"
    assert sim.taint_controller.evicted == []
    assert sim.taint_controller.next_wakeup() is None


@pytest.mark.parametrize(("seconds", "waited"), [(300, 300), (2**63 - 1, 0)])
def test_taint_without_untaint_evicts_at_the_toleration_end(seconds: int, waited: int) -> None:
    """A toleration of 2**63 - 1 seconds overflowed the clock; upstream's
    ``time.Duration(s) * time.Second`` wraps to -1 s, so the pod is evicted at once."""
    toleration = {
        "key": "k",
        "operator": "Exists",
        "effect": "NoExecute",
        "tolerationSeconds": seconds,
    }
    sim = new_simulation()
    objects = [node("n1"), device_class(), gpu_slice("n1", "g0"), claim("c", [toleration])]
    assert sim.load([*objects, pod("p", claim="c")]) == []
    sim.run()
    start = sim.clock.now()
    run(sim, [{"taint": {"name": "r", "device": "g0", "key": "k"}}])
    assert sim.store.get("Pod", "p", "default") is None
    assert (sim.clock.now() - start).total_seconds() == waited


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: &a [x, x, x, x, x, x, x, x, x]\n"
         + "".join(f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
                   for p, c in zip("abcdefgh", "bcdefghi", strict=True)),
         "YAML document contains excessive aliasing"),
        ("- wait: 1s\n---\n- wait: 2s\n", "one YAML document of steps, not 2"),
        ("- wait: [1s\n", "YAML syntax error"),
    ],
)  # fmt: skip
def test_step_files_are_read_as_manifests_are(tmp_path: Path, text: str, message: str) -> None:
    """The bounded reader: an alias bomb is refused in linear time, not expanded."""
    path = tmp_path / "t.yaml"
    path.write_text(text)
    with pytest.raises(TimelineError, match=re.escape(message)):
        load_timeline(path)


def test_a_fifo_is_not_read_as_a_step_file(tmp_path: Path) -> None:
    fifo = tmp_path / "t.yaml"
    os.mkfifo(fifo)
    with pytest.raises(TimelineError, match="not a regular file"):
        load_timeline(fifo)
