"""Hostile and broken input to the driver kit: nothing read or written outside the given
directories, per-claim errors only, streams that cannot starve the kubelet, leftovers cleaned."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import grpc
import pytest

from conftest import build_claim
from kubedra.driver.helper import PluginHelper
from kubedra.driver.proto import kubedra_dra_health_v1_pb2 as health_pb2
from kubedra.driver.proto import kubedra_dra_health_v1_pb2_grpc as health_grpc
from kubedra.driver.proto import kubedra_dra_v1_pb2 as v1_pb2
from kubedra.driver.proto import kubedra_dra_v1_pb2_grpc as v1_grpc
from kubedra.driver.server import PluginPaths, PluginServer
from kubedra.driver.sockets import plugin_paths
from kubedra.driver.store import StoreError, open_store
from kubedra.driver.store_dir import ClusterDirectory
from kubedra.driver.types import ClaimRef
from kubedra.drivers.example_gpu import ExampleGpuDriver

DRIVER = "gpu.example.com"


@pytest.fixture
def gpu_helper(tmp_path):
    cluster = ClusterDirectory(tmp_path / "cluster")
    driver = ExampleGpuDriver("node-1", tmp_path / "cdi", gpus=4)
    helper = PluginHelper(driver, DRIVER, cluster, tmp_path / "plugin")
    return helper, cluster, tmp_path


@pytest.mark.parametrize(
    "namespace, name, uid",
    [
        ("../../outside", "c", "uid-c"),
        ("ABSOLUTE", "c", "uid-c"),
        ("default", "../../../outside/c", "uid-c"),
        ("default", "c", "../../uid-c"),
        ("default", "c", "uid\x00c"),
        ("", "c", "uid-c"),
        ("Default", "c", "uid-c"),
    ],
)
def test_claim_references_never_become_paths_unchecked(gpu_helper, namespace, name, uid):
    helper, _, root = gpu_helper
    if namespace == "ABSOLUTE":
        namespace = str(root / "outside")
    # An allocated claim planted where the traversal (or the absolute path) would lead.
    (root / "outside").mkdir()
    (root / "outside" / "c.yaml").write_text(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
        f"metadata: {{name: c, namespace: outside, uid: {uid!r}}}\n"
        "status: {allocation: {devices: {results: "
        "[{request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-0}]}}}\n"
    )
    ref = ClaimRef(namespace, name, uid)
    result = helper.prepare([ref])[uid]
    assert result.error.startswith("invalid claim reference")
    assert not result.devices
    assert not (root / "cdi").exists()  # nothing was prepared
    assert helper.unprepare([ref])[uid].startswith("invalid claim reference")


def test_invalid_reference_message_names_field_and_rule(gpu_helper):
    helper, _, _ = gpu_helper
    error = helper.prepare([ClaimRef("../..", "c", "uid-c")])["uid-c"].error
    assert error.startswith('invalid claim reference "../../c": namespace: Invalid value: "../..":')
    assert "a lowercase RFC 1123 label must consist of" in error


def test_a_nul_byte_in_one_uid_fails_only_that_claim(gpu_helper):
    helper, cluster, root = gpu_helper
    for name in ("a", "b"):
        cluster.put(build_claim(name, f"uid-{name}", [("gpu", f"gpu-{'ab'.index(name)}")]))
    refs = [ClaimRef("default", n, f"uid-{n}") for n in ("a", "b")]
    assert all(not r.error for r in helper.prepare(refs).values())
    assert len(list((root / "cdi").glob("*.json"))) == 2
    bad = ClaimRef("default", "x", "bad\x00uid")
    answers = helper.unprepare([refs[0], bad, refs[1]])
    assert answers["uid-a"] == "" and answers["uid-b"] == ""
    assert "uid: Invalid value" in answers["bad\x00uid"]
    assert list((root / "cdi").glob("*.json")) == []
    prepared = helper.prepare([bad, *refs])
    assert prepared["bad\x00uid"].error and not prepared["uid-a"].error


class _FailsOneDriver(ExampleGpuDriver):
    """Raises for the whole batch whenever one particular claim is in it."""

    def unprepare(self, claims):
        if any(c.uid == "uid-bad" for c in claims):
            raise RuntimeError("cannot unprepare uid-bad")
        return super().unprepare(claims)

    def prepare(self, claims):
        if any(c.ref.uid == "uid-bad" for c in claims):
            raise RuntimeError("cannot prepare uid-bad")
        return super().prepare(claims)


def test_a_driver_failing_a_batch_is_retried_claim_by_claim(tmp_path):
    cluster = ClusterDirectory(tmp_path / "cluster")
    driver = _FailsOneDriver("node-1", tmp_path / "cdi", gpus=4)
    helper = PluginHelper(driver, DRIVER, cluster, tmp_path / "plugin")
    cluster.put(build_claim("good", "uid-good", [("gpu", "gpu-0")]))
    cluster.put(build_claim("bad", "uid-bad", [("gpu", "gpu-1")]))
    refs = [ClaimRef("default", "good", "uid-good"), ClaimRef("default", "bad", "uid-bad")]
    prepared = helper.prepare(refs)
    assert prepared["uid-good"].devices and not prepared["uid-good"].error
    assert prepared["uid-bad"].error == "prepare failed: cannot prepare uid-bad"
    unprepared = helper.unprepare(refs)
    assert unprepared == {"uid-good": "", "uid-bad": "unprepare failed: cannot unprepare uid-bad"}


def test_cluster_directory_refuses_names_that_leave_it(tmp_path):
    cluster = ClusterDirectory(tmp_path / "cluster")
    claim = build_claim("c", "uid-c", [("gpu", "gpu-0")])
    for meta in ({"namespace": "../.."}, {"namespace": "/etc"}, {"name": "../c"}, {"name": ".c"}):
        obj = {**claim, "metadata": {**claim["metadata"], **meta}}
        with pytest.raises(StoreError, match="Invalid value"):
            cluster.put(obj)
        with pytest.raises(StoreError):
            cluster.get("ResourceClaim", obj["metadata"]["name"], obj["metadata"]["namespace"])
    assert list(tmp_path.iterdir()) == []  # nothing written anywhere


def test_symlinked_directories_do_not_lead_writes_outside(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "cluster"
    (root / "resourceclaims").mkdir(parents=True)
    (root / "resourceclaims" / "default").symlink_to(outside)
    (root / "nodes").symlink_to(outside)
    cluster = ClusterDirectory(root)
    with pytest.raises(StoreError, match="leads outside"):
        cluster.put(build_claim("c", "uid-c", [("gpu", "gpu-0")]))
    with pytest.raises(StoreError, match="leads outside"):
        cluster.register_node("node-1")
    assert list(outside.iterdir()) == []
    # A link that stays inside the directory is fine.
    (root / "resourceslices-real").mkdir()
    (root / "resourceslices").symlink_to(root / "resourceslices-real")
    cluster.put({"kind": "ResourceSlice", "metadata": {"name": "s"}, "spec": {}})
    assert (root / "resourceslices-real" / "s.yaml").exists()


def test_driver_name_and_pod_uid_are_checked_before_they_become_paths(tmp_path):
    with pytest.raises(ValueError, match="driver name: Invalid value"):
        PluginPaths.for_driver("../evil", tmp_path, tmp_path)
    with pytest.raises(ValueError, match="rolling update pod uid: Invalid value"):
        PluginPaths.for_driver(DRIVER, tmp_path, tmp_path, "../../x")
    with pytest.raises(ValueError, match="driver name: Invalid value"):
        plugin_paths("/abs", tmp_path, tmp_path)
    with pytest.raises(ValueError, match="rolling update pod uid: Invalid value"):
        plugin_paths(DRIVER, tmp_path, tmp_path, "a\x00b")


def test_unquoted_timestamps_read_as_strings(tmp_path):
    cluster = ClusterDirectory(tmp_path / "cluster")
    path = tmp_path / "cluster" / "nodes" / "node-1.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: node-1\n  uid: n1\n"
        "  creationTimestamp: 2024-01-02T03:04:05Z\n"
    )
    node = cluster.get("Node", "node-1")
    assert node is not None
    assert node["metadata"]["creationTimestamp"] == "2024-01-02T03:04:05Z"
    assert cluster.get_node_uid("node-1") == "n1"


def _stale(path: Path, age: float = 0.0) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("partial")
    if age:
        past = time.time() - age
        os.utime(path, (past, past))
    return path


def test_leftover_temporary_files_are_removed_at_start(short_tmp):
    paths = PluginPaths.for_driver(DRIVER, short_tmp / "reg", short_tmp / "plugins")
    cdi = short_tmp / "cdi"
    cluster_dir = short_tmp / "cluster"
    checkpoint_tmp = _stale(paths.data_dir / ".checkpoint.json.ab12cd_9.tmp")
    cdi_tmp = _stale(cdi / ".k8s.gpu.example.com-gpu_uid-1.json.x1y2z3w4.tmp")
    others = [
        _stale(cdi / ".nvidia.com-gpu_uid-1.json.x1y2z3w4.tmp"),  # another vendor's
        _stale(cdi / "spec.1234.tmp"),  # the CDI library's own pattern, not ours
        _stale(paths.data_dir / "notes.tmp"),
        _stale(cluster_dir / "nodes" / ".node-1.yaml.abcdefgh.tmp"),  # fresh: may be in flight
    ]
    old_cluster_tmp = _stale(cluster_dir / "pods" / "default" / ".p.yaml.abcdefgh.tmp", age=120)
    store = open_store(cluster_dir)
    assert not old_cluster_tmp.exists()
    helper = PluginHelper(ExampleGpuDriver("node-1", cdi, gpus=1), DRIVER, store, paths.data_dir)
    server = PluginServer(helper, paths)
    server.start()
    try:
        assert not checkpoint_tmp.exists()
        assert not cdi_tmp.exists()
        assert all(p.exists() for p in others)
    finally:
        server.stop()


def test_open_health_streams_do_not_starve_prepare(short_tmp):
    cluster = ClusterDirectory(short_tmp / "cluster")
    cluster.put(build_claim("c", "uid-c", [("gpu", "gpu-0")]))
    paths = PluginPaths.for_driver(DRIVER, short_tmp / "reg", short_tmp / "plugins")
    driver = ExampleGpuDriver("node-1", short_tmp / "cdi", gpus=2, health_interval=0.2)
    server = PluginServer(PluginHelper(driver, DRIVER, cluster, paths.data_dir), paths)
    server.start()
    channels, streams = [], []
    try:
        for _ in range(3 * server.max_workers):
            channel = grpc.insecure_channel(f"unix:{paths.dra_socket}")
            channels.append(channel)
            stream = health_grpc.DRAResourceHealthStub(channel).NodeWatchResources(
                health_pb2.NodeWatchResourcesRequest(), timeout=30
            )
            streams.append(stream)
        with grpc.insecure_channel(f"unix:{paths.dra_socket}") as channel:
            request = v1_pb2.NodePrepareResourcesRequest(
                claims=[v1_pb2.Claim(namespace="default", name="c", uid="uid-c")]
            )
            response = v1_grpc.DRAPluginStub(channel).NodePrepareResources(request, timeout=5)
        assert response.claims["uid-c"].error == ""
        # The newest streams are served; the oldest were ended to make room.
        assert next(iter(streams[-1])).devices
    finally:
        for stream in streams:
            stream.cancel()
        for channel in channels:
            channel.close()
        server.stop()


def test_a_failing_checkpoint_write_is_a_per_claim_error(gpu_helper, monkeypatch):
    helper, cluster, _ = gpu_helper
    cluster.put(build_claim("a", "uid-a", [("gpu", "gpu-0")]))
    refs = [ClaimRef("default", "a", "uid-a"), ClaimRef("default", "gone", "uid-gone")]

    def full(entries):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(helper.checkpoint, "store", full)
    answers = helper.prepare(refs)
    assert answers["uid-a"].error.endswith("checkpoint.json: No space left on device")
    assert answers["uid-gone"].error == "retrieve claim default/gone: not found"
    assert helper.unprepare(refs) == {"uid-a": "", "uid-gone": ""}  # nothing was recorded


def test_a_failing_still_prepared_prepares_again(gpu_helper, monkeypatch):
    helper, cluster, _ = gpu_helper
    cluster.put(build_claim("a", "uid-a", [("gpu", "gpu-0")]))
    ref = ClaimRef("default", "a", "uid-a")
    first = helper.prepare([ref])["uid-a"]

    def broken(claim, devices):
        raise RuntimeError("cannot tell")

    monkeypatch.setattr(helper.driver, "still_prepared", broken)
    assert helper.prepare([ref])["uid-a"] == first


class _BrokenHealthDriver(ExampleGpuDriver):
    def watch_health(self, stop):
        if not stop.is_set():
            raise RuntimeError("sensor gone")
        yield []


def test_a_failing_health_watch_ends_that_stream_only(short_tmp):
    cluster = ClusterDirectory(short_tmp / "cluster")
    paths = PluginPaths.for_driver(DRIVER, short_tmp / "reg", short_tmp / "plugins")
    driver = _BrokenHealthDriver("node-1", short_tmp / "cdi", gpus=1)
    server = PluginServer(PluginHelper(driver, DRIVER, cluster, paths.data_dir), paths)
    server.start()
    try:
        with grpc.insecure_channel(f"unix:{paths.dra_socket}") as channel:
            stream = health_grpc.DRAResourceHealthStub(channel).NodeWatchResources(
                health_pb2.NodeWatchResourcesRequest(), timeout=10
            )
            with pytest.raises(grpc.RpcError) as caught:
                next(iter(stream))
            assert caught.value.code() == grpc.StatusCode.INTERNAL
            assert caught.value.details() == "health reports failed: sensor gone"
            request = v1_pb2.NodePrepareResourcesRequest(
                claims=[v1_pb2.Claim(namespace="default", name="c", uid="uid-c")]
            )
            response = v1_grpc.DRAPluginStub(channel).NodePrepareResources(request, timeout=5)
            assert "not found" in response.claims["uid-c"].error
    finally:
        server.stop()


def test_a_driver_restarted_after_kill_9_removes_its_leftovers(drivers, driver_dirs):
    first = drivers.start()
    first.send_signal(9)
    first.wait(timeout=10)
    data_dir = driver_dirs.plugins / DRIVER
    leftovers = [
        _stale(data_dir / ".checkpoint.json.k9k9k9k9.tmp"),
        _stale(driver_dirs.cdi / ".k8s.gpu.example.com-gpu_uid-c.json.k9k9k9k9.tmp"),
        _stale(driver_dirs.cluster / "resourceslices" / ".s.yaml.k9k9k9k9.tmp", age=60),
    ]
    drivers.start()
    assert [p for p in leftovers if p.exists()] == []


def _prepare_in_time(helper: PluginHelper, refs: list[ClaimRef]) -> dict:
    """prepare() in a thread: a blocking read fails the test instead of hanging it."""
    answers: dict = {}
    worker = threading.Thread(target=lambda: answers.update(helper.prepare(refs)), daemon=True)
    worker.start()
    worker.join(timeout=20)
    assert not worker.is_alive(), "prepare blocked"
    return answers


@pytest.mark.parametrize(
    ("config", "problem"),
    [
        ("oops", 'status.allocation.devices.config: expected array, got a string "oops"'),
        ([None], "status.allocation.devices.config[0]: expected object, got null"),
    ],
)
def test_a_mistyped_claim_fails_only_itself(gpu_helper, config, problem):
    """One claim whose allocation config is a string (or [null]) failed the whole batch
    (gRPC UNKNOWN, a traceback); the claim is decoded as the apiserver serves it."""
    helper, cluster, _ = gpu_helper
    cluster.put(build_claim("good", "uid-good", [("gpu", "gpu-0")]))
    bad = build_claim("bad", "uid-bad", [("gpu", "gpu-1")])
    bad["status"]["allocation"]["devices"]["config"] = config
    cluster.put(bad)
    refs = [ClaimRef("default", "bad", "uid-bad"), ClaimRef("default", "good", "uid-good")]
    answers = _prepare_in_time(helper, refs)
    assert answers["uid-good"].devices and not answers["uid-good"].error
    assert answers["uid-bad"].error == (
        f'claim default/bad: ResourceClaim.resource.k8s.io "default/bad" cannot be decoded: '
        f"{problem}"
    )


def test_a_claim_file_that_is_a_fifo_is_an_error_at_once(gpu_helper):
    """Reading a FIFO blocked the driver forever; the loaders refuse non-regular files."""
    helper, cluster, root = gpu_helper
    cluster.put(build_claim("good", "uid-good", [("gpu", "gpu-0")]))
    os.mkfifo(root / "cluster" / "resourceclaims" / "default" / "c.yaml")
    refs = [ClaimRef("default", "c", "uid-c"), ClaimRef("default", "good", "uid-good")]
    answers = _prepare_in_time(helper, refs)
    assert answers["uid-c"].error.startswith("retrieve claim default/c: ")
    assert answers["uid-c"].error.endswith("not a regular file (a FIFO): refusing to read it")
    assert answers["uid-good"].devices
    assert [o["metadata"]["name"] for o in cluster.list_objects("ResourceClaim")] == ["good"]


def test_a_claim_file_linked_outside_the_directory_is_not_read(gpu_helper):
    """Writes through such links were refused already; reads are now too."""
    helper, cluster, root = gpu_helper
    (root / "outside").mkdir()
    planted = build_claim("c", "uid-c", [("gpu", "gpu-0")])
    (root / "outside" / "c.yaml").write_text(json.dumps(planted))
    claims = root / "cluster" / "resourceclaims" / "default"
    claims.mkdir(parents=True)
    (claims / "c.yaml").symlink_to(root / "outside" / "c.yaml")
    error = _prepare_in_time(helper, [ClaimRef("default", "c", "uid-c")])["uid-c"].error
    assert error.startswith("retrieve claim default/c: ")
    assert "leads outside" in error and error.endswith("refusing to read it")
    assert not (root / "cdi").exists()
    # Links that stay inside the directory are still read.
    (root / "cluster" / "kept.yaml").write_text(json.dumps({**planted, "metadata": {
        **planted["metadata"], "name": "kept", "uid": "uid-kept"}}))  # fmt: skip
    (claims / "kept.yaml").symlink_to(root / "cluster" / "kept.yaml")
    assert cluster.get("ResourceClaim", "kept", "default")["metadata"]["uid"] == "uid-kept"
