"""What the driver kit writes, the rest of kubedra reads and the apiserver rules accept."""

from __future__ import annotations

import pytest

from kubedra.api.defaults import apply_defaults
from kubedra.api.io import load_paths
from kubedra.api.validation import format_invalid, validate_object
from kubedra.driver.publisher import Pool, ResourceSlicePublisher
from kubedra.driver.store_dir import ClusterDirectory
from kubedra.drivers.example_gpu import ExampleGpuDriver

DRIVER = "gpu.example.com"


def device(i: int, *, taint: bool = False, counter: bool = False) -> dict:
    entry: dict = {"name": f"dev-{i}", "attributes": {"index": {"int": i}}}
    if taint:
        entry["taints"] = [{"key": "example.com/broken", "effect": "NoSchedule"}]
    if counter:
        entry["consumesCounters"] = [
            {"counterSet": f"set-{i % 9}", "counters": {"memory": {"value": "1Gi"}}}
        ]
    return entry


COUNTER_SETS = [{"name": f"set-{i}", "counters": {"memory": {"value": "64Gi"}}} for i in range(9)]

POOLS = {
    "plain-at-limit": Pool(devices=[device(i) for i in range(128)]),
    "plain-over-limit": Pool(devices=[device(i) for i in range(257)]),
    "tainted-over-limit": Pool(devices=[device(i, taint=True) for i in range(65)]),
    "counters": Pool(
        devices=[device(i, counter=True) for i in range(130)], shared_counters=COUNTER_SETS
    ),
    "mixed": Pool(devices=[device(i, taint=i == 100) for i in range(200)]),
}


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> tuple[ClusterDirectory, list]:
    root = tmp_path_factory.mktemp("cluster")
    cluster = ClusterDirectory(root)
    cluster.register_node("node-1")
    pools = dict(POOLS)
    example = ExampleGpuDriver("node-1", root / "cdi", partitions=4)
    pools["node-1"] = example.pools()["node-1"]
    publisher = ResourceSlicePublisher(cluster, DRIVER, "node-1")
    publisher.update(pools)
    publisher.sync()
    return cluster, cluster.list_resource_slices(DRIVER, "node-1")


def test_every_published_slice_passes_apiserver_validation(published):
    _, slices = published
    assert len(slices) == 1 + 3 + 2 + (2 + 3) + 3 + (1 + 1)
    for obj in slices:
        errors = validate_object(apply_defaults(obj))
        assert errors == [], format_invalid(obj, errors)


def test_slice_counts_per_pool(published):
    _, slices = published
    counts: dict[str, list[int]] = {}
    for obj in sorted(slices, key=lambda s: s["metadata"]["name"]):
        pool = obj["spec"]["pool"]
        assert pool["resourceSliceCount"] == sum(
            1 for s in slices if s["spec"]["pool"]["name"] == pool["name"]
        )
        counts.setdefault(pool["name"], []).append(len(obj["spec"].get("devices") or []))
    assert counts["plain-at-limit"] == [128]
    assert counts["plain-over-limit"] == [128, 128, 1]
    assert counts["tainted-over-limit"] == [64, 1]
    assert counts["counters"] == [0, 0, 64, 64, 2]
    assert counts["mixed"] == [100, 64, 36]


def test_the_cluster_directory_loads_with_kubedra_api(published):
    cluster, slices = published
    result = load_paths([cluster.root])
    assert result.errors == []
    kinds = [o.kind for o in result.objects]
    assert kinds.count("ResourceSlice") == len(slices)
    assert "Node" in kinds
