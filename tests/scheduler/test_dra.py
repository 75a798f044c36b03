"""DynamicResources: PreEnqueue, reservedFor limit, binding conditions, extended resources."""

from __future__ import annotations

from typing import Any

from sched_builders import (
    DRIVER,
    claim,
    cluster,
    device_class,
    gpu,
    node,
    pod,
    run,
    slice_,
)

from kubedra.cluster.store import Store


def _claim(store: Store, name: str) -> dict[str, Any]:
    obj = store.get("ResourceClaim", name, "default")
    assert obj is not None
    return obj


def test_pre_enqueue_waits_for_template_claim() -> None:
    store, scheduler = cluster(
        node("n1"),
        device_class(),
        slice_("n1", [gpu("g0")]),
        pod("p", templates={"gpu": "tmpl"}),
    )
    assert not scheduler.has_work()
    entry = scheduler.queue.pods["default/p"]
    assert entry.gate == 'pod "default/p": ResourceClaim not created yet'
    p = store.get("Pod", "p", "default")
    assert p is not None
    generated = claim("p-gpu-abcde")
    generated["metadata"]["ownerReferences"] = [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "name": "p",
            "uid": p["metadata"]["uid"],
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    store.create(generated)
    assert not scheduler.has_work()
    status = {
        **p.get("status", {}),
        "resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "p-gpu-abcde"}],
    }
    store.update({**p, "status": status})
    (decision,) = run(scheduler)
    assert (decision.result, decision.node) == ("Scheduled", "n1")


def test_reserved_for_limit_256() -> None:
    shared = claim("shared")
    store, scheduler = cluster(node("n1"), device_class(), slice_("n1", [gpu("g0")]), shared)
    allocated = _claim(store, "shared")
    results = [{"request": "gpu", "driver": DRIVER, "pool": "n1", "device": "g0"}]
    reserved = [{"resource": "pods", "name": f"other-{i}", "uid": f"uid-{i}"} for i in range(255)]
    store.update(
        {
            **allocated,
            "status": {"allocation": {"devices": {"results": results}}, "reservedFor": reserved},
        }
    )
    store.create(pod("p255", claims=["shared"]))
    (ok,) = run(scheduler)
    assert ok.result == "Scheduled"
    assert len(_claim(store, "shared")["status"]["reservedFor"]) == 256
    store.create(pod("p256", claims=["shared"]))
    (full,) = run(scheduler)
    assert full.result == "Unschedulable"
    assert full.message == (
        "0/1 nodes are available: resourceclaim in use. no new claims to deallocate, "
        "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
    )


def _binding_cluster() -> tuple[Store, Any]:
    device = gpu("g0", bindingConditions=["attached"], bindingFailureConditions=["failed"])
    return cluster(
        node("n1"), device_class(), slice_("n1", [device]), claim("c1"), pod("p", claims=["c1"])
    )


def _set_condition(store: Store, type_: str) -> None:
    obj = _claim(store, "c1")
    device = {
        "driver": DRIVER,
        "pool": "n1",
        "device": "g0",
        "conditions": [
            {
                "type": type_,
                "status": "True",
                "reason": "Done",
                "message": "ok",
                "lastTransitionTime": "2026-01-01T00:00:00Z",
            }
        ],
    }
    store.update({**obj, "status": {**obj["status"], "devices": [device]}})


def test_binding_conditions_wait_until_met() -> None:
    store, scheduler = _binding_cluster()
    (waiting,) = run(scheduler)
    assert (waiting.result, waiting.node) == ("WaitingForBinding", "n1")
    pod_obj = store.get("Pod", "p", "default")
    assert pod_obj is not None and "nodeName" not in pod_obj["spec"]
    allocation = _claim(store, "c1")["status"]["allocation"]
    assert allocation["allocationTimestamp"] == "2026-01-01T00:00:00Z"
    assert scheduler.next_wakeup() is not None
    assert not scheduler.has_work()
    _set_condition(store, "attached")
    (bound,) = run(scheduler)
    assert (bound.result, bound.node) == ("Scheduled", "n1")
    pod_obj = store.get("Pod", "p", "default")
    assert pod_obj is not None and pod_obj["spec"]["nodeName"] == "n1"


def test_binding_failure_condition_deallocates_and_retries() -> None:
    store, scheduler = _binding_cluster()
    run(scheduler)
    _set_condition(store, "failed")
    failed, retried, again = run(scheduler)[:3]
    assert failed.result == "Error"
    assert failed.message == (
        'running PreBind plugin "DynamicResources": claim c1 binding failed: '
        'reason=Done, message="ok"'
    )
    assert retried.result == "Unschedulable"
    assert retried.message is not None
    assert retried.message.startswith(
        "0/1 nodes are available: 1 resourceclaim not available on the node. "
        "deallocation of ResourceClaim completed, preemption:"
    )
    assert again.result == "WaitingForBinding"


def test_binding_timeout() -> None:
    _, scheduler = _binding_cluster()
    run(scheduler)
    wakeup = scheduler.next_wakeup()
    assert wakeup is not None
    scheduler.clock.advance_to(wakeup)  # exactly at the deadline, as the simulation does
    timed_out, retried, again = run(scheduler, limit=3)
    assert timed_out.result == "Error"
    assert timed_out.message == (
        'running PreBind plugin "DynamicResources": claim c1 binding timeout'
    )
    # The retry must see the timed-out allocation as unusable and deallocate it.
    assert retried.result == "Unschedulable"
    assert retried.message is not None
    assert "1 resourceclaim not available on the node. deallocation of ResourceClaim" in (
        retried.message
    )
    assert again.result == "WaitingForBinding"


def test_extended_resource_backed_by_dra() -> None:
    cls = device_class(extendedResourceName="example.com/gpu")
    want = {"example.com/gpu": "2"}
    p = pod("p", requests=want)
    p["spec"]["containers"][0]["resources"]["limits"] = want
    store, scheduler = cluster(
        node("n1"),
        node("n2"),
        cls,
        slice_("n1", [gpu("g0")]),
        slice_("n2", [gpu("g1"), gpu("g2")]),
        p,
    )
    (decision,) = run(scheduler)
    assert (decision.result, decision.node) == ("Scheduled", "n2")
    pod_obj = store.get("Pod", "p", "default")
    assert pod_obj is not None
    status = pod_obj["status"]["extendedResourceClaimStatus"]
    assert status["requestMappings"] == [
        {
            "containerName": "c",
            "resourceName": "example.com/gpu",
            "requestName": "container-0-request-0",
        }
    ]
    created = _claim(store, status["resourceClaimName"])
    assert created["metadata"]["name"].startswith("p-extended-resources-")
    assert created["metadata"]["annotations"] == {
        "resource.kubernetes.io/extended-resource-claim": "true"
    }
    assert created["spec"]["devices"]["requests"][0]["exactly"]["count"] == 2
    devices = [r["device"] for r in created["status"]["allocation"]["devices"]["results"]]
    assert devices == ["g1", "g2"]


def test_implicit_extended_resource_name_and_device_plugin_node() -> None:
    want = {"deviceclass.resource.kubernetes.io/gpu": "1"}
    p = pod("p", requests=want)
    p["spec"]["containers"][0]["resources"]["limits"] = want
    store, scheduler = cluster(
        node("n1", extra={"deviceclass.resource.kubernetes.io/gpu": "1"}),
        device_class(),
        p,
    )
    (decision,) = run(scheduler)
    # n1 offers the resource itself (device plugin): nothing is allocated through DRA.
    assert (decision.result, decision.node) == ("Scheduled", "n1")
    assert store.list("ResourceClaim") == []


def test_cached_evaluations_follow_allocations_and_node_changes() -> None:
    objects: list[dict[str, Any]] = [device_class()]
    for i in range(3):
        objects += [node(f"n{i}"), slice_(f"n{i}", [gpu(f"g{i}")])]
    for i in range(4):
        objects += [claim(f"c{i}"), pod(f"p{i}", claims=[f"c{i}"])]
    store, scheduler = cluster(*objects)
    decisions = run(scheduler)
    assert sorted(d.node for d in decisions if d.node) == ["n0", "n1", "n2"]
    assert decisions[-1].result == "Unschedulable"
    # Cordoning a node and freeing its device: the cached results for n0 must not be reused.
    n0 = store.get("Node", "n0")
    assert n0 is not None
    store.update({**n0, "spec": {"unschedulable": True}})
    owner = next(d.pod for d in decisions if d.node == "n0").split("/")[1]
    store.delete("Pod", owner, "default")
    c = _claim(store, f"c{owner[1:]}")
    store.update({**c, "status": {}})
    (retry,) = run(scheduler)
    assert retry.result == "Unschedulable"
    assert retry.filter_reasons["n0"] == ("NodeUnschedulable", "node(s) were unschedulable")
    store.update(
        {
            **n0,
            "spec": {},
            "metadata": {k: v for k, v in n0["metadata"].items() if k != "resourceVersion"},
        }
    )
    (placed,) = run(scheduler)
    assert (placed.result, placed.node) == ("Scheduled", "n0")
