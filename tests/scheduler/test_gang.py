"""Gang placement: upstream's greedy order versus kubedra's backtracking (--gang backtrack)."""

from __future__ import annotations

from typing import Any

from sched_builders import claim, cluster, device_class, gpu, node, pod, run, slice_

from kubedra.cluster.store import Store
from kubedra.scheduler import Scheduler
from kubedra.scheduler.gang import GangPlanner


def idle_cluster() -> tuple[Store, Scheduler, list[dict[str, Any]]]:
    """n1 has two GPUs, n2 one. Pod a wants one GPU, pod b two on one node."""
    store, scheduler = cluster(
        node("n1"),
        node("n2"),
        device_class(),
        slice_("n1", [gpu("g0"), gpu("g1")]),
        slice_("n2", [gpu("g0")]),
        claim("a-gpu"),
        claim("b-gpu", count=2),
    )
    pods = [pod("a", cpu="1", claims=["a-gpu"]), pod("b", cpu="1", claims=["b-gpu"])]
    created = [store.create(p) for p in pods]
    return store, scheduler, created


def test_greedy_order_fails_on_an_idle_cluster() -> None:
    _, scheduler, pods = idle_cluster()
    result = GangPlanner(scheduler).plan("train", pods, min_count=2, mode="greedy")
    # a takes the first best-scored node (n1, tied with n2); then b finds no node with 2 GPUs.
    assert not result.admitted
    assert result.message == (
        "gang train: fewer than minCount 2 of 2 pods can be placed; pod default/b: "
        "0/2 nodes are available: 2 cannot allocate all claims."
    )


def test_backtracking_revisits_the_earlier_pod_and_places_the_gang() -> None:
    store, scheduler, pods = idle_cluster()
    planner = GangPlanner(scheduler)
    result = planner.plan("train", pods, min_count=2, mode="backtrack")
    assert result.admitted
    assert result.placements is not None
    assert [(p.pod, p.node) for p in result.placements] == [
        ("default/a", "n2"),
        ("default/b", "n1"),
    ]
    assert result.steps == 3  # a->n1 (b fails), a->n2, b->n1
    decisions = planner.admit(result)
    assert [(d.pod, d.result, d.node) for d in decisions] == [
        ("default/a", "Scheduled", "n2"),
        ("default/b", "Scheduled", "n1"),
    ]
    b = store.get("Pod", "b", "default")
    assert b is not None and b["spec"]["nodeName"] == "n1"
    b_claim = store.get("ResourceClaim", "b-gpu", "default")
    assert b_claim is not None
    results = b_claim["status"]["allocation"]["devices"]["results"]
    assert sorted(r["device"] for r in results) == ["g0", "g1"]


def test_planning_leaves_the_state_as_it_was() -> None:
    _, scheduler, pods = idle_cluster()
    planner = GangPlanner(scheduler)
    planner.plan("train", pods, min_count=2, mode="backtrack")
    again = planner.plan("train", pods, min_count=2, mode="greedy")
    assert not again.admitted  # the same as on the untouched cluster
    assert scheduler.nodes.by_name["n1"].pods == {}


def test_step_limit_is_reported() -> None:
    _, scheduler, pods = idle_cluster()
    result = GangPlanner(scheduler, step_limit=1).plan("train", pods, 2, mode="backtrack")
    assert not result.admitted and result.limit_hit
    assert result.message == (
        "gang train: search stopped after 1 steps without placing 2 of 2 pods "
        "(the --gang-steps bound)"
    )


def test_min_count_lets_a_pod_stay_out() -> None:
    _, scheduler, pods = idle_cluster()
    result = GangPlanner(scheduler).plan("train", pods, min_count=1, mode="greedy")
    assert result.admitted and result.placements is not None
    assert [(p.pod, p.node) for p in result.placements] == [("default/a", "n1")]


def gang_cluster(
    mode: str, min_count: int = 2, version: str = "v1beta1"
) -> tuple[Store, Scheduler]:
    store, scheduler = cluster(
        node("n1"),
        node("n2"),
        device_class(),
        slice_("n1", [gpu("g0"), gpu("g1")]),
        slice_("n2", [gpu("g0")]),
        claim("a-gpu"),
        claim("b-gpu", count=2),
        {
            "apiVersion": f"scheduling.k8s.io/{version}",
            "kind": "PodGroup",
            "metadata": {"name": "g", "namespace": "default"},
            "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}},
        },
        gang=mode,
    )
    for name in ("a", "b"):
        obj = pod(name, cpu="1", claims=[f"{name}-gpu"])
        obj["spec"]["schedulingGroup"] = {"podGroupName": "g"}
        store.create(obj)
    return store, scheduler


def test_scheduler_gang_all_or_nothing_by_default() -> None:
    store, scheduler = gang_cluster("upstream")
    decisions = run(scheduler)
    assert {d.result for d in decisions} == {"Unschedulable"}
    for name in ("a", "b"):
        got = store.get("Pod", name, "default")
        assert got is not None and not got["spec"].get("nodeName")
        (cond,) = [c for c in got["status"]["conditions"] if c["type"] == "PodScheduled"]
        assert cond["message"].startswith("gang default/g: fewer than minCount 2 of 2 pods")
    a_claim = store.get("ResourceClaim", "a-gpu", "default")
    assert a_claim is not None and "allocation" not in (a_claim.get("status") or {})


def test_scheduler_gang_backtrack_binds_every_pod() -> None:
    store, scheduler = gang_cluster("backtrack")
    run(scheduler)
    # One cycle admits the whole gang; the other pod's decision is recorded alongside.
    assert sorted((d.pod, d.result, d.node) for d in scheduler.decisions) == [
        ("default/a", "Scheduled", "n2"),
        ("default/b", "Scheduled", "n1"),
    ]
    b = store.get("Pod", "b", "default")
    assert b is not None and b["spec"]["nodeName"] == "n1"


def test_scheduler_gang_waits_for_min_count_pods() -> None:
    _store, scheduler = gang_cluster("backtrack", min_count=3)
    decisions = run(scheduler)
    assert decisions[0].message == (
        "pod group default/g: 2 of minCount 3 pods exist; waiting for the rest"
    )
    assert all(d.result == "Unschedulable" for d in decisions)


def test_missing_pod_group_is_reported() -> None:
    store, scheduler = cluster(node("n1"))
    obj = pod("a", cpu="1")
    obj["spec"]["schedulingGroup"] = {"podGroupName": "nope"}
    store.create(obj)
    (decision,) = run(scheduler)
    assert decision.message == 'podgroup.scheduling.k8s.io "nope" not found'


def group_conditions(store: Store) -> list[tuple[str, str, str]]:
    group = store.get("PodGroup", "g", "default")
    assert group is not None
    return [
        (c["type"], c["status"], c["reason"])
        for c in (group.get("status") or {}).get("conditions") or []
    ]


def test_pod_group_condition_follows_the_release_version() -> None:
    """kubernetes/kubernetes#137611: the scheduler sets ``PodGroupScheduled`` (1.36,
    v1alpha2) False/Unschedulable when the gang cannot be placed; 1.37's v1beta1 renames it
    ``PodGroupInitiallyScheduled`` (k8s.io/api scheduling/v1beta1/types.go)."""
    store, scheduler = gang_cluster("upstream", version="v1alpha2")
    run(scheduler)
    assert group_conditions(store) == [("PodGroupScheduled", "False", "Unschedulable")]
    store, scheduler = gang_cluster("upstream")
    run(scheduler)
    assert group_conditions(store) == [("PodGroupInitiallyScheduled", "False", "Unschedulable")]
    group = store.get("PodGroup", "g", "default")
    assert group is not None
    [condition] = group["status"]["conditions"]
    assert condition["message"].startswith("gang default/g: fewer than minCount 2 of 2 pods")


def test_pod_group_condition_turns_true_and_stays_true() -> None:
    """Once True the condition is terminal (``PodGroupInitiallyScheduled`` doc comment)."""
    store, scheduler = gang_cluster("backtrack")
    run(scheduler)
    assert group_conditions(store) == [("PodGroupInitiallyScheduled", "True", "Scheduled")]
    store.create(claim("c-gpu", count=3))  # more GPUs than any node has
    late = pod("c", cpu="1", claims=["c-gpu"])
    late["spec"]["schedulingGroup"] = {"podGroupName": "g"}
    store.create(late)
    [decision] = run(scheduler)
    assert decision.result == "Unschedulable"
    assert group_conditions(store) == [("PodGroupInitiallyScheduled", "True", "Scheduled")]
