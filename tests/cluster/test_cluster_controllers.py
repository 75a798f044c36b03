"""Claim controller, taint eviction and kubelet through the simulation loop (stand-in scheduler)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from cluster_builders import claim, device_class, gpu_slice, node, pod, taint_rule, template
from standin_scheduler import StandInScheduler

from kubedra.cluster import DELETE_PROTECTION_FINALIZER
from kubedra.cluster.claimcontroller import generate_name
from kubedra.cluster.simulation import Simulation
from kubedra.scheduler import scheduler_factory


@pytest.fixture(params=["stand-in", "kube-scheduler"], autouse=True)
def scheduler_kind(request: pytest.FixtureRequest) -> str:
    """Every test runs with the trivial stand-in and with kubedra.scheduler."""
    SCHEDULER[0] = request.param
    return str(request.param)


SCHEDULER = ["stand-in"]


def simulate(*objects: dict[str, Any], seed: int | None = None) -> Simulation:
    factory = StandInScheduler if SCHEDULER[0] == "stand-in" else scheduler_factory()
    sim = Simulation(scheduler_factory=factory, seed=seed)
    assert sim.load(objects) == []
    sim.run()
    return sim


def get(sim: Simulation, kind: str, name: str) -> dict[str, Any]:
    obj = sim.store.get(kind, name, "default")
    assert obj is not None, f"{kind} {name} is missing"
    return obj


def cluster(*devices: str, taints: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    return [node("n1"), device_class(), gpu_slice("n1", *devices, taints=taints)]


def test_template_claim_is_generated_owned_annotated_and_recorded() -> None:
    sim = simulate(*cluster("g0"), template("t", labels={"team": "ml"}), pod("train", template="t"))
    train = get(sim, "Pod", "train")
    [generated] = sim.store.list("ResourceClaim")
    meta = generated["metadata"]
    assert meta["name"].startswith("train-gpu-") and len(meta["name"]) == len("train-gpu-") + 5
    assert meta["annotations"] == {"resource.kubernetes.io/pod-claim-name": "gpu"}
    assert meta["labels"] == {"team": "ml"}
    assert meta["ownerReferences"] == [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "name": "train",
            "uid": train["metadata"]["uid"],
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    assert train["status"]["resourceClaimStatuses"] == [
        {"name": "gpu", "resourceClaimName": meta["name"]}
    ]
    assert train["spec"]["nodeName"] == "n1"
    assert train["status"]["phase"] == "Running"
    assert generated["status"]["reservedFor"][0]["uid"] == train["metadata"]["uid"]


def test_generated_names_are_seeded() -> None:
    def name(seed: int) -> str:
        sim = simulate(*cluster("g0"), template("t"), pod("p", template="t"), seed=seed)
        return str(sim.store.list("ResourceClaim")[0]["metadata"]["name"])

    assert name(7) == name(7)
    assert name(7) != name(8)


def test_generate_name_truncates_both_parts_in_proportion() -> None:
    assert generate_name("web", "gpu") == "web-gpu-"
    long_pod, long_entry = "p" * 40, "c" * 30
    name = generate_name(long_pod, long_entry)
    # 72 characters shortened to 57 in proportion: 40*57//72 and 30*57//72, no trailing dash.
    assert name == "p" * 31 + "-" + "c" * 23


def test_missing_template_is_a_warning_until_it_is_created() -> None:
    sim = simulate(*cluster("g0"), pod("p", template="later"))
    assert get(sim, "Pod", "p")["spec"].get("nodeName") is None
    [warning] = sim.controller_events
    assert warning.reason == "FailedResourceClaimCreation"
    assert warning.message == (
        'PodResourceClaim gpu: resource claim template "later": '
        'resourceclaimtemplates.resource.k8s.io "later" not found'
    )
    sim.apply(lambda s: s.store.create(template("later")), "create template")
    assert get(sim, "Pod", "p")["spec"]["nodeName"] == "n1"


def test_deleting_the_pod_deletes_its_generated_claim() -> None:
    sim = simulate(*cluster("g0"), template("t"), pod("p", template="t"))
    name = sim.store.list("ResourceClaim")[0]["metadata"]["name"]
    step = sim.apply(lambda s: s.store.delete("Pod", "p"), "delete pod")
    assert sim.store.list("ResourceClaim") == []
    changes = [(e.type, e.kind, e.obj["metadata"]["name"]) for e in step.events]
    assert ("DELETED", "ResourceClaim", name) in changes


def test_shared_claim_is_reserved_for_all_and_deallocated_after_the_last() -> None:
    sim = simulate(
        *cluster("g0"), claim("shared"), pod("a", claim="shared"), pod("b", claim="shared")
    )
    shared = get(sim, "ResourceClaim", "shared")
    assert [r["name"] for r in shared["status"]["reservedFor"]] == ["a", "b"]
    assert shared["metadata"]["finalizers"] == [DELETE_PROTECTION_FINALIZER]
    sim.apply(lambda s: s.store.delete("Pod", "a"), "delete a")
    shared = get(sim, "ResourceClaim", "shared")
    assert [r["name"] for r in shared["status"]["reservedFor"]] == ["b"]
    assert "allocation" in shared["status"]
    sim.apply(lambda s: s.store.delete("Pod", "b"), "delete b")
    shared = get(sim, "ResourceClaim", "shared")
    assert shared["status"] == {}
    assert shared["metadata"].get("finalizers") == []


def test_done_pod_releases_its_claim() -> None:
    sim = simulate(*cluster("g0"), claim("c"), pod("p", claim="c"))
    p = get(sim, "Pod", "p")
    sim.apply(
        lambda s: s.store.update(p | {"status": p["status"] | {"phase": "Succeeded"}}), "finish"
    )
    assert "allocation" not in get(sim, "ResourceClaim", "c")["status"]


def test_deleted_allocated_claim_waits_for_its_consumer() -> None:
    sim = simulate(*cluster("g0"), claim("c"), pod("p", claim="c"))
    sim.apply(lambda s: s.store.delete("ResourceClaim", "c"), "delete claim")
    assert "deletionTimestamp" in get(sim, "ResourceClaim", "c")["metadata"]
    sim.apply(lambda s: s.store.delete("Pod", "p"), "delete pod")
    assert sim.store.get("ResourceClaim", "c", "default") is None


NO_EXECUTE = {"key": "example.com/unhealthy", "value": "true", "effect": "NoExecute"}


def test_no_execute_slice_taint_evicts_after_toleration_seconds() -> None:
    toleration = {
        "key": "example.com/unhealthy",
        "operator": "Exists",
        "effect": "NoExecute",
        "tolerationSeconds": 300,
    }
    sim = simulate(*cluster("g0"), claim("c", tolerations=[toleration]), pod("p", claim="c"))
    assert get(sim, "Pod", "p")["status"]["phase"] == "Running"
    start = sim.clock.now()

    def taint(s: Simulation) -> None:
        old = s.store.get("ResourceSlice", "n1-gpus")
        assert old is not None
        s.store.delete("ResourceSlice", "n1-gpus")
        s.store.create(gpu_slice("n1", "g0", taints=[NO_EXECUTE]))

    step = sim.apply(taint, "taint g0")
    assert sim.store.get("Pod", "p", "default") is None
    assert (sim.clock.now() - start).total_seconds() == 300
    evicted = [e.obj for e in step.events if e.kind == "Pod" and e.type == "DELETED"]
    [condition] = [c for c in evicted[0]["status"]["conditions"] if c["type"] == "DisruptionTarget"]
    assert condition["reason"] == "DeletionByDeviceTaintManager"
    assert condition["message"] == "Device Taint manager: deleting due to NoExecute taint"
    assert "allocation" not in get(sim, "ResourceClaim", "c")["status"]


def test_device_taint_rule_evicts_at_once_without_toleration() -> None:
    sim = simulate(*cluster("g0", "g1"), claim("c"), pod("p", claim="c"))
    device = get(sim, "ResourceClaim", "c")["status"]["allocation"]["devices"]["results"][0]
    start = sim.clock.now()
    sim.apply(lambda s: s.store.create(taint_rule("bad", device["device"])), "taint")
    assert sim.store.get("Pod", "p", "default") is None
    assert sim.clock.now() == start
    assert sim.taint_controller.evicted == ["default/p"]


def test_no_schedule_rule_and_tolerated_forever_do_not_evict() -> None:
    forever = {"key": "example.com/unhealthy", "operator": "Exists", "effect": "NoExecute"}
    sim = simulate(*cluster("g0"), claim("c", tolerations=[forever]), pod("p", claim="c"))
    sim.apply(lambda s: s.store.create(taint_rule("ns", "g0", effect="NoSchedule")), "noschedule")
    sim.apply(lambda s: s.store.create(taint_rule("nx", "g0")), "noexecute")
    assert get(sim, "Pod", "p")["status"]["phase"] == "Running"
    assert sim.taint_controller.evicted == []


def test_kubelet_waits_for_reservation() -> None:
    sim = simulate(*cluster("g0"), claim("c"))
    bound = pod("p", claim="c")
    bound["spec"]["nodeName"] = "n1"
    sim.apply(lambda s: s.store.create(bound), "create bound pod")
    # Unallocated claim: nothing can reserve it, the kubelet does not start the pod.
    assert get(sim, "Pod", "p")["status"]["phase"] == "Pending"


def test_claim_controller_reserves_allocated_claim_for_pod_bound_without_scheduler() -> None:
    sim = simulate(*cluster("g0"), claim("c"), pod("first", claim="c"))
    bound = pod("second", claim="c")
    bound["spec"]["nodeName"] = "n1"
    sim.apply(lambda s: s.store.create(bound), "create bound pod")
    reserved = get(sim, "ResourceClaim", "c")["status"]["reservedFor"]
    assert [r["name"] for r in reserved] == ["first", "second"]
    second = get(sim, "Pod", "second")
    assert second["status"]["phase"] == "Running"
    assert {c["type"] for c in second["status"]["conditions"]} >= {"Ready", "ContainersReady"}
    assert second["status"]["containerStatuses"][0]["state"]["running"]


def test_no_schedule_taint_rule_steers_allocation_to_the_untainted_device() -> None:
    sim = simulate(*cluster("g0", "g1"), taint_rule("g0-bad", "g0", effect="NoSchedule"))
    sim.apply(lambda s: s.store.create(claim("c")), "claim")
    sim.apply(lambda s: s.store.create(pod("p", claim="c")), "pod")
    result = get(sim, "ResourceClaim", "c")["status"]["allocation"]["devices"]["results"][0]
    assert result["device"] == "g1"


@contextmanager
def within_seconds(seconds: float) -> Iterator[None]:
    """Fail (instead of hanging the suite) when the block runs longer than ``seconds``."""

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"did not reach a fixed point within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("phase", ["Succeeded", "Failed"])
def test_done_pod_with_a_template_gets_no_claim_and_the_loop_stops(phase: str) -> None:
    """Issue 23 item 1: a pod that is done needs no claim (upstream's podNeedsClaims says
    "pod has terminated"), so the controller creates none from its template. Before the fix
    it created one, its claim sync deleted it (the owning pod is done), the deletion queued
    the pod again and a new claim was created: the loop never reached its fixed point."""
    done = pod("done", template="t")
    done["status"] = {"phase": phase}
    sim = Simulation(
        scheduler_factory=StandInScheduler if SCHEDULER[0] == "stand-in" else scheduler_factory()
    )
    created: list[str] = []
    sim.store.subscribe(
        lambda e: created.append(e.key) if e.kind == "ResourceClaim" and e.type == "ADDED" else None
    )
    assert sim.load([*cluster("g0"), template("t"), done]) == []
    with within_seconds(10):
        sim.run()
    assert created == []
    assert sim.store.list("ResourceClaim") == []
    stored = get(sim, "Pod", "done")
    assert stored["status"]["phase"] == phase
    assert "resourceClaimStatuses" not in stored["status"]
    assert not sim.claim_controller.queue
    # A later pod with the same template still gets its claim and the device.
    with within_seconds(10):
        sim.apply(lambda s: s.store.create(pod("next", template="t")), "create next")
    assert get(sim, "Pod", "next")["spec"]["nodeName"] == "n1"
    assert len(sim.store.list("ResourceClaim")) == 1


def test_pod_that_finishes_after_its_claim_was_generated_loses_the_claim_for_good() -> None:
    """The running pod's generated claim is deleted when the pod is done (upstream deletes
    claims generated for a pod that will not run again) and no new one is made for it."""
    sim = simulate(*cluster("g0"), template("t"), pod("p", template="t"))
    p = get(sim, "Pod", "p")
    with within_seconds(10):
        sim.apply(
            lambda s: s.store.update(p | {"status": p["status"] | {"phase": "Succeeded"}}),
            "finish",
        )
    assert sim.store.list("ResourceClaim") == []
    assert not sim.claim_controller.queue
