"""The scheduler end to end over a store: order, filters, scores, messages, ties."""

from __future__ import annotations

from typing import Any

from sched_builders import claim, cluster, device_class, gpu, node, pod, run, slice_

from kubedra.cluster.store import Store

BIG = 'device.capacity["gpu.example.com"].memory.compareTo(quantity("16Gi")) >= 0'


def _condition(store: Store, name: str) -> dict[str, Any]:
    obj = store.get("Pod", name, "default")
    assert obj is not None
    return next(c for c in obj["status"]["conditions"] if c["type"] == "PodScheduled")


def test_priority_order_then_arrival() -> None:
    high = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "high"},
        "value": 1000,
    }
    _, scheduler = cluster(
        high,
        node("n1"),
        pod("low-a"),
        pod("mid", priority=100),
        pod("top", priorityClassName="high"),
        pod("low-b"),
    )
    order = [d.pod for d in run(scheduler)]
    assert order == ["default/top", "default/mid", "default/low-a", "default/low-b"]


def test_unschedulable_message_counts_sorted_reasons_and_preemption() -> None:
    busy = pod("busy", cpu="1500m", nodeName="n2")
    store, scheduler = cluster(
        node("n1", taints=[{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]),
        node("n2", cpu="2"),
        node("n3", unschedulable=True),
        busy,
        pod("p", cpu="1"),
    )
    (decision,) = run(scheduler)
    expected = (
        "0/3 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s), "
        "1 node(s) were unschedulable. no new claims to deallocate, preemption: 0/3 nodes "
        "are available: 1 No preemption victims found for incoming pod, 2 Preemption is not "
        "helpful for scheduling."
    )
    assert decision.result == "Unschedulable"
    assert decision.message == expected
    cond = _condition(store, "p")
    assert (cond["status"], cond["reason"], cond["message"]) == ("False", "Unschedulable", expected)
    assert decision.filter_reasons == {
        "n1": ("TaintToleration", "node(s) had untolerated taint(s)"),
        "n2": ("NodeResourcesFit", "Insufficient cpu"),
        "n3": ("NodeUnschedulable", "node(s) were unschedulable"),
    }


def test_dra_message_and_retry_after_node_added() -> None:
    store, scheduler = cluster(
        node("n1"),
        node("n2", taints=[{"key": "a", "value": "b", "effect": "NoExecute"}]),
        node("n3"),
        device_class(),
        slice_("n1", [gpu("g0", "8Gi")]),
        slice_("n3", [gpu("g1", "12Gi")]),
        claim("c1", BIG),
        pod("train", claims=["c1"]),
    )
    (decision,) = run(scheduler)
    assert decision.message == (
        "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 cannot allocate all "
        "claims. still not schedulable, preemption: 0/3 nodes are available: 3 Preemption is "
        "not helpful for scheduling."
    )
    assert not scheduler.has_work()
    store.create(node("n4"))
    store.create(slice_("n4", [gpu("g2", "24Gi")]))
    (retry,) = run(scheduler)
    assert (retry.result, retry.node) == ("Scheduled", "n4")
    claim_obj = store.get("ResourceClaim", "c1", "default")
    assert claim_obj is not None
    assert claim_obj["metadata"]["finalizers"] == ["resource.kubernetes.io/delete-protection"]
    assert claim_obj["status"]["allocation"]["devices"]["results"][0]["device"] == "g2"
    assert [r["name"] for r in claim_obj["status"]["reservedFor"]] == ["train"]
    bound = store.get("Pod", "train", "default")
    assert bound is not None and bound["spec"]["nodeName"] == "n4"
    assert _condition(store, "train")["status"] == "True"


def test_filters_node_affinity_and_selector_and_too_many_pods() -> None:
    affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
                ]
            }
        }
    }
    _, scheduler = cluster(
        node("n1", labels={"zone": "a", "disk": "hdd"}),
        node("n2", labels={"zone": "b", "disk": "ssd"}),
        node("n3", labels={"zone": "a", "disk": "ssd"}, pods="0"),
        pod("p", affinity=affinity, nodeSelector={"disk": "ssd"}),
    )
    (decision,) = run(scheduler)
    assert decision.filter_reasons == {
        "n1": ("NodeAffinity", "node(s) didn't match Pod's node affinity/selector"),
        "n2": ("NodeAffinity", "node(s) didn't match Pod's node affinity/selector"),
        "n3": ("NodeResourcesFit", "Too many pods"),
    }
    assert decision.message is not None
    assert decision.message.startswith(
        "0/3 nodes are available: 1 Too many pods, 2 node(s) didn't match Pod's node "
        "affinity/selector. "
    )


def test_scores_least_allocated_and_balanced_by_hand() -> None:
    # n1: 8 cpu / 32Gi, n2: 4 cpu / 32Gi; the pod asks 1 cpu, 4Gi.
    # LeastAllocated: n1 (7000*100//8000 + 28*100//32) // 2 = (87 + 87) // 2 = 87;
    #                 n2 (3000*100//4000 = 75, 87) -> 81.
    # Balanced (1.36): n1 fractions 0.125/0.125 -> 100 with and without the pod -> 75;
    #                  n2 0.25/0.125 -> std 0.0625 -> 93; 50 + (50 + 93 - 100) // 2 = 71.
    # TaintToleration: no taints -> normalized 100 (reverse) * weight 3 = 300 on both.
    _, scheduler = cluster(
        node("n1", cpu="8"), node("n2", cpu="4"), pod("p", cpu="1", memory="4Gi")
    )
    (decision,) = run(scheduler)
    assert decision.scores == {
        "n1": {
            "TaintToleration": 300,
            "NodeAffinity": 0,
            "NodeResourcesFit": 87,
            "NodeResourcesBalancedAllocation": 75,
        },
        "n2": {
            "TaintToleration": 300,
            "NodeAffinity": 0,
            "NodeResourcesFit": 81,
            "NodeResourcesBalancedAllocation": 71,
        },
    }
    assert decision.node == "n1"
    assert decision.tied == []


def test_scores_taints_and_preferred_affinity_by_hand() -> None:
    # PreferNoSchedule taints not tolerated: n1 2, n2 1, n3 0 -> reverse-normalized
    # 100 - 100*2//2 = 0, 100 - 100*1//2 = 50, 100 -> times 3.
    # Preferred terms: zone=b weight 5 (n2), disk=ssd weight 3 (n1) -> 3, 5, 0 ->
    # 100*3//5 = 60, 100, 0 -> times 2.
    prefer = [
        {"key": "k1", "value": "v", "effect": "PreferNoSchedule"},
        {"key": "k2", "value": "v", "effect": "PreferNoSchedule"},
    ]
    affinity = {
        "nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 5,
                    "preference": {
                        "matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]
                    },
                },
                {
                    "weight": 3,
                    "preference": {
                        "matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]
                    },
                },
            ]
        }
    }
    _, scheduler = cluster(
        node("n1", labels={"disk": "ssd"}, taints=prefer),
        node("n2", labels={"zone": "b"}, taints=prefer[:1]),
        node("n3"),
        pod("p", affinity=affinity),
    )
    (decision,) = run(scheduler)
    taint = {n: s["TaintToleration"] for n, s in decision.scores.items()}
    affinity_scores = {n: s["NodeAffinity"] for n, s in decision.scores.items()}
    assert taint == {"n1": 0, "n2": 150, "n3": 300}
    assert affinity_scores == {"n1": 120, "n2": 200, "n3": 0}
    assert decision.node == "n2"


def test_dynamic_resources_score_prefers_first_subrequest() -> None:
    # firstAvailable [big, small]: n1 gets "big" (index 0) -> 8, n2 "small" (index 1) -> 7;
    # normalized 100 and 100*7//8 = 87.
    request = {
        "name": "gpu",
        "firstAvailable": [
            {
                "name": "big",
                "deviceClassName": "gpu",
                "selectors": [
                    {
                        "cel": {
                            "expression": 'device.capacity["gpu.example.com"].memory'
                            '.compareTo(quantity("32Gi")) >= 0'
                        }
                    }
                ],
            },
            {"name": "small", "deviceClassName": "gpu"},
        ],
    }
    prioritized = claim("c1")
    prioritized["spec"]["devices"]["requests"] = [request]
    _, scheduler = cluster(
        node("n1"),
        node("n2"),
        device_class(),
        slice_("n1", [gpu("g0", "40Gi")]),
        slice_("n2", [gpu("g1", "16Gi")]),
        prioritized,
        pod("p", claims=["c1"]),
    )
    (decision,) = run(scheduler)
    assert {n: s["DynamicResources"] for n, s in decision.scores.items()} == {"n1": 100, "n2": 87}
    assert decision.node == "n1"
    results = decision.allocations["default/c1"]["devices"]["results"]
    assert results[0]["request"] == "gpu/big"


def test_ties_pick_first_in_order_and_report_them() -> None:
    _, scheduler = cluster(node("n1"), node("n2"), node("n3"), pod("a"), pod("b"))
    first, second = run(scheduler)
    assert first.node == "n1" and first.tied == ["n1", "n2", "n3"]
    # n1 now holds a pod (its non-zero requests lower LeastAllocated): n2 and n3 tie.
    assert second.node == "n2" and second.tied == ["n2", "n3"]


def test_seeded_tie_break_is_reproducible() -> None:
    picks = []
    for _ in range(2):
        _, scheduler = cluster(*(node(f"n{i}") for i in range(6)), pod("a"), seed=7)
        (decision,) = run(scheduler)
        assert decision.node in decision.tied and len(decision.tied) == 6
        picks.append(decision.node)
    assert picks[0] == picks[1]
    others = set()
    for seed in range(12):
        _, scheduler = cluster(*(node(f"n{i}") for i in range(6)), pod("a"), seed=seed)
        others.add(run(scheduler)[0].node)
    assert len(others) > 1


def test_percentage_of_nodes_to_score_and_rotating_start() -> None:
    # 200 nodes: adaptive 50 - 200//125 = 49% -> 98, below the minimum of 100 -> 100 nodes.
    _, scheduler = cluster(*(node(f"n{i:03d}") for i in range(200)), pod("a"), pod("b"))
    assert scheduler.num_feasible_nodes_to_find(200) == 100
    assert scheduler.num_feasible_nodes_to_find(5000) == 500
    assert scheduler.num_feasible_nodes_to_find(50) == 50
    first, second = run(scheduler)
    assert first.feasible_nodes == 100 and first.evaluated_nodes == 100
    assert first.node == "n000"
    assert second.node == "n100"


def test_window_wraps_around_and_skips_rejected_nodes() -> None:
    taint = [{"key": "t", "value": "x", "effect": "NoSchedule"}]
    nodes = [node(f"n{i:03d}", taints=taint if i % 2 else None) for i in range(150)]
    _, scheduler = cluster(*nodes, pod("a"), pod("b"), pod("c"))
    first, second, third = run(scheduler)
    # 150 nodes -> 100 to find, but only the 75 even ones pass: every node is processed.
    assert (first.feasible_nodes, first.evaluated_nodes) == (75, 150)
    assert first.rejections == {"node(s) had untolerated taint(s)": 75}
    assert first.node == "n000"
    assert scheduler.next_start_node_index == 0
    assert second.node == "n002"
    assert third.node == "n004"


def test_window_rotates_across_the_end_of_the_node_list() -> None:
    _, scheduler = cluster(*(node(f"n{i:03d}") for i in range(150)), pod("a"), pod("b"))
    first, second = run(scheduler)
    assert (first.evaluated_nodes, first.node) == (100, "n000")
    assert scheduler.next_start_node_index == 50
    # The second window is n100..n149 then n000..n049; n100 is first among the tied nodes.
    assert (second.evaluated_nodes, second.node) == (100, "n100")
    assert second.tied[0] == "n100" and "n000" not in second.tied
    assert len(second.tied) == 99


def test_preemption_evicts_lower_priority_pods_and_nominates_the_node() -> None:
    low = pod("low", cpu="1500m", nodeName="n1", priority=0)
    keep = pod("keep", cpu="200m", nodeName="n1", priority=50)
    store, scheduler = cluster(node("n1", cpu="2"), low, keep, pod("high", cpu="1", priority=100))
    first, second = run(scheduler)
    assert first.result == "Unschedulable"
    assert first.message == "0/1 nodes are available: 1 Insufficient cpu."
    assert first.nominated == "n1"
    assert store.get("Pod", "low", "default") is None
    assert store.get("Pod", "keep", "default") is not None
    high = store.get("Pod", "high", "default")
    assert high is not None and high["status"]["nominatedNodeName"] == "n1"
    assert (second.result, second.node) == ("Scheduled", "n1")


def test_preemption_policy_never() -> None:
    low = pod("low", cpu="1500m", nodeName="n1", priority=0)
    _, scheduler = cluster(
        node("n1", cpu="2"), low, pod("high", cpu="1", priority=100, preemptionPolicy="Never")
    )
    (decision,) = run(scheduler)
    assert decision.message == (
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
        "preemption: not eligible due to preemptionPolicy=Never."
    )


def _mixed_rejections() -> list[dict[str, Any]]:
    """n0 and n4 lack cpu, n1 and n3 are tainted, n2 and n5 fit a 1-cpu pod."""
    taint = [{"key": "t", "value": "x", "effect": "NoSchedule"}]
    return [
        node("n0", cpu="2"),
        node("n1", taints=taint),
        node("n2"),
        node("n3", taints=taint),
        node("n4", cpu="2"),
        node("n5"),
        pod("busy-0", cpu="1500m", nodeName="n0"),
        pod("busy-4", cpu="1500m", nodeName="n4"),
        pod("p", cpu="1"),
    ]


def test_a_placed_pods_rejections_are_counted_in_the_order_nodes_were_evaluated() -> None:
    _, scheduler = cluster(*_mixed_rejections())
    (decision,) = run(scheduler)
    assert decision.result == "Scheduled"
    assert (decision.feasible_nodes, decision.evaluated_nodes) == (2, 6)
    assert list(decision.rejections.items()) == [
        ("Insufficient cpu", 2),
        ("node(s) had untolerated taint(s)", 2),
    ]
    # Starting at n1 (the rotating start index), the taint comes first.
    _, scheduler = cluster(*_mixed_rejections())
    scheduler.next_start_node_index = 1
    (decision,) = run(scheduler)
    assert list(decision.rejections.items()) == [
        ("node(s) had untolerated taint(s)", 2),
        ("Insufficient cpu", 2),
    ]
