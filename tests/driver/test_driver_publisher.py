"""ResourceSlice publishing semantics (upstream's controller) against a cluster directory."""

from __future__ import annotations

import time

import pytest

from kubedra.api import models
from kubedra.driver.publisher import (
    Pool,
    PoolError,
    ResourceSlicePublisher,
    decode_index,
    index_length,
)
from kubedra.driver.split import SliceContent
from kubedra.driver.store_dir import ClusterDirectory

DRIVER = "gpu.example.com"


def devices(n: int, memory: str = "1Gi") -> list[dict]:
    return [{"name": f"d-{i}", "capacity": {"memory": {"value": memory}}} for i in range(n)]


@pytest.fixture
def cluster(tmp_path) -> ClusterDirectory:
    store = ClusterDirectory(tmp_path)
    store.register_node("node-1")
    return store


def slices(cluster: ClusterDirectory) -> list[dict]:
    return sorted(
        cluster.list_resource_slices(DRIVER, "node-1"), key=lambda s: s["metadata"]["name"]
    )


def publisher(cluster: ClusterDirectory, pools: dict[str, Pool]) -> ResourceSlicePublisher:
    pub = ResourceSlicePublisher(cluster, DRIVER, "node-1")
    pub.update(pools)
    return pub


def test_first_publish_names_counts_and_owner(cluster):
    pub = publisher(cluster, {"node-1": Pool(devices=devices(130))})
    stats = pub.sync()
    assert (stats.creates, stats.updates, stats.deletes) == (2, 0, 0)
    published = slices(cluster)
    assert [s["metadata"]["name"][:29] for s in published] == [
        "00000-gpu.example.com-node-1-",
        "00001-gpu.example.com-node-1-",
    ]
    for s in published:
        assert s["spec"]["pool"] == {"name": "node-1", "generation": 1, "resourceSliceCount": 2}
        assert s["spec"]["nodeName"] == "node-1"
        assert s["metadata"]["ownerReferences"] == [
            {
                "apiVersion": "v1",
                "kind": "Node",
                "name": "node-1",
                "uid": cluster.get_node_uid("node-1"),
                "controller": True,
            }
        ]
    assert [len(s["spec"]["devices"]) for s in published] == [128, 2]
    assert pub.sync().creates == 0  # nothing to do the second time


def test_deleted_slice_is_recreated_with_a_generation_bump(cluster):
    pub = publisher(cluster, {"node-1": Pool(devices=devices(130))})
    pub.sync()
    cluster.delete_resource_slice(slices(cluster)[1]["metadata"]["name"])
    stats = pub.sync()
    assert (stats.creates, stats.updates) == (1, 1)
    assert {s["spec"]["pool"]["generation"] for s in slices(cluster)} == {2}


def test_one_changed_slice_is_updated_in_place_without_bump(cluster):
    pub = publisher(cluster, {"node-1": Pool(devices=devices(130))})
    pub.sync()
    changed = devices(130)
    changed[129]["capacity"]["memory"]["value"] = "2Gi"
    pub.update({"node-1": Pool(devices=changed)})
    stats = pub.sync()
    assert (stats.creates, stats.updates, stats.deletes) == (0, 1, 0)
    assert [s["spec"]["pool"]["generation"] for s in slices(cluster)] == [1, 1]


def test_two_changed_slices_bump_the_generation(cluster):
    pub = publisher(cluster, {"node-1": Pool(devices=devices(130))})
    pub.sync()
    pub.update({"node-1": Pool(devices=devices(130, memory="2Gi"))})
    stats = pub.sync()
    assert stats.updates == 2
    assert [s["spec"]["pool"]["generation"] for s in slices(cluster)] == [2, 2]


def test_shrinking_deletes_obsolete_slices_and_updates_the_count(cluster):
    pub = publisher(cluster, {"node-1": Pool(devices=devices(300))})
    pub.sync()
    pub.update({"node-1": Pool(devices=devices(10))})
    stats = pub.sync()
    assert stats.deletes == 2
    (remaining,) = slices(cluster)
    assert remaining["spec"]["pool"]["resourceSliceCount"] == 1
    assert len(remaining["spec"]["devices"]) == 10


def test_driver_generation_and_pool_removal(cluster):
    pub = publisher(cluster, {"node-1": Pool(devices=devices(1), generation=7)})
    pub.sync()
    assert slices(cluster)[0]["spec"]["pool"]["generation"] == 7
    pub.update({})
    assert pub.sync().deletes == 1
    assert slices(cluster) == []


def test_slices_with_foreign_names_are_replaced(cluster):
    cluster.put(
        {
            "kind": "ResourceSlice",
            "metadata": {"name": "legacy-slice"},
            "spec": {
                "driver": DRIVER,
                "nodeName": "node-1",
                "pool": {"name": "node-1", "generation": 3, "resourceSliceCount": 1},
                "devices": devices(1),
            },
        }
    )
    pub = publisher(cluster, {"node-1": Pool(devices=devices(1))})
    stats = pub.sync()
    assert (stats.creates, stats.deletes) == (1, 1)
    (published,) = slices(cluster)
    assert published["spec"]["pool"]["generation"] == 4


def test_counters_publish_in_their_own_slice(cluster):
    counters = [{"name": "cs", "counters": {"memory": {"value": "8Gi"}}}]
    consumers = [
        {"name": f"p-{i}", "consumesCounters": [{"counterSet": "cs", "counters": {"memory": {}}}]}
        for i in range(2)
    ]
    pub = publisher(cluster, {"node-1": Pool(devices=consumers, shared_counters=counters)})
    pub.sync()
    first, second = slices(cluster)
    assert first["spec"]["sharedCounters"] == counters and "devices" not in first["spec"]
    assert second["spec"]["devices"] == consumers and "sharedCounters" not in second["spec"]


@pytest.mark.parametrize(
    ("pool", "message"),
    [
        (Pool(devices=[{"name": "a"}, {"name": "a"}]), "duplicate device 'a'"),
        (
            Pool(devices=[{"name": "a", "consumesCounters": [{"counterSet": "x"}]}]),
            "counter set 'x' referenced by device 'a' not found",
        ),
        (
            Pool(
                slices=[
                    SliceContent(shared_counters=[{"name": "x", "counters": {}}]),
                    SliceContent(shared_counters=[{"name": "x", "counters": {}}]),
                ]
            ),
            "duplicate counter set 'x'",
        ),
    ],
)
def test_invalid_pools_are_refused_when_given_not_published(cluster, pool, message):
    errors: list[tuple[object, Exception]] = []
    pub = ResourceSlicePublisher(
        cluster, DRIVER, "node-1", on_error=lambda subject, error: errors.append((subject, error))
    )
    with pytest.raises(PoolError, match=message):
        pub.update({"node-1": pool})
    pub.sync()
    assert errors == []
    assert slices(cluster) == []


def test_missing_node_is_an_error_until_it_exists(tmp_path):
    store = ClusterDirectory(tmp_path)
    pub = publisher(store, {"node-1": Pool(devices=devices(1))})
    with pytest.raises(Exception, match='retrieve node "node-1": not found'):
        pub.sync()
    store.register_node("node-1")
    assert pub.sync().creates == 1


def test_index_prefix_grows_past_five_hex_digits():
    assert index_length(1) == 5
    assert index_length(0x100000) == 5
    assert index_length(0x100001) == 6
    assert decode_index("00001-gpu.example.com-n-abcde", 5) == 1
    assert decode_index("0001-gpu", 5) is None
    assert decode_index("0000g-gpu", 5) is None


def test_background_loop_republishes(cluster):
    pub = ResourceSlicePublisher(cluster, DRIVER, "node-1", resync_interval=0.05)
    pub.update({"node-1": Pool(devices=devices(1))})
    pub.start()
    try:
        assert pub.synced.wait(5)
        name = slices(cluster)[0]["metadata"]["name"]
        cluster.delete_node_resource_slices("node-1")
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not slices(cluster):
            time.sleep(0.02)
        assert slices(cluster) and slices(cluster)[0]["metadata"]["name"] != name
    finally:
        pub.stop()


def test_taint_times_stamped_by_the_apiserver_do_not_cause_updates(cluster):
    tainted = [{"name": "t-0", "taints": [{"key": "k", "effect": "NoSchedule"}]}, *devices(1)]
    pub = publisher(cluster, {"node-1": Pool(devices=tainted)})
    pub.sync()
    (stored,) = slices(cluster)
    stored["spec"]["devices"][0]["taints"][0]["timeAdded"] = "2026-01-01T00:00:00Z"
    cluster.update_resource_slice(stored)  # what the apiserver does on create
    assert pub.sync().updates == 0
    tainted.append({"name": "d-9"})
    pub.update({"node-1": Pool(devices=tainted)})
    assert pub.sync().updates == 1
    (updated,) = slices(cluster)
    assert updated["spec"]["devices"][0]["taints"][0]["timeAdded"] == "2026-01-01T00:00:00Z"


@pytest.mark.parametrize(
    ("device", "message"),
    [
        (
            {"name": "a", "atributes": {"index": {"int": 1}}},
            'cannot be decoded: unknown field "spec.devices[0].atributes"',
        ),
        (
            models.Device(name="a", atributes={"index": {"int": 1}}),  # extra fields are kept
            'cannot be decoded: unknown field "spec.devices[0].atributes"',
        ),
        (
            {"name": "a", "attributes": {"index": {"int": "1"}}},
            "cannot be decoded: spec.devices[0].attributes[index].int: expected integer",
        ),
        (
            {"name": "a", "capacity": {"memory": {"value": "lots"}}},
            "spec.devices[0].capacity[memory].value",
        ),
        (
            {"name": "a", "attributes": {"index": {"int": 1, "bool": True}}},
            'is invalid: spec.devices[0].attributes[index]: Invalid value: {"IntValue":1,',
        ),
    ],
)
def test_slices_the_apiserver_would_refuse_are_refused_before_publishing(cluster, device, message):
    pub = publisher(cluster, {})
    with pytest.raises(PoolError) as refused:
        pub.update({"node-1": Pool(devices=[device])})
    assert str(refused.value).startswith(
        "pool 'node-1': ResourceSlice.resource.k8s.io \"00000-gpu.example.com-node-1-xxxxx\" "
    )
    assert message in str(refused.value)
    pub.sync()
    assert slices(cluster) == []
