"""The explain recorder and the first-fit scheduler with its failure memo."""

from __future__ import annotations

import random

from alloc_builders import claim, device, device_class, node, request, slice_

from kubedra.allocator.engine import Allocator
from kubedra.allocator.explain import Recorder
from kubedra.allocator.features import Features
from kubedra.allocator.schedule import FirstFitScheduler


def test_recorder_counts_rejections_per_request() -> None:
    slices = [
        slice_(
            "s",
            [
                device("gpu-0", taints=[{"key": "bad", "effect": "NoSchedule"}]),
                device("gpu-1"),
            ],
        )
    ]
    allocator = Allocator(Features(), [device_class()], slices, [])
    outcome, recorder = allocator.explain(node(), [claim("c", request("r", count=2))])
    assert outcome.unschedulable
    summary = recorder.as_dict()
    assert summary[0]["claim"] == "default/c" and summary[0]["request"] == "r"
    rejected = summary[0]["rejected"]
    assert isinstance(rejected, dict)
    assert rejected["taint not tolerated"]["count"] >= 1
    assert rejected["taint not tolerated"]["examples"] == ["gpu.example.com/node-1/gpu-0"]


def _cluster(nodes: int, per_node: int) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    names = [f"node-{i}" for i in range(nodes)]
    slices = [
        slice_(
            f"{n}-gpus",
            [device(f"gpu-{j}", attrs={"half": j % 2}) for j in range(per_node)],
            pool=n,
            node_name=n,
        )
        for n in names
    ]
    return [node(n) for n in names], slices


def test_memo_gives_the_same_placements_as_trying_every_node() -> None:
    nodes, slices = _cluster(6, 4)
    rng = random.Random(7)
    pods = []
    for i in range(40):
        count = rng.choice([1, 1, 2, 3])
        constraints = [{"matchAttribute": "gpu.example.com/half"}] if count > 1 else []
        pods.append(
            (f"pod-{i}", [claim(f"c{i}", request("r", count=count), constraints=constraints)])
        )
    runs = []
    for memo in (True, False):
        allocator = Allocator(Features(), [device_class()], slices, [])
        scheduler = FirstFitScheduler(allocator, nodes, memo=memo)
        placements = [scheduler.schedule(name, claims) for name, claims in pods]
        runs.append(
            ([(p.pod, p.node, p.nodes_tried) for p in placements], scheduler.allocate_calls)
        )
    assert runs[0] == runs[1]
    assert any(node_name is None for _, node_name, _ in runs[0][0])


def test_fatal_error_stops_the_pod_but_not_later_pods() -> None:
    nodes, slices = _cluster(2, 1)
    allocator = Allocator(Features(), [device_class()], slices, [])
    scheduler = FirstFitScheduler(allocator, nodes)
    broken = scheduler.schedule("p0", [claim("c0", request("r", cls="missing"))])
    assert broken.node is None and broken.nodes_tried == 1
    assert broken.error is not None and "claim default/c0" in broken.error
    fine = scheduler.schedule("p1", [claim("c1", request("r"))])
    assert fine.node == "node-0"


def test_recorder_tells_class_and_request_selectors_apart() -> None:
    slices = [
        slice_(
            "s",
            [
                device("gpu-0", attrs={"model": "T4"}),
                device("gpu-1", attrs={"model": "A100", "mem": 16}),
            ],
        )
    ]
    cls = device_class("gpu.example.com", 'device.attributes["gpu.example.com"].model == "A100"')
    allocator = Allocator(Features(), [cls], slices, [])
    recorder = Recorder()
    wants_big = request(
        "r", selectors=[{"cel": {"expression": 'device.attributes["gpu.example.com"].mem > 32'}}]
    )
    assert allocator.allocate(node(), [claim("c", wants_big)], recorder).unschedulable
    rejected = recorder.as_dict()[0]["rejected"]
    assert isinstance(rejected, dict)
    assert rejected["class selector false"]["examples"] == ["gpu.example.com/node-1/gpu-0"]
    assert rejected["request selector false"]["examples"] == ["gpu.example.com/node-1/gpu-1"]


def test_cel_runtime_error_names_the_claim_and_device() -> None:
    slices = [slice_("s", [device("gpu-0")])]
    allocator = Allocator(Features(), [device_class()], slices, [])
    broken = request(
        "r",
        selectors=[{"cel": {"expression": 'device.attributes["gpu.example.com"].model == "x"'}}],
    )
    outcome = allocator.allocate(node(), [claim("c", broken, namespace="ns")])
    assert outcome.error is not None
    assert outcome.error.startswith(
        "claim ns/c: selector #0 on device gpu.example.com/node-1/gpu-0: "
        "CEL runtime error: no such key"
    )


def _mixed_cluster(rng: random.Random) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """Nodes with plain GPUs, partitions over shared counters and a shareable device."""
    nodes, slices = [], []
    for i in range(5):
        name = f"node-{i}"
        nodes.append(node(name))
        counters = slice_(
            f"{name}-counters",
            [],
            pool=name,
            node_name=None,
            count=2,
            sharedCounters=[{"name": "gpu", "counters": {"mem": {"value": "4"}}}],
        )
        parts = [
            device(
                f"part-{j}",
                attrs={"kind": "part"},
                consumesCounters=[{"counterSet": "gpu", "counters": {"mem": {"value": "2"}}}],
            )
            for j in range(rng.randint(1, 3))
        ]
        shared = device(
            "shared",
            attrs={"kind": "shared"},
            allowMultipleAllocations=True,
            capacity={"mem": {"value": "8"}},
        )
        slices += [
            counters,
            slice_(f"{name}-devices", [*parts, shared], pool=name, node_name=name, count=2),
        ]
    return nodes, slices


def test_memo_is_sound_with_counters_and_shared_capacity() -> None:
    for seed in range(5):
        rng = random.Random(seed)
        nodes, slices = _mixed_cluster(rng)
        pods = []
        for i in range(30):
            kind = rng.choice(["part", "shared"])
            selector = [
                {"cel": {"expression": f'device.attributes["gpu.example.com"].kind == "{kind}"'}}
            ]
            extra: dict[str, object] = {"selectors": selector}
            if kind == "shared":
                extra["capacity"] = {"requests": {"mem": str(rng.randint(1, 5))}}
            pods.append((f"pod-{i}", [claim(f"c{i}", request("r", count=1, **extra))]))
        runs = []
        for memo in (True, False):
            allocator = Allocator(Features(), [device_class()], slices, [])
            scheduler = FirstFitScheduler(allocator, nodes, memo=memo)
            runs.append(
                [
                    (p.pod, p.node, p.nodes_tried)
                    for p in (scheduler.schedule(name, claims) for name, claims in pods)
                ]
            )
        assert runs[0] == runs[1], f"seed {seed}"
