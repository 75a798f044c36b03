"""Claim nominations (KEP-5690 as kubernetes/enhancements#6113 designs it, review of 2026-09:
"Claim nomination"): the devices DRA preemption freed are held for the preemptor, against pods
of its priority or lower, for five minutes at most, and dropped with the preemptor's
``nominatedNodeName``; PodGroup pods get no devices freed."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sched_builders import claim, device_class, gpu, node, pod, run, slice_

from kubedra.allocator.features import Features
from kubedra.cluster.clock import SimClock
from kubedra.cluster.store import Store
from kubedra.scheduler import Scheduler, SchedulerConfig
from kubedra.scheduler.explain import explain_pod
from kubedra.scheduler.nominations import NOMINATION_TTL


def low_holds_the_gpu() -> tuple[Store, Scheduler]:
    """n1's only GPU allocated to ``low`` (priority 0), DRAPreemption on."""
    clock = SimClock()
    store = Store(clock)
    for obj in (
        node("n1"),
        device_class(),
        slice_("n1", [gpu("g0")]),
        claim("low-gpu"),
        pod("low", cpu="1", claims=["low-gpu"], priority=0),
    ):
        store.create(obj)
    scheduler = Scheduler(store, clock, SchedulerConfig(features=Features(dra_preemption=True)))
    run(scheduler)
    store.create(claim("high-gpu"))
    return store, scheduler


def preempted() -> tuple[Store, Scheduler]:
    """``high`` (priority 100) preempts ``low``. Nothing deallocates the victim's claim here
    (no ResourceClaim controller)."""
    store, scheduler = low_holds_the_gpu()
    store.create(pod("high", cpu="1", claims=["high-gpu"], priority=100))
    (decision,) = run(scheduler, limit=1)
    assert decision.nominated == "n1"
    return store, scheduler


def deallocate(store: Store, name: str) -> None:
    got = store.get("ResourceClaim", name, "default")
    assert got is not None
    status = {k: v for k, v in got["status"].items() if k not in ("allocation", "reservedFor")}
    store.update({**got, "status": status})


def arrive(store: Store, name: str, priority: int) -> dict[str, Any]:
    store.create(claim(f"{name}-gpu"))
    return store.create(pod(name, cpu="1", claims=[f"{name}-gpu"], priority=priority))


def test_nomination_records_node_released_claims_and_expiry() -> None:
    _store, scheduler = preempted()
    nomination = scheduler.preemption.nominations.get("default/high")
    assert nomination is not None
    assert nomination.node == "n1"
    assert list(nomination.released.values()) == ["default/low-gpu"]
    assert [r["device"] for r in nomination.results] == ["g0"]
    assert nomination.expires == scheduler.clock.now() + NOMINATION_TTL
    assert scheduler.next_wakeup() == nomination.expires


def test_held_devices_stay_available_to_higher_priority_pods() -> None:
    """The held capacity "remains available to pods of higher priority"; a pod of lower
    priority than the preemptor does not get it."""
    store, scheduler = preempted()
    deallocate(store, "low-gpu")
    arrive(store, "mid", 50)
    mid = run(scheduler, limit=1)[0]
    assert (mid.pod, mid.result) == ("default/mid", "Unschedulable")
    arrive(store, "urgent", 200)
    urgent = next(d for d in run(scheduler) if d.pod == "default/urgent")
    assert (urgent.result, urgent.node) == ("Scheduled", "n1")


def test_the_preemptor_gets_its_devices_and_the_nomination_ends_when_bound() -> None:
    store, scheduler = preempted()
    deallocate(store, "low-gpu")
    scheduler.clock.advance(10)
    high = next(d for d in run(scheduler) if d.pod == "default/high")
    assert (high.result, high.node) == ("Scheduled", "n1")
    assert scheduler.preemption.nominations.get("default/high") is None


def test_an_expired_nomination_ends_the_deferral_and_requeues_the_preemptor() -> None:
    _store, scheduler = preempted()
    nominations = scheduler.preemption.nominations
    expires = nominations.get("default/high").expires  # type: ignore[union-attr]
    scheduler.clock.advance_to(expires - timedelta(seconds=1))
    scheduler.queue.move({"DynamicResources"}, scheduler._now())
    settling = run(scheduler, limit=1)[0]
    assert settling.message is not None and "waiting for the claims" in settling.message
    scheduler.clock.advance_to(expires)
    assert scheduler.has_work()  # the expiry requeued the preemptor
    assert nominations.get("default/high") is None
    after = run(scheduler, limit=1)[0]
    assert after.pod == "default/high"
    assert after.message is not None and "waiting for the claims" not in after.message


def test_losing_the_nominated_node_drops_the_claim_nomination() -> None:
    """ "A claim nomination never exists without a corresponding nominatedNodeName"."""
    store, scheduler = preempted()
    high = store.get("Pod", "high", "default")
    assert high is not None and high["status"]["nominatedNodeName"] == "n1"
    status = {k: v for k, v in high["status"].items() if k != "nominatedNodeName"}
    store.update({**high, "status": status})
    assert scheduler.preemption.nominations.get("default/high") is None
    deallocate(store, "low-gpu")
    arrive(store, "mid", 50)
    mid = next(d for d in run(scheduler) if d.pod == "default/mid")
    assert mid.result == "Scheduled"  # nothing is held any more


def test_pod_group_preemptors_free_no_devices() -> None:
    """KEP-5690: pods of a PodGroup go through workload-aware preemption; the plugin frees
    no devices for them."""
    store, scheduler = low_holds_the_gpu()
    member = pod("high", cpu="1", claims=["high-gpu"], priority=100)
    member["spec"]["schedulingGroup"] = {"podGroupName": "g"}
    store.create(
        {
            "apiVersion": "scheduling.k8s.io/v1beta1",
            "kind": "PodGroup",
            "metadata": {"name": "g", "namespace": "default"},
            "spec": {"schedulingPolicy": {"basic": {}}},
        }
    )
    store.create(member)
    (decision,) = run(scheduler, limit=1)
    assert decision.nominated is None
    assert store.get("Pod", "low", "default") is not None


def test_explain_shows_the_nomination() -> None:
    _store, scheduler = preempted()
    lines = explain_pod(scheduler, "default", "high")["summary"]
    assert (
        "claim nomination on n1: gpu.example.com/n1/g0 held for this pod (expires in 300s); "
        "preemption settling: waiting for default/low-gpu to be deallocated."
    ) in lines
