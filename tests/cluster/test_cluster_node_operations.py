"""The simulated kubelet and KEP-5945 optional node operations (DRAOptionalNodeOperations,
alpha in 1.37).

Sources: k8s.io/api ``resource/v1/types.go`` at the 1.37 development branch
(``ResourceSliceSpec.SkipNodeOperations``: "If all allocated devices for a driver in a claim
skip an operation, that gRPC call will be skipped"; kubernetes/kubernetes#139933), and the
allocator's node check in ``structured/internal/experimental/allocator_experimental.go`` of
kubernetes/kubernetes at 4426859839dfc (the node must declare ``DRAOptionalNodeOperations``).
"""

from __future__ import annotations

from typing import Any

from cluster_builders import claim, device_class, gpu_slice, node, pod

from kubedra.allocator.features import Features
from kubedra.cluster.simulation import Simulation
from kubedra.scheduler import new_simulation


def _objects(skip: list[str] | None) -> list[dict[str, Any]]:
    gpus = gpu_slice("node-1", "gpu-0")
    if skip is not None:
        gpus["spec"]["skipNodeOperations"] = skip
    return [node("node-1"), device_class(), gpus, claim("c"), pod("p", claim="c")]


def _run(features: Features, skip: list[str] | None) -> Simulation:
    sim = new_simulation(features=features)
    assert sim.load(_objects(skip)) == []
    sim.run()
    return sim


ON = Features(optional_node_operations=True)


def test_with_the_gate_the_kubelet_declares_the_feature_and_skips_prepare() -> None:
    sim = _run(ON, ["*"])
    node_obj = sim.store.get("Node", "node-1")
    assert node_obj is not None
    assert node_obj["status"]["declaredFeatures"] == ["DRAOptionalNodeOperations"]
    pod_obj = sim.store.get("Pod", "p", "default")
    assert pod_obj is not None and pod_obj["status"]["phase"] == "Running"
    result = sim.store.get("ResourceClaim", "c", "default")["status"]["allocation"]  # type: ignore[index]
    assert result["devices"]["results"][0]["skipNodeOperations"] == ["*"]
    [prepare] = sim.kubelet.node_operations
    assert (prepare.operation, prepare.claim, prepare.driver, prepare.skipped) == (
        "NodePrepareResources",
        "default/c",
        "gpu.example.com",
        True,
    )


def test_only_the_named_operation_is_skipped() -> None:
    """Unprepare is skipped, prepare still called; after the pod is gone the unprepare call is
    logged as skipped."""
    sim = _run(ON, ["NodeUnprepareResources"])
    sim.store.delete("Pod", "p", "default")
    sim.run()
    calls = [(op.operation, op.skipped) for op in sim.kubelet.node_operations]
    assert calls == [("NodePrepareResources", False), ("NodeUnprepareResources", True)]


def test_without_the_gate_the_device_is_not_allocated() -> None:
    """A newest-implementation scheduler with the gate off refuses devices of a slice that
    skips node operations; the pod stays pending."""
    sim = _run(Features(), ["*"])
    pod_obj = sim.store.get("Pod", "p", "default")
    assert pod_obj is not None and not pod_obj["spec"].get("nodeName")
    assert sim.kubelet.node_operations == []


def test_a_slice_without_the_field_is_prepared_as_before() -> None:
    sim = _run(ON, None)
    assert [(op.operation, op.skipped) for op in sim.kubelet.node_operations] == [
        ("NodePrepareResources", False)
    ]


def test_a_node_that_declares_the_feature_later_gets_the_waiting_pod() -> None:
    """A Node created without ``declaredFeatures`` (through the API, not registered by its
    kubelet) gets them from the kubelet's next sync. That update is a scheduling change
    (upstream's UpdateNodeDeclaredFeature, not a heartbeat): the pod waiting for a device that
    skips node operations is tried again, and the allocator sees the feature (no outcome
    remembered from before it was declared)."""
    sim = new_simulation(features=ON)
    objects = _objects(["*"])
    assert sim.load(objects[1:]) == []  # everything but the node
    sim.run()
    sim.store.create(objects[0])  # as serve-api creates it: no declared features yet
    sim.run()
    node_obj = sim.store.get("Node", "node-1")
    assert node_obj is not None
    assert node_obj["status"]["declaredFeatures"] == ["DRAOptionalNodeOperations"]
    pod_obj = sim.store.get("Pod", "p", "default")
    assert pod_obj is not None and pod_obj["spec"].get("nodeName") == "node-1"
    assert [d.result for d in sim.scheduler.decisions][-1] == "Scheduled"
