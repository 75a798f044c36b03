"""``--preemption extended``: victims chosen by re-running the allocator over the freed state."""

from __future__ import annotations

from typing import Any

from sched_builders import DRIVER, claim, device_class, gpu, node, pod, run, slice_

from kubedra.allocator.features import Features
from kubedra.cluster.clock import SimClock
from kubedra.cluster.store import Store
from kubedra.scheduler import Decision, Scheduler, SchedulerConfig
from kubedra.scheduler.explain import explain_pod

PART = f'device.attributes["{DRIVER}"].kind == "part"'
WHOLE = f'device.attributes["{DRIVER}"].kind == "whole"'


def make(
    *objects: dict[str, Any], mode: str = "extended", dra: bool = False, sets: int = 2000
) -> tuple[Store, Scheduler]:
    clock = SimClock()
    store = Store(clock)
    for obj in objects:
        store.create(obj)
    config = SchedulerConfig(
        features=Features(dra_preemption=dra),
        preemption=mode,  # type: ignore[arg-type]
        preemption_sets=sets,
    )
    return store, Scheduler(store, clock, config)


def holder(name: str, claim_name: str, priority: int) -> dict[str, Any]:
    return pod(name, cpu="1", claims=[claim_name], priority=priority)


def place(store: Store, scheduler: Scheduler, *objects: dict[str, Any]) -> None:
    for obj in objects:
        store.create(obj)
    placed = run(scheduler)
    assert placed and all(d.result == "Scheduled" for d in placed), placed


def alive(store: Store) -> set[str]:
    return {p["metadata"]["name"] for p in store.list("Pod")}


def preempt(store: Store, scheduler: Scheduler, selector: str | None = None) -> Decision:
    store.create(claim("high-gpu", selector))
    store.create(pod("high", cpu="1", claims=["high-gpu"], priority=100))
    (decision,) = run(scheduler, limit=1)
    return decision


# --- network-attached devices -----------------------------------------------------------------


def fabric() -> dict[str, Any]:
    network = slice_("fabric", [gpu("g0")], name="fabric-gpus")
    del network["spec"]["nodeName"]
    network["spec"]["allNodes"] = True
    return network


def network_cluster(mode: str) -> tuple[Store, Scheduler]:
    store, scheduler = make(node("n1"), node("n2"), device_class(), fabric(), mode=mode, dra=True)
    place(store, scheduler, claim("low-gpu"), holder("low", "low-gpu", 0))
    return store, scheduler


def test_network_attached_gpu_is_freed_only_in_extended_mode() -> None:
    store, scheduler = network_cluster("extended")
    decision = preempt(store, scheduler)
    # The first candidate node at the lowest cost: one victim wherever low runs.
    assert decision.nominated == "n1"
    assert alive(store) == {"high"}
    report = scheduler.preemption.reports["default/high"]
    assert report.victims == ["default/low"]
    assert report.frees == {"default/low": [f"{DRIVER}/fabric/g0"]}


def test_network_attached_gpu_is_not_freed_upstream() -> None:
    store, scheduler = network_cluster("upstream")
    decision = preempt(store, scheduler)
    assert decision.nominated is None
    assert alive(store) == {"low", "high"}
    assert "default/high" not in scheduler.preemption.reports


# --- partitions that must be consolidated -----------------------------------------------------


def partitioned_gpu(name: str, pool: str = "n1") -> list[dict[str, Any]]:
    """One 16Gi GPU ``name``: the whole device or two 8Gi partitions, sharing a counter set."""
    counters = slice_("n1", [], name=f"{name}-counters")
    del counters["spec"]["devices"]
    counters["spec"]["sharedCounters"] = [{"name": name, "counters": {"memory": {"value": "16Gi"}}}]

    def uses(memory: str) -> list[dict[str, Any]]:
        return [{"counterSet": name, "counters": {"memory": {"value": memory}}}]

    def device(suffix: str, kind: str, memory: str) -> dict[str, Any]:
        attributes = {"kind": {"string": kind}}
        return gpu(f"{name}-{suffix}", attributes=attributes, consumesCounters=uses(memory))

    devices = [device("whole", "whole", "16Gi"), device("p0", "part", "8Gi")]
    devices.append(device("p1", "part", "8Gi"))
    parts = slice_("n1", devices, name=f"{name}-devices")
    for s in (counters, parts):
        s["spec"]["pool"] = {"name": pool, "generation": 1, "resourceSliceCount": 2}
    return [counters, parts]


def partition_holders(store: Store, scheduler: Scheduler) -> None:
    place(
        store,
        scheduler,
        claim("a-part", PART),
        holder("a", "a-part", 1),
        claim("b-part", PART),
        holder("b", "b-part", 2),
    )


def test_both_partitions_are_evicted_for_a_whole_gpu() -> None:
    store, scheduler = make(node("n1"), device_class(), *partitioned_gpu("g0"))
    partition_holders(store, scheduler)
    decision = preempt(store, scheduler, WHOLE)
    assert decision.nominated == "n1"
    assert alive(store) == {"high"}
    report = scheduler.preemption.reports["default/high"]
    assert report.victims == ["default/b", "default/a"]
    freed = sorted(d for devices in report.frees.values() for d in devices)
    assert freed == [f"{DRIVER}/n1/g0-p0", f"{DRIVER}/n1/g0-p1"]
    # The cheaper single victims were tried first (lower priority first) and did not fit.
    assert [t.victims for t in report.tried] == [("default/a",), ("default/b",)]
    assert all(t.reason == "cannot allocate all claims" for t in report.tried)


def test_explain_shows_victims_devices_and_cheaper_sets() -> None:
    store, scheduler = make(node("n1"), device_class(), *partitioned_gpu("g0"))
    partition_holders(store, scheduler)
    preempt(store, scheduler, WHOLE)
    result = explain_pod(scheduler, "default", "high")
    lines = result["summary"]
    start = lines.index("extended preemption on n1: victims default/b, default/a")
    # The queue places b (priority 2) first: it got g0-p0.
    assert lines[start + 1 : start + 6] == [
        f"  default/b frees {DRIVER}/n1/g0-p0",
        f"  default/a frees {DRIVER}/n1/g0-p1",
        "  2 cheaper victim sets did not fit:",
        "    [default/a]: cannot allocate all claims",
        "    [default/b]: cannot allocate all claims",
    ]
    assert result["preemptionReport"]["victims"] == ["default/b", "default/a"]


def test_the_search_bound_is_reported() -> None:
    store, scheduler = make(node("n1"), device_class(), *partitioned_gpu("g0"), sets=1)
    partition_holders(store, scheduler)
    decision = preempt(store, scheduler, WHOLE)
    assert decision.nominated is None
    assert alive(store) == {"a", "b", "high"}
    assert decision.message is not None
    assert decision.message.endswith(
        "preemption: 0/1 nodes are available: "
        "1 extended preemption tried 1 victim sets on node n1 without a fit."
    )


# --- fewest victims before the lowest priority sum --------------------------------------------


def choice_cluster(mode: str) -> tuple[Store, Scheduler]:
    """g1 (a plain whole GPU) is held by x (priority 50); g0's two partitions by a and b."""
    plain = slice_("n1", [gpu("g1", attributes={"kind": {"string": "whole"}})], name="plain")
    plain["spec"]["pool"]["name"] = "plain"
    store, scheduler = make(
        node("n1"), device_class(), *partitioned_gpu("g0"), plain, mode=mode, dra=True
    )
    partition_holders(store, scheduler)
    place(store, scheduler, claim("x-gpu", WHOLE), holder("x", "x-gpu", 50))
    return store, scheduler


def test_fewest_victims_beat_a_lower_priority_sum() -> None:
    # {x}: one victim, priority 50; {a, b}: two victims, priority sum 3. One victim wins.
    store, scheduler = choice_cluster("extended")
    decision = preempt(store, scheduler, WHOLE)
    assert decision.nominated == "n1"
    assert alive(store) == {"a", "b", "high"}
    report = scheduler.preemption.reports["default/high"]
    assert report.victims == ["default/x"]
    assert report.frees == {"default/x": [f"{DRIVER}/plain/g1"]}
    assert [t.victims for t in report.tried] == [("default/a",), ("default/b",)]


def test_upstream_mode_unchanged_reprieves_the_most_important_first() -> None:
    # Upstream removes every lower pod, then reprieves x (priority 50) first: a and b go.
    store, scheduler = choice_cluster("upstream")
    decision = preempt(store, scheduler, WHOLE)
    assert decision.nominated == "n1"
    assert alive(store) == {"x", "high"}
    assert scheduler.preemption.reports == {}


def test_a_victim_on_another_node_frees_a_network_gpu() -> None:
    # low runs on n2 and fills it; high fits on n1 only once the fabric GPU is free.
    store, scheduler = make(
        node("n1"), node("n2", cpu="1"), device_class(), fabric(), mode="extended"
    )
    low = holder("low", "low-gpu", 0)
    low["spec"]["nodeSelector"] = {"kubernetes.io/hostname": "n2"}
    place(store, scheduler, claim("low-gpu"), low)
    decision = preempt(store, scheduler)
    assert decision.nominated == "n1"
    assert alive(store) == {"high"}
    report = scheduler.preemption.reports["default/high"]
    assert (report.node, report.victims) == ("n1", ["default/low"])


def pdb(app: str, allowed: int) -> dict[str, Any]:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": app, "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": app}}},
        "status": {"disruptionsAllowed": allowed},
    }


def test_among_equally_many_victims_pdb_violations_count_before_priority() -> None:
    store, scheduler = make(
        node("n1"), device_class(), slice_("n1", [gpu("g0"), gpu("g1")]), pdb("kept", 0)
    )
    protected = holder("p1", "p1-gpu", 1)
    protected["metadata"]["labels"] = {"app": "kept"}
    place(store, scheduler, claim("p1-gpu"), protected, claim("p2-gpu"), holder("p2", "p2-gpu", 2))
    decision = preempt(store, scheduler)
    assert decision.nominated == "n1"
    assert alive(store) == {"p1", "high"}
    assert scheduler.preemption.reports["default/high"].victims == ["default/p2"]
