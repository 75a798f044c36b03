"""Replays whose outcome is worked out by hand in each docstring (times in seconds)."""

from __future__ import annotations

from typing import Any

import pytest
from replay_builders import (
    gpu_nodes,
    job,
    node,
    pod,
    priority_class,
    record,
    replay,
)

from kubedra.replay import Replay, parse_trace
from kubedra.replay.report import summary
from kubedra.scheduler import new_simulation


def arrive(at: str, duration: str, *objects: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"at": at, "duration": duration, "objects": list(objects), **extra}


def test_four_jobs_on_two_single_gpu_nodes() -> None:
    """Nodes node-a and node-b have one GPU each; a, b, c arrive at 0 (1h, 1h, 2h), d at 30m
    (10m), each wanting one GPU.

    At 0 a takes node-a's GPU (both nodes score the same; the first in node order wins), b
    node-b's; c finds no free GPU and waits. At 30m d arrives and waits too. At 1h a and b
    end together; their claims are deallocated, which requeues the waiting pods: c (queued
    first) gets node-a (first in order again), d node-b. d ends at 1h + 10m = 4200, c at
    1h + 2h = 3h = 10800, the makespan. Waits: a 0, b 0, c 3600, d 3600 - 1800 = 1800;
    nearest-rank p50 of (0, 0, 1800, 3600) is 0, p90 is 3600. The GPUs were allocated
    a 0-3600 + c 3600-10800 on node-a (3h) and b 0-3600 + d 3600-4200 on node-b (1h10m):
    4h10m of the 2 x 3h available.
    """
    state = replay(
        gpu_nodes("node-a", "node-b"),
        [
            arrive("0s", "1h", pod("a")),
            arrive("0s", "1h", pod("b")),
            arrive("0s", "2h", pod("c")),
            arrive("30m", "10m", pod("d")),
        ],
    )
    got = {
        name: (r["arrival"], r["bound"], r["node"], r["finished"], r["waitSeconds"])
        for name in "abcd"
        for r in [record(state, name)]
    }
    assert got == {
        "a": (0, 0, "node-a", 3600, 0),
        "b": (0, 0, "node-b", 3600, 0),
        "c": (0, 3600, "node-a", 10800, 3600),
        "d": (1800, 3600, "node-b", 4200, 1800),
    }
    s = summary(state)
    assert (s["pods"], s["placed"], s["neverPlaced"], s["makespanSeconds"]) == (4, 4, 0, 10800)
    assert (s["waitSeconds"]["p50"], s["waitSeconds"]["p90"], s["waitSeconds"]["max"]) == (
        0,
        3600,
        3600,
    )
    gpus = s["deviceHours"]["byDeviceClass"]["gpu.example.com"]
    assert gpus["allocated"] == pytest.approx((3 * 3600 + 4200) / 3600)
    assert gpus["available"] == 6
    assert s["deviceHours"]["byPool"]["gpu.example.com/node-b"]["allocated"] == pytest.approx(
        4200 / 3600
    )
    series = state.series
    assert list(series.time) == [0, 1800, 3600, 4200, 10800]
    assert list(series.pending) == [1, 2, 0, 0, 0]
    assert list(series.running) == [2, 2, 2, 1, 0]
    assert list(series.allocated["gpu.example.com"]) == [2, 2, 2, 1, 0]


def test_a_preempted_job_pod_is_replaced_and_runs_its_whole_duration_again() -> None:
    """One node with 4 CPUs. At 0 the Job train (priority 100) makes one pod asking for 3
    CPUs, to run 1h; it is bound at once. At 10m the pod urgent (priority 1000, 3 CPUs, 30m)
    arrives: it does not fit, DefaultPreemption deletes train's pod (PreemptionByScheduler)
    and urgent is bound at 10m. The Job controller replaces the pod; the replacement waits
    (3 + 3 CPUs do not fit) until urgent ends at 10m + 30m = 40m = 2400, is then bound and
    runs its whole hour again: it ends at 2400 + 3600 = 6000. train's pod waited 0 before
    its first run and 2400 - 600 = 1800 before the second: 1800 in all, one preemption, one
    restart. urgent waited 0.
    """
    cluster = [node("n1", cpu="4"), priority_class("low", 100), priority_class("high", 1000)]
    train = job("train", pod("p", template=None, cpu="3", priority_class_name="low"))
    urgent = pod("urgent", template=None, cpu="3", priority_class_name="high")
    state = replay(cluster, [arrive("0s", "1h", train), arrive("10m", "30m", urgent)])
    r = record(state, "train")
    assert (r["arrival"], r["bound"], r["finished"], r["waitSeconds"]) == (0, 2400, 6000, 1800)
    assert (r["preemptions"], r["restarts"], r["node"]) == (1, 1, "n1")
    assert r["pod"] != r["name"]  # the Job's replacement has a new generated name
    u = record(state, "urgent")
    assert (u["arrival"], u["bound"], u["finished"], u["waitSeconds"]) == (600, 600, 2400, 0)
    s = summary(state)
    assert (s["preemptions"], s["restarts"], s["makespanSeconds"]) == (1, 1, 6000)


def test_a_pod_that_may_not_restart_is_gone_after_preemption() -> None:
    """As above, but a bare pod without ``restart: true``: once preempted at 10m it is gone,
    never bound again; only urgent finishes (at 40m)."""
    cluster = [node("n1", cpu="4"), priority_class("low", 100), priority_class("high", 1000)]
    low = pod("low", template=None, cpu="3", priority_class_name="low")
    urgent = pod("urgent", template=None, cpu="3", priority_class_name="high")
    state = replay(cluster, [arrive("0s", "1h", low), arrive("10m", "30m", urgent)])
    r = record(state, "low")
    assert (r["bound"], r["finished"], r["gone"], r["preemptions"], r["restarts"]) == (
        0,
        None,
        600,
        1,
        0,
    )
    assert summary(state)["makespanSeconds"] == 2400


def test_restart_true_replaces_a_bare_pod_under_its_own_name() -> None:
    """``restart: true``: the preempted pod low comes back as low (a bare pod's replacement
    keeps its name), waits until urgent ends at 40m and runs its hour: it ends at 1h40m."""
    cluster = [node("n1", cpu="4"), priority_class("low", 100), priority_class("high", 1000)]
    low = pod("low", template=None, cpu="3", priority_class_name="low")
    urgent = pod("urgent", template=None, cpu="3", priority_class_name="high")
    state = replay(cluster, [arrive("0s", "1h", low, restart=True), arrive("10m", "30m", urgent)])
    r = record(state, "low")
    assert (r["pod"], r["bound"], r["finished"], r["restarts"], r["waitSeconds"]) == (
        "low",
        2400,
        6000,
        1,
        1800,
    )


def pod_group(name: str, min_count: int) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}},
    }


def test_a_gang_starts_when_all_are_bound_and_ends_together() -> None:
    """Two nodes with one GPU each. At 0 the pod blocker takes node-a's GPU for 1h; then the
    gang of w0 (2h) and w1 (30m), minCount 2, one GPU each, arrives: only one GPU is free, so
    neither is bound (all or nothing). At 1h blocker ends and the gang is admitted: both are
    bound at 3600 and, as a gang, end together when the longest is done: 3600 + 2h = 10800
    (w1 does not end at 3600 + 30m)."""
    state = replay(
        gpu_nodes("node-a", "node-b"),
        [
            arrive("0s", "1h", pod("blocker")),
            arrive(
                "0s",
                "2h",
                pod_group("trainers", 2),
                pod("w0", group="trainers"),
            ),
            arrive("0s", "30m", pod("w1", group="trainers")),
        ],
    )
    for name in ("w0", "w1"):
        r = record(state, name)
        assert (r["bound"], r["finished"], r["waitSeconds"]) == (3600, 10800, 3600), name
    assert record(state, "blocker")["finished"] == 3600


def test_the_five_minute_flush_retries_a_pod_no_event_requeues() -> None:
    """node-a's only GPU is held by the claim held (allocated, no consumer, no finalizer: an
    export's leftover). The pod job arrives at 0, asks for a GPU and is unschedulable at 0.
    At 1m held is deleted: the GPU is free, but no queueing hint of the default profile
    reports a claim's deletion (DynamicResources registers claim Add and Update only), so
    job stays among the unschedulable pods. Upstream's flushUnschedulableEntitiesLeftover
    runs every 30 s from the start and retries pods unschedulable for more than 5 minutes:
    at 300 s job has been waiting exactly 5 minutes (not more), at 330 s it is retried and
    bound. It runs 1h: it ends at 330 + 3600 = 3930, having waited 330 s. Without the flush
    it would wait for ever."""
    held = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "held", "namespace": "default"},
        "spec": {
            "devices": {
                "requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]
            }
        },
        "status": {
            "allocation": {
                "devices": {
                    "results": [
                        {
                            "request": "gpu",
                            "driver": "gpu.example.com",
                            "pool": "node-a",
                            "device": "gpu-0",
                        }
                    ]
                }
            }
        },
    }
    state = replay(
        [*gpu_nodes("node-a"), held],
        [
            arrive("0s", "1h", pod("job")),
            {"at": "1m", "delete": {"kind": "ResourceClaim", "name": "held"}},
        ],
    )
    r = record(state, "job")
    assert (r["bound"], r["finished"], r["waitSeconds"]) == (330, 3930, 330)


def shared_gpu_cluster() -> list[dict[str, Any]]:
    """node-a with one GPU whose 40 GiB of memory several claims share (4 GiB steps)."""
    objects = [o for o in gpu_nodes() if o["kind"] == "DeviceClass"]
    objects.append(node("node-a"))
    objects.append(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceSlice",
            "metadata": {"name": "node-a-gpus"},
            "spec": {
                "driver": "gpu.example.com",
                "nodeName": "node-a",
                "pool": {"name": "node-a", "generation": 1, "resourceSliceCount": 1},
                "devices": [
                    {
                        "name": "gpu-0",
                        "allowMultipleAllocations": True,
                        "capacity": {
                            "memory": {
                                "value": "40Gi",
                                "requestPolicy": {
                                    "default": "8Gi",
                                    "validRange": {"min": "4Gi", "step": "4Gi"},
                                },
                            }
                        },
                    }
                ],
            },
        }
    )
    for gib in (16, 12):
        request = {
            "name": "gpu",
            "exactly": {
                "deviceClassName": "gpu.example.com",
                "capacity": {"requests": {"memory": f"{gib}Gi"}},
            },
        }
        objects.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceClaimTemplate",
                "metadata": {"name": f"mem-{gib}"},
                "spec": {"spec": {"devices": {"requests": [request]}}},
            }
        )
    return objects


def test_shared_gpu_memory_and_the_capacity_it_strands() -> None:
    """Pods s0, s1 (16 GiB each, 2h) and t (12 GiB, 1h) arrive at 0 on one 40 GiB GPU
    shared by memory. s0 and s1 take 32 GiB; 8 GiB are left, less than t's 12, so t waits
    and those 8 GiB are stranded (no pending request can use them). At 2h s0 and s1 end and
    t runs 2h-3h (waited 2h). Capacity-hours of memory: 32 GiB x 2h + 12 GiB x 1h = 76
    GiB-hours of 40 x 3 = 120; the GPU counts as allocated the whole 3h."""
    state = replay(
        shared_gpu_cluster(),
        [
            arrive("0s", "2h", pod("s", template="mem-16"), count=2),
            arrive("0s", "1h", pod("t", template="mem-12")),
        ],
    )
    t = record(state, "t")
    assert (t["bound"], t["finished"], t["waitSeconds"]) == (7200, 10800, 7200)
    assert [record(state, f"s-{i}")["finished"] for i in (0, 1)] == [7200, 7200]
    gib = 2**30
    series = state.series
    assert list(series.time) == [0, 7200, 10800]
    assert list(series.stranded_capacity["memory"]) == [8 * gib, 0, 0]
    assert list(series.capacity["memory"]) == [32 * gib, 12 * gib, 0]
    assert list(series.stranded_devices) == [0, 0, 0]  # the GPU is in use, not free
    s = summary(state)
    memory = s["capacityHours"]["gpu.example.com"]["memory"]
    assert memory["allocated"] == pytest.approx(76 * gib)
    assert memory["available"] == pytest.approx(120 * gib)
    assert s["deviceHours"]["byDeviceClass"]["gpu.example.com"]["allocated"] == 3


def test_finished_pods_leave_the_store_unless_kept() -> None:
    """a ends at 1h; b has no duration and runs until the end. By default a and its
    generated claim are gone from the cluster after the replay; with keep_finished a stays,
    Succeeded, its claim deleted all the same (upstream deletes a done pod's generated
    claims)."""
    entries = [arrive("0s", "1h", pod("a")), {"at": "0s", "objects": [pod("b")]}]
    for keep, pods in ((False, ["b"]), (True, ["a", "b"])):
        sim = new_simulation()
        assert sim.load(gpu_nodes("node-a", "node-b")) == []
        Replay(sim, parse_trace(entries, "t"), keep_finished=keep).run()
        assert [p["metadata"]["name"] for p in sim.store.list("Pod")] == pods
        claims = [c["metadata"]["name"] for c in sim.store.list("ResourceClaim")]
        assert [c.rsplit("-", 2)[0] for c in claims] == ["b"]
        if keep:
            assert sim.store.get("Pod", "a", "default")["status"]["phase"] == "Succeeded"


def test_a_deployment_pod_evicted_by_a_drain_comes_back_with_a_new_name() -> None:
    """The Deployment web (one replica, no duration) runs on n1. At 1h n1 is drained: the pod
    is evicted, and as its ReplicaSet would, a new pod web-<hash>-<5 random> is created; n1 is
    cordoned, so it goes to n2 at 1h."""
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "x"}]},
            },
        },
    }
    state = replay(
        [node("n1"), node("n2")],
        [{"at": "0s", "objects": [deployment]}, {"at": "1h", "drain": "n1"}],
    )
    [r] = [r.to_dict() for r in state.records]
    assert (r["node"], r["bound"], r["evictions"], r["restarts"]) == ("n2", 3600, 1, 1)
    assert r["pod"] != r["name"] and r["pod"].rsplit("-", 1)[0] == r["name"].rsplit("-", 1)[0]


def test_a_pod_of_duration_zero_ends_at_once_and_the_trace_goes_on() -> None:
    """Two nodes with one GPU each. a (1h) arrives at 0 and takes node-a's GPU; z (0s: a task
    created and deleted in the same second, as the Alibaba trace has one) arrives at 50 and
    is bound to node-b at 50, where it ends at once (50 + 0); last (1h) arrives at 60 and
    takes node-b's GPU, which z gave back: bound at 60, ends at 3660, the makespan. (The
    replay used to stop at 50: z's end was due at the moment it was bound.)"""
    state = replay(
        gpu_nodes("node-a", "node-b"),
        [
            arrive("0s", "1h", pod("a")),
            arrive("50s", "0s", pod("z")),
            arrive("60s", "1h", pod("last")),
        ],
    )
    got = {
        name: (r["arrival"], r["bound"], r["node"], r["finished"])
        for name in ("a", "z", "last")
        for r in [record(state, name)]
    }
    assert got == {
        "a": (0, 0, "node-a", 3600),
        "z": (50, 50, "node-b", 50),
        "last": (60, 60, "node-b", 3660),
    }
    assert summary(state)["makespanSeconds"] == 3660
