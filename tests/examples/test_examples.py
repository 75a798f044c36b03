"""Every scenario under examples/ produces the outcome examples/README.md describes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kubedra.api.io import load_paths
from kubedra.cluster.admission import AdmissionConfig
from kubedra.cluster.clock import START
from kubedra.cluster.simulation import Simulation
from kubedra.cluster.timeline import load_timeline
from kubedra.scheduler import new_simulation

EXAMPLES = Path(__file__).resolve().parent.parent.parent / "examples"


def run(
    name: str, events: str | None = None, admission: AdmissionConfig | None = None
) -> Simulation:
    loaded = load_paths([EXAMPLES / name])
    assert loaded.errors == []
    sim = new_simulation(admission=admission)
    assert sim.load([o.wire for o in loaded.objects]) == []
    steps = load_timeline(EXAMPLES / name / events) if events else []
    sim.run(until=None if not steps else sim.clock.now())
    for i, step in enumerate(steps):

        def action(s: Simulation, step: Any = step) -> None:
            s.clock.advance(step.after)
            step.action(s)

        sim.apply(action, step.description, steps[i + 1].after if i + 1 < len(steps) else None)
    return sim


def pod(sim: Simulation, name: str, namespace: str = "default") -> dict[str, Any]:
    found = sim.store.get("Pod", name, namespace)
    assert found is not None
    return found


def claim(sim: Simulation, name: str, namespace: str = "default") -> dict[str, Any]:
    found = sim.store.get("ResourceClaim", name, namespace)
    assert found is not None
    return found


def devices(obj: dict[str, Any]) -> list[str]:
    results = obj["status"]["allocation"]["devices"]["results"]
    return [f"{r['pool']}/{r['device']}" for r in results]


def test_every_scenario_directory_is_documented_and_tested() -> None:
    readme = (EXAMPLES / "README.md").read_text()
    tested = {name.removeprefix("test_").replace("_", "-") for name in globals()}
    for directory in sorted(p for p in EXAMPLES.iterdir() if p.is_dir()):
        assert f"`{directory.name}/`" in readme
        assert directory.name in tested, f"no test for examples/{directory.name}"


def test_dra_demo() -> None:
    sim = run("dra-demo")
    assert pod(sim, "training")["spec"]["nodeName"] == "worker-2"
    assert devices(claim(sim, "training-gpu")) == ["worker-2/gpu-0"]


def test_shared_claim() -> None:
    sim = run("shared-claim")
    nodes = {pod(sim, f"inference-{p}")["spec"]["nodeName"] for p in "abc"}
    assert len(nodes) == 1
    shared = claim(sim, "shared-gpu")
    assert [r["name"] for r in shared["status"]["reservedFor"]] == [
        "inference-a",
        "inference-b",
        "inference-c",
    ]


def test_claim_templates() -> None:
    sim = run("claim-templates")
    placed = {}
    for name in ("batch-1", "batch-2"):
        p = pod(sim, name)
        [status] = p["status"]["resourceClaimStatuses"]
        generated = claim(sim, status["resourceClaimName"])
        assert generated["metadata"]["name"].startswith(f"{name}-gpus-")
        assert generated["metadata"]["ownerReferences"][0]["uid"] == p["metadata"]["uid"]
        assert len(devices(generated)) == 2
        placed[name] = p["spec"]["nodeName"]
    assert sorted(placed.values()) == ["worker-1", "worker-2"]


def test_partitionable_gpu() -> None:
    sim = run("partitionable-gpu")
    assert devices(claim(sim, "medium-1-mig")) == ["worker-1/gpu-0-3g-20gb-0"]
    assert devices(claim(sim, "medium-2-mig")) == ["worker-1/gpu-0-3g-20gb-1"]
    whole = pod(sim, "whole")
    assert "nodeName" not in whole["spec"]
    [scheduled] = [c for c in whole["status"]["conditions"] if c["type"] == "PodScheduled"]
    assert "1 cannot allocate all claims" in scheduled["message"]


def test_prioritized_list() -> None:
    sim = run("prioritized-list")
    results = claim(sim, "large-or-two-small")["status"]["allocation"]["devices"]["results"]
    assert [r["request"] for r in results] == ["gpu/small", "gpu/small"]


def test_admin_access() -> None:
    sim = run("admin-access")
    assert devices(claim(sim, "training-gpu")) == ["worker-1/gpu-0"]
    admin = claim(sim, "all-gpus-admin", "gpu-monitoring")
    assert devices(admin) == ["worker-1/gpu-0", "worker-1/gpu-1"]
    assert all(r.get("adminAccess") for r in admin["status"]["allocation"]["devices"]["results"])
    assert pod(sim, "gpu-exporter", "gpu-monitoring")["status"]["phase"] == "Running"


def test_consumable_capacity() -> None:
    sim = run("consumable-capacity")
    for name in ("infer-1", "infer-2"):
        [result] = claim(sim, f"{name}-gpu")["status"]["allocation"]["devices"]["results"]
        assert result["device"] == "gpu-0"
        assert result["consumedCapacity"] == {"memory": "16Gi"}
        assert result["shareID"]
    assert "nodeName" not in pod(sim, "infer-3")["spec"]


def test_taint_eviction() -> None:
    before = run("taint-eviction")
    assert pod(before, "job")["status"]["phase"] == "Running"
    sim = run("taint-eviction", "taint.events")
    assert sim.store.get("Pod", "job", "default") is None
    assert sim.taint_controller.evicted == ["default/job"]
    assert "allocation" not in claim(sim, "job-gpu").get("status", {})
    assert (sim.clock.now() - before.clock.now()).total_seconds() == 70


def test_extended_resources() -> None:
    sim = run("extended-resources")
    app = pod(sim, "legacy-app")
    assert app["spec"]["nodeName"] in ("worker-1", "worker-2")
    [special] = sim.store.list("ResourceClaim")
    assert special["metadata"]["name"].startswith("legacy-app-extended-resources-")
    assert len(devices(special)) == 2
    assert app["status"]["phase"] == "Running"


def test_binding_conditions() -> None:
    waiting = run("binding-conditions")
    trainer = pod(waiting, "trainer")
    assert "nodeName" not in trainer["spec"]
    # The conditions never come: one 600 s binding timeout, allocated again, waiting again;
    # the loop stops there instead of repeating the circle.
    assert (waiting.clock.now() - START).total_seconds() == 600
    assert waiting.scheduler.last_decision["default/trainer"].result == "WaitingForBinding"
    assert devices(claim(waiting, "fabric-gpu")) == ["fabric/gpu-0"]
    sim = run("binding-conditions", "attach.events")
    assert pod(sim, "trainer")["spec"]["nodeName"] == "worker-1"
    assert pod(sim, "trainer")["status"]["phase"] == "Running"


def test_network_attached() -> None:
    sim = run("network-attached")
    nodes = sorted(pod(sim, f"pipeline-{i}")["spec"]["nodeName"] for i in (1, 2))
    assert nodes == ["worker-2", "worker-3"]
    for generated in sim.store.list("ResourceClaim"):
        selector = generated["status"]["allocation"]["nodeSelector"]
        assert selector["nodeSelectorTerms"][0]["matchExpressions"][0]["values"] == ["rack-a"]


def test_pending_gpu_memory() -> None:
    sim = run("pending-gpu-memory")
    big = pod(sim, "big-training")
    [scheduled] = [c for c in big["status"]["conditions"] if c["type"] == "PodScheduled"]
    assert scheduled["status"] == "False"
    assert scheduled["message"].startswith("0/3 nodes are available: 3 cannot allocate all claims.")


@pytest.mark.parametrize("name", ["binding-conditions", "taint-eviction"])
def test_timelines_are_not_manifests(name: str) -> None:
    loaded = load_paths([EXAMPLES / name])
    assert loaded.errors == []


def test_preemption() -> None:
    # Gate off (the default): the batch pod keeps the GPU. tests/examples/
    # test_preemption_example.py runs it with DRAPreemption=true.
    sim = run("preemption", "training.events")
    assert pod(sim, "batch-inference")["spec"]["nodeName"] == "worker-1"
    assert not pod(sim, "training")["spec"].get("nodeName")


def test_gang() -> None:
    # Upstream's greedy order (the default): the gang waits on an idle cluster.
    # tests/examples/test_preemption_example.py runs it with --gang backtrack.
    sim = run("gang")
    assert not pod(sim, "trainer-0")["spec"].get("nodeName")
    assert not pod(sim, "trainer-1")["spec"].get("nodeName")


def test_gang_claims() -> None:
    """KEP-5729 (gate DRAWorkloadResourceClaims, beta, off by default in 1.37): one claim for
    the PodGroup, shared; with the gate off the PodGroup's resourceClaims are dropped on
    create and each pod's own two-GPU claim leaves the gang unplaceable."""
    sim = run("gang-claims", admission=AdmissionConfig(gates={"DRAWorkloadResourceClaims": True}))
    nodes = {pod(sim, name)["spec"].get("nodeName") for name in ("trainer-0", "trainer-1")}
    assert nodes == {"worker-1"}
    [claim] = sim.store.list("ResourceClaim")
    assert claim["status"]["reservedFor"][0]["resource"] == "podgroups"
    sim = run("gang-claims")
    assert len(sim.store.list("ResourceClaim")) == 2
    assert not pod(sim, "trainer-0")["spec"].get("nodeName")


def test_network_preemption() -> None:
    # Upstream preemption (the default) does not free network-attached devices.
    # tests/examples/test_network_preemption_example.py runs it with --preemption extended.
    sim = run("network-preemption", "training.events")
    assert pod(sim, "batch-inference")["spec"]["nodeName"] == "worker-1"
    assert not pod(sim, "training")["spec"].get("nodeName")


def test_alibaba_trace(tmp_path: Path) -> None:
    """The CSVs imported as ``kubedra trace import`` does, then every task at once, in trace
    order, as by ``kubedra simulate cluster.yaml pods.yaml``:

    * whole-t4 takes node-a's only GPU (the only T4) and consumes all its gpu_milli;
    * share-a (600) and share-b (400) of a V100M32 fill node-b's gpu-0 (first fit);
    * share-c (500) no longer fits there and takes gpu-1;
    * pair (two whole GPUs) needs two untouched GPUs on one node: none is left;
    * share-d (100 of a T4) cannot share the T4 that whole-t4 holds whole;
    * queued (one whole GPU of any model) finds none untouched;
    * cpu needs no device.
    """
    from kubedra.api.io import dump_yaml
    from kubedra.traces import import_alibaba

    directory = EXAMPLES / "alibaba-trace"
    trace = import_alibaba(directory / "nodes.csv", directory / "pods.csv")
    pods = [obj for entry in trace.entries for obj in entry["objects"]]
    (tmp_path / "cluster.yaml").write_text(dump_yaml(trace.cluster + pods))
    loaded = load_paths([tmp_path / "cluster.yaml"])
    assert loaded.errors == []
    sim = new_simulation()
    assert sim.load([o.wire for o in loaded.objects]) == []
    sim.run()
    placed = {p["metadata"]["name"]: p["spec"].get("nodeName") for p in sim.store.list("Pod")}
    assert placed == {
        "whole-t4": "node-a",
        "share-a": "node-b",
        "share-b": "node-b",
        "share-c": "node-b",
        "pair": None,
        "share-d": None,
        "queued": None,
        "cpu": placed["cpu"],
    }
    assert placed["cpu"] in ("node-a", "node-b")
    allocated = {}
    for found in sim.store.list("ResourceClaim"):
        allocation = (found.get("status") or {}).get("allocation")
        if allocation is not None:
            [result] = allocation["devices"]["results"]
            owner = found["metadata"]["ownerReferences"][0]["name"]
            allocated[owner] = (result["pool"], result["device"], result["consumedCapacity"])
    assert allocated == {
        "whole-t4": ("node-a", "gpu-0", {"gpu_milli": "1k", "memory": "0"}),
        "share-a": ("node-b", "gpu-0", {"gpu_milli": "600", "memory": "0"}),
        "share-b": ("node-b", "gpu-0", {"gpu_milli": "400", "memory": "0"}),
        "share-c": ("node-b", "gpu-1", {"gpu_milli": "500", "memory": "0"}),
    }


def test_placement_policies() -> None:
    from kubedra.planning.cluster import simulate

    loaded = load_paths([EXAMPLES / "placement-policies"])
    assert loaded.errors == []
    objects = [o.wire for o in loaded.objects]

    def nodes(policy: str | None) -> dict[str, str | None]:
        sim = simulate(objects, policy=policy)
        return {p["metadata"]["name"]: p["spec"].get("nodeName") for p in sim.store.list("Pod")}

    # Packing puts the notebook's 0.2 beside inference-a (0.1 left on worker-1), then three
    # 0.3 shares fill worker-2 to 0.1: the tuning job's 0.2 fits nowhere.
    for policy in ("best-fit", "gpu-packing", "dot-product"):
        placed = nodes(policy)
        assert placed["notebook"] == "worker-1", policy
        assert placed["tuning"] is None, policy
    # FGD keeps worker-1's 0.3 for a 0.3 share (inference-b) and the tuning job fits on
    # worker-2 (0.2 left); the default profile spreads by cpu and happens to do the same.
    expected = {
        "inference-a": "worker-1",
        "notebook": "worker-2",
        "inference-b": "worker-1",
        "inference-c": "worker-2",
        "inference-d": "worker-2",
        "tuning": "worker-2",
    }
    assert nodes("fgd") == expected
    assert nodes(None) == expected


def test_inflate() -> None:
    """examples/inflate: best-fit strands 0.2 and fails the last share; FGD places all six
    (examples/README.md works both out)."""
    from kubedra.replay import load_trace
    from kubedra.replay.inflate import InflateOptions, Inflation
    from kubedra.replay.inflate_report import summary
    from kubedra.replay.shapes import trace_workload
    from kubedra.scheduler import SchedulerConfig

    loaded = load_paths([EXAMPLES / "inflate"])
    assert loaded.errors == []
    objects = [o.wire for o in loaded.objects]
    trace = load_trace(EXAMPLES / "inflate" / "tasks.trace")
    outcomes = {}
    for policy in ("best-fit", "fgd"):
        config = SchedulerConfig(placement=policy, workload=trace_workload(trace, objects))
        sim = new_simulation(config)
        assert sim.load(objects) == []
        s = summary(Inflation(sim, trace, InflateOptions(until_demand=1.0)).run())
        failure = s["firstFailure"]["pod"] if s["firstFailure"] else None
        outcomes[policy] = (s["placed"], failure, s["unallocatedDevices"], s["strandedCapacity"])
    assert outcomes == {
        "best-fit": (5, "default/tuning", 0.2, {"share": 0.2}),
        "fgd": (6, None, 0.0, {}),
    }


def test_replay() -> None:
    """examples/replay: the day examples/README.md works out by hand."""
    from kubedra.replay import Replay, load_trace
    from kubedra.replay.report import summary

    loaded = load_paths([EXAMPLES / "replay"])
    assert loaded.errors == []
    sim = new_simulation()
    assert sim.load([o.wire for o in loaded.objects]) == []
    state = Replay(sim, load_trace(EXAMPLES / "replay" / "day.trace")).run()
    hours = {
        r.name.rsplit("-", 1)[0] if r.job else r.name: (
            r.bound and r.bound / 3600,
            r.node,
            (r.finished or r.gone or 0) / 3600,
        )
        for r in state.records
        if not r.job
    }
    assert hours == {
        "train": (0, "node-1", 8),
        "notebook": (0, "node-2", 18),
        "eval-0": (1, "node-2", 3),
        "eval-1": (3, "node-2", 5),
        "big": (8, "node-1", 14),
        "late-0": (20, "node-1", 22),
        "late-1": (20, "node-1", 22),
        "late-2": (22, "node-1", 24),
    }
    nightly = sorted((r.bound, r.finished) for r in state.records if r.job)
    assert nightly == [(h * 3600, (h + 1) * 3600) for h in (9, 10, 11)]
    s = summary(state)
    assert (s["pods"], s["placed"], s["finished"], s["gone"], s["evictions"]) == (11, 11, 10, 1, 1)
    assert (s["waitSeconds"]["p50"], s["waitSeconds"]["p90"], s["waitSeconds"]["max"]) == (
        0,
        7200,
        14400,
    )
    assert s["makespanSeconds"] == 86400
    gpus = s["deviceHours"]["byDeviceClass"]["gpu.example.com"]
    assert (gpus["allocated"], gpus["available"]) == (59, 96)
    assert s["strandedDeviceHours"] == 3
