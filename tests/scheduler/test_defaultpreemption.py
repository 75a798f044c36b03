"""DefaultPreemption as upstream: victims, reprieve, PDBs, ordering, DRAPreemption (KEP-5690)."""

from __future__ import annotations

from typing import Any

from sched_builders import claim, device_class, gpu, node, pod, run, slice_

from kubedra.allocator.features import Features
from kubedra.cluster.clock import SimClock
from kubedra.cluster.events import Event
from kubedra.cluster.store import Store
from kubedra.scheduler import Decision, Scheduler, SchedulerConfig
from kubedra.scheduler.defaultpreemption import DefaultPreemption


def make(*objects: dict[str, Any], dra: bool = False) -> tuple[Store, Scheduler]:
    clock = SimClock()
    store = Store(clock)
    for obj in objects:
        store.create(obj)
    features = Features(dra_preemption=dra)
    return store, Scheduler(store, clock, SchedulerConfig(features=features))


def bound(name: str, node_name: str, priority: int, cpu: str = "1", **extra: Any) -> dict[str, Any]:
    start = extra.pop("start", None)
    labels = extra.pop("labels", None)
    obj = pod(name, cpu=cpu, nodeName=node_name, priority=priority, **extra)
    obj["status"] = {"phase": "Running", "startTime": start or "2026-01-01T00:00:00Z"}
    if labels:
        obj["metadata"]["labels"] = labels
    return obj


def exists(store: Store, name: str) -> bool:
    return store.get("Pod", name, "default") is not None


def decision_of(decisions: list[Decision], name: str) -> Decision:
    return next(d for d in decisions if d.pod == f"default/{name}")


def preemptor(cpu: str = "2", priority: int = 100, **extra: Any) -> dict[str, Any]:
    return pod("high", cpu=cpu, priority=priority, **extra)


# --- victims on one node ----------------------------------------------------------------------


def test_all_lower_pods_removed_then_reprieved_highest_priority_first() -> None:
    # 4 cpus: p20 and p10 (1 each) and p5 (2). high needs 2: p20 and p10 are reprieved.
    store, scheduler = make(
        node("n1", cpu="4"),
        bound("p20", "n1", 20),
        bound("p10", "n1", 10),
        bound("p5", "n1", 5, cpu="2"),
        preemptor(),
    )
    first = run(scheduler, limit=1)[0]
    assert first.nominated == "n1"
    assert scheduler.decisions[-1].nominated == "n1"
    assert [exists(store, n) for n in ("p20", "p10", "p5")] == [True, True, False]


def test_reprieve_keeps_only_what_the_preemptor_does_not_need() -> None:
    # 3 cpus, each pod 1 cpu; high needs 2: two victims, the lowest priorities.
    store, scheduler = make(
        node("n1", cpu="3"),
        bound("a", "n1", 3),
        bound("b", "n1", 1),
        bound("c", "n1", 2),
        preemptor(),
    )
    run(scheduler, limit=1)
    assert [exists(store, n) for n in ("a", "b", "c")] == [True, False, False]


def test_equal_priority_pods_are_not_victims() -> None:
    store, scheduler = make(node("n1", cpu="2"), bound("same", "n1", 100, cpu="2"), preemptor())
    (decision,) = run(scheduler, limit=1)
    assert decision.nominated is None
    assert exists(store, "same")
    assert decision.message is not None
    assert decision.message.endswith(
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    )


def test_victims_get_disruption_target_before_deletion() -> None:
    store, scheduler = make(node("n1", cpu="2"), bound("low", "n1", 0, cpu="2"), preemptor())
    seen: list[Event] = []
    store.subscribe(seen.append)
    run(scheduler, limit=1)
    last = [e for e in seen if e.kind == "Pod" and e.obj["metadata"]["name"] == "low"]
    assert [e.type for e in last] == ["MODIFIED", "DELETED"]
    (condition,) = [
        c for c in last[0].obj["status"]["conditions"] if c["type"] == "DisruptionTarget"
    ]
    assert condition["status"] == "True"
    assert condition["reason"] == "PreemptionByScheduler"
    assert condition["message"] == (
        "default-scheduler: preempting to accommodate a higher priority pod"
    )


# --- PodDisruptionBudgets ---------------------------------------------------------------------


def pdb(name: str, app: str, allowed: int | None = None, **spec: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": app}}, **spec},
    }
    if allowed is not None:
        obj["status"] = {"disruptionsAllowed": allowed}
    return obj


def test_pdb_violating_pods_are_reprieved_first() -> None:
    # Without the PDB, y (priority 20) would be reprieved and x (10) evicted.
    store, scheduler = make(
        node("n1", cpu="2"),
        bound("x", "n1", 10, labels={"app": "db"}),
        bound("y", "n1", 20),
        preemptor(cpu="1"),
    )
    budget = pdb("db", "db", allowed=0)
    scheduler.preemption.pdb_source = lambda: [budget]
    run(scheduler, limit=1)
    assert (exists(store, "x"), exists(store, "y")) == (True, False)


def test_node_with_fewest_pdb_violations_wins() -> None:
    store, scheduler = make(
        node("n1", cpu="1"),
        node("n2", cpu="1"),
        bound("guarded", "n1", 0, labels={"app": "db"}),
        bound("free", "n2", 50),
        preemptor(cpu="1"),
    )
    budget = pdb("db", "db", minAvailable=1)  # 1 healthy pod, 1 must stay: 0 allowed
    scheduler.preemption.pdb_source = lambda: [budget]
    (decision,) = run(scheduler, limit=1)
    assert decision.nominated == "n2"
    assert (exists(store, "guarded"), exists(store, "free")) == (True, False)


# --- candidate ordering -----------------------------------------------------------------------


def two_nodes(n1: list[dict[str, Any]], n2: list[dict[str, Any]], cpu: str) -> Decision:
    _store, scheduler = make(node("n1", cpu=cpu), node("n2", cpu=cpu), *n1, *n2, preemptor())
    (decision,) = run(scheduler, limit=1)
    return decision


def test_lowest_highest_victim_priority_wins() -> None:
    decision = two_nodes([bound("a", "n1", 10, cpu="2")], [bound("b", "n2", 5, cpu="2")], "2")
    assert decision.nominated == "n2"


def test_smallest_priority_sum_counts_priorities_offset_by_int32() -> None:
    # Highest victim priority ties at -5. Raw sums (-5 vs -105) would pick n2; upstream adds
    # MaxInt32+1 to each priority, so one victim costs less than two: n1.
    decision = two_nodes(
        [bound("a", "n1", -5, cpu="2")],
        [bound("b", "n2", -5, cpu="1"), bound("c", "n2", -100, cpu="1")],
        "2",
    )
    assert decision.nominated == "n1"


def test_latest_start_time_breaks_the_tie() -> None:
    decision = two_nodes(
        [bound("old", "n1", 0, cpu="2", start="2026-01-01T00:00:00Z")],
        [bound("new", "n2", 0, cpu="2", start="2026-01-02T00:00:00Z")],
        "2",
    )
    assert decision.nominated == "n2"


def test_pick_prefers_a_candidate_without_victims() -> None:
    from kubedra.scheduler.defaultpreemption import Candidate

    a = Candidate(object(), [object()], 0)  # type: ignore[arg-type,list-item]
    b = Candidate(object(), [], 0)  # type: ignore[arg-type]
    assert DefaultPreemption.pick([a, b]) is b


# --- DRA (DRAPreemption, KEP-5690) ------------------------------------------------------------


def gpu_cluster(
    dra: bool, *extra: dict[str, Any], slice_obj: dict[str, Any] | None = None
) -> tuple[Store, Scheduler]:
    store, scheduler = make(
        node("n1"),
        device_class(),
        slice_obj or slice_("n1", [gpu("g0")]),
        claim("low-gpu"),
        pod("low", cpu="1", claims=["low-gpu"], priority=0),
        *extra,
        dra=dra,
    )
    placed = run(scheduler)
    assert placed and all(d.result == "Scheduled" for d in placed)
    store.create(claim("high-gpu"))
    store.create(pod("high", cpu="1", claims=["high-gpu"], priority=100))
    return store, scheduler


def deallocate_orphans(store: Store) -> None:
    """What the ResourceClaim controller does for claims whose consumers are gone."""
    uids = {p["metadata"]["uid"] for p in store.list("Pod")}
    for c in list(store.list("ResourceClaim")):
        status = c.get("status") or {}
        reserved = [r for r in status.get("reservedFor") or [] if r.get("uid") in uids]
        if reserved == list(status.get("reservedFor") or []):
            continue
        new = {k: v for k, v in status.items() if k not in ("reservedFor", "allocation")}
        if reserved:
            new = {**status, "reservedFor": reserved}
        store.update({**c, "status": new})


def test_gate_off_pods_holding_devices_are_not_preempted() -> None:
    store, scheduler = gpu_cluster(False)
    (decision,) = run(scheduler, limit=1)
    assert decision.nominated is None
    assert exists(store, "low")
    assert decision.message == (
        "0/1 nodes are available: 1 cannot allocate all claims. still not schedulable, "
        "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
    )


def test_gate_on_frees_the_victims_node_local_devices_and_holds_them() -> None:
    store, scheduler = gpu_cluster(True)
    (decision,) = run(scheduler, limit=1)
    assert decision.nominated == "n1"
    assert not exists(store, "low")
    # The victim's claim is still allocated: the preemptor does not preempt again.
    store.create(bound("other-low", "n1", 0, cpu="1"))
    scheduler.clock.advance(60)
    scheduler.queue.move({"DynamicResources", "NodeResourcesFit"}, scheduler._now())
    again = run(scheduler, limit=1)[0]
    assert again.pod == "default/high" and again.result == "Unschedulable"
    assert again.message is not None
    # KEP-5690 (kubernetes/enhancements#6113): deferred while the claim nomination's released
    # claims are still allocated, with the PreemptionSettling reason.
    assert again.message.endswith(
        "preemption: waiting for the claims of preempted pods to be deallocated on node n1: "
        "default/low-gpu."
    )
    high = store.get("Pod", "high", "default")
    assert high is not None
    [cond] = [c for c in high["status"]["conditions"] if c["type"] == "PodScheduled"]
    assert cond["reason"] == "PreemptionSettling"
    assert exists(store, "other-low")
    # Deallocated now; a lower-priority pod that comes first does not get the held GPU.
    deallocate_orphans(store)
    store.create(claim("mid-gpu"))
    store.create(pod("mid", cpu="1", claims=["mid-gpu"], priority=50))
    mid = run(scheduler, limit=1)[0]
    assert (mid.pod, mid.result) == ("default/mid", "Unschedulable")
    scheduler.clock.advance(60)
    decisions = run(scheduler)
    high = decision_of(decisions, "high")
    assert (high.result, high.node) == ("Scheduled", "n1")
    got = store.get("ResourceClaim", "high-gpu", "default")
    assert got is not None
    assert got["status"]["allocation"]["devices"]["results"][0]["device"] == "g0"


def test_shared_claim_is_freed_only_when_every_consumer_is_a_victim() -> None:
    keeper = pod("keeper", cpu="1", claims=["low-gpu"], priority=100)
    store, scheduler = gpu_cluster(True, keeper)
    (decision,) = run(scheduler, limit=1)
    # keeper (not lower than the preemptor) keeps the claim: removing low frees nothing.
    assert decision.nominated is None
    assert exists(store, "low")
    assert decision.message is not None
    assert decision.message.endswith(
        "preemption: 0/1 nodes are available: 1 cannot allocate all claims."
    )


def test_shared_claim_with_all_consumers_victims_is_freed() -> None:
    other = pod("low2", cpu="1", claims=["low-gpu"], priority=1)
    store, scheduler = gpu_cluster(True, other)
    (decision,) = run(scheduler, limit=1)
    assert decision.nominated == "n1"
    assert (exists(store, "low"), exists(store, "low2")) == (False, False)


def test_only_node_local_devices_are_freed() -> None:
    network = slice_("n1", [gpu("g0")])
    del network["spec"]["nodeName"]
    network["spec"]["allNodes"] = True
    network["spec"]["pool"]["name"] = "fabric"
    store, scheduler = gpu_cluster(True, slice_obj=network)
    (decision,) = run(scheduler, limit=1)
    assert decision.nominated is None
    assert exists(store, "low")


def test_claims_reserved_for_a_pod_group_are_not_freed() -> None:
    store, scheduler = gpu_cluster(True)
    c = store.get("ResourceClaim", "low-gpu", "default")
    assert c is not None
    group = {"apiGroup": "scheduling.k8s.io", "resource": "podgroups", "name": "g", "uid": "pg1"}
    status = {**c["status"], "reservedFor": [*c["status"]["reservedFor"], group]}
    store.update({**c, "status": status})
    (decision,) = run(scheduler, limit=1)
    assert decision.nominated is None
    assert exists(store, "low")


def test_preemption_policy_never_with_dra() -> None:
    store, scheduler = make(
        node("n1"),
        device_class(),
        slice_("n1", [gpu("g0")]),
        claim("low-gpu"),
        pod("low", cpu="1", claims=["low-gpu"], priority=0),
        dra=True,
    )
    run(scheduler)
    store.create(claim("high-gpu"))
    store.create(pod("high", cpu="1", claims=["high-gpu"], priority=100, preemptionPolicy="Never"))
    (decision,) = run(scheduler, limit=1)
    assert decision.message is not None
    assert decision.message.endswith("preemption: not eligible due to preemptionPolicy=Never.")
    assert exists(store, "low")


def test_explain_says_dra_preemption_is_off() -> None:
    from kubedra.scheduler.explain import explain_pod

    _store, scheduler = gpu_cluster(False)
    run(scheduler, limit=1)
    result = explain_pod(scheduler, "default", "high")
    assert result["preemption"] == (
        "DRAPreemption is off: pods holding devices are not preempted for DynamicResources "
        "(enable with --feature-gates DRAPreemption=true); lower-priority pods holding devices "
        "there: default/low on n1."
    )
    assert result["preemption"] in result["summary"]
    _, on = gpu_cluster(True)
    assert "preemption" not in explain_pod(on, "default", "high")


def test_lower_priority_nomination_on_the_chosen_node_is_cleared() -> None:
    store, scheduler = make(node("n1", cpu="2"), bound("low", "n1", 0, cpu="2"))
    waiting = store.create(pod("mid", cpu="64", priority=50))
    store.update({**waiting, "status": {**waiting["status"], "nominatedNodeName": "n1"}})
    run(scheduler, limit=1)  # mid fits nowhere, even with low gone
    store.create(preemptor())
    decision = next(d for d in run(scheduler, limit=3) if d.pod == "default/high")
    assert decision.nominated == "n1"
    mid = store.get("Pod", "mid", "default")
    assert mid is not None and "nominatedNodeName" not in mid["status"]


def test_pdb_objects_from_the_store_are_honoured() -> None:
    store, scheduler = make(
        node("n1", cpu="1"),
        node("n2", cpu="1"),
        bound("guarded", "n1", 0, labels={"app": "db"}),
        bound("free", "n2", 50),
        pdb("db", "db", maxUnavailable=0),
        preemptor(cpu="1"),
    )
    (decision,) = run(scheduler, limit=1)
    assert decision.nominated == "n2"
    assert (exists(store, "guarded"), exists(store, "free")) == (True, False)
