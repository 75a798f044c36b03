"""A claim is reserved for at most 256 consumers, end to end with kubedra.scheduler."""

from __future__ import annotations

from cluster_builders import claim, device_class, gpu_slice, node, pod

from kubedra.scheduler import new_simulation


def test_reserved_for_limit_of_256_end_to_end() -> None:
    sim = new_simulation()
    pods = [pod(f"p{i:03d}", claim="shared") for i in range(257)]
    objects = [node("n1", pods=500), device_class(), gpu_slice("n1", "g0"), claim("shared")]
    assert sim.load([*objects, *pods]) == []
    sim.run()
    shared = sim.store.get("ResourceClaim", "shared", "default")
    assert shared is not None
    assert len(shared["status"]["reservedFor"]) == 256
    last = sim.store.get("Pod", "p256", "default")
    assert last is not None and "nodeName" not in last["spec"]
    [scheduled] = [c for c in last["status"]["conditions"] if c["type"] == "PodScheduled"]
    assert scheduled["status"] == "False"
    assert scheduled["message"].startswith("0/1 nodes are available: resourceclaim in use.")
    sim.apply(lambda s: s.store.delete("Pod", "p000"), "free one slot")
    last = sim.store.get("Pod", "p256", "default")
    assert last is not None and last["spec"]["nodeName"] == "n1"
    shared = sim.store.get("ResourceClaim", "shared", "default")
    assert shared is not None and len(shared["status"]["reservedFor"]) == 256
    assert "p000" not in {r["name"] for r in shared["status"]["reservedFor"]}
