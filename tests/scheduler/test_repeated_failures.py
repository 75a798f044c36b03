"""A failed attempt that repeats one since which nothing changed gets the same answer."""

from __future__ import annotations

from sched_builders import cluster, node, pod, run


def conditions(store, name: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    found = store.get("Pod", name, "default")
    return {c["type"]: c.get("message") for c in found["status"].get("conditions") or []}


def test_pods_alike_get_the_same_failure_until_the_cluster_changes() -> None:
    store, scheduler = cluster(node("n1", cpu="1"), pod("a", cpu="2"), pod("b", cpu="2"))
    first, second = run(scheduler)
    assert (first.pod, second.pod) == ("default/a", "default/b")
    # 2 CPUs exceed n1's allocatable: NodeResourcesFit says unresolvable, so preemption
    # is not tried on n1 (upstream since 1.31).
    message = (
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
        "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
    )
    for decision in (first, second):
        assert decision.result == "Unschedulable"
        assert decision.message == message
        assert decision.rejections == {"Insufficient cpu": 1}
        assert decision.filter_reasons == {"n1": ("NodeResourcesFit", "Insufficient cpu")}
        assert decision.evaluated_nodes == 1
    assert conditions(store, "b")["PodScheduled"] == message
    store.create(node("n2", cpu="4"))
    placed = run(scheduler)
    assert sorted((d.pod, d.node) for d in placed) == [("default/a", "n2"), ("default/b", "n2")]


def test_priority_and_preemption_policy_are_part_of_what_repeats() -> None:
    never = pod("never", cpu="2", priority=10, preemptionPolicy="Never")
    _, scheduler = cluster(node("n1", cpu="1"), pod("a", cpu="2"), never)
    decisions = {d.pod: d.message for d in run(scheduler)}
    assert decisions["default/never"] == (
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
        "preemption: not eligible due to preemptionPolicy=Never."
    )
    assert decisions["default/a"] != decisions["default/never"]
