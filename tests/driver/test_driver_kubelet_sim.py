"""kubelet-sim against real plugin sockets: the pod lifecycle and the violations it reports."""

from __future__ import annotations

import json
import socket as sockets
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from conftest import (
    DriverDirs,
    build_claim,
    build_pod,
    kubedra_command,
    subprocess_env,
    wait_for,
)
from kubedra.driver.driver_api import DRADriver
from kubedra.driver.helper import PluginHelper
from kubedra.driver.kubelet_sim import KubeletSim
from kubedra.driver.server import PluginPaths, PluginServer
from kubedra.driver.store_dir import ClusterDirectory
from kubedra.driver.types import ClaimRef, PrepareClaim, PreparedDevice, PrepareResult


def reserved(claim: dict, pod: dict) -> dict:
    meta = pod["metadata"]
    entry = {"resource": "pods", "name": meta["name"], "uid": meta["uid"]}
    claim["status"]["reservedFor"] = [entry]
    return claim


def test_pods_get_their_claims_prepared_and_unprepared(drivers, driver_dirs):
    cluster = ClusterDirectory(driver_dirs.cluster)
    cluster.register_node("node-1")
    drivers.start()
    pod = build_pod("p", "pod-uid", ["c1", "c2"])
    cluster.put(pod)
    cluster.put(reserved(build_claim("c1", "uid-1", [("gpu", "gpu-0")]), pod))
    cluster.put(reserved(build_claim("c2", "uid-2", [("gpu", "gpu-1"), ("gpu", "gpu-2")]), pod))
    other = build_pod("waiting", "pod-2", ["c3"])
    cluster.put(other)
    cluster.put(build_claim("c3", "uid-3", [("gpu", "gpu-3")]))  # allocated, not reserved
    sim = KubeletSim("node-1", driver_dirs.registry, cluster, driver_dirs.cdi)
    try:
        sim.step()
        assert set(sim.prepared) == {"uid-1", "uid-2"}
        specs = sorted(p.name for p in driver_dirs.cdi.iterdir())
        assert specs == ["k8s.gpu.example.com-gpu_uid-1.json", "k8s.gpu.example.com-gpu_uid-2.json"]
        env = json.loads((driver_dirs.cdi / specs[1]).read_text())["devices"][1]["containerEdits"]
        assert "GPU_DEVICE_2=gpu-2" in env["env"]
        pod["status"]["phase"] = "Succeeded"
        cluster.put(pod)
        sim.step()
        assert sim.prepared == {}
        assert list(driver_dirs.cdi.iterdir()) == []
        report = sim.report()
        assert report["violations"] == [] and report["failures"] == []
        assert report["plugins"]["gpu.example.com"]["service"] == "v1.DRAPlugin"
        assert report["latencyMs"]["prepare"]["count"] == 1
    finally:
        sim.close()


class BadDriver(DRADriver):
    """Returns CDI IDs that exist in no spec file and a device it was not given."""

    def prepare(self, claims: Sequence[PrepareClaim]) -> Mapping[str, PrepareResult | Exception]:
        return {
            c.ref.uid: PrepareResult(
                devices=(PreparedDevice("node-1", "gpu-7", ("gpu",), ("vendor.com/gpu=nowhere",)),)
            )
            for c in claims
        }

    def unprepare(self, claims: Sequence[ClaimRef]) -> Mapping[str, Exception | None]:
        return {c.uid: None for c in claims}


@pytest.fixture
def bad_plugin(short_tmp: Path):
    cluster = ClusterDirectory(short_tmp / "cluster")
    paths = PluginPaths.for_driver("gpu.example.com", short_tmp / "reg", short_tmp / "plugins")
    helper = PluginHelper(BadDriver(), "gpu.example.com", cluster, paths.data_dir)
    server = PluginServer(helper, paths)
    server.registration.info.supported_versions[:] = ["v1beta1.DRAPlugin", "v1.DRAPlugin"]
    server.start()
    yield cluster, short_tmp, server
    server.stop()


def test_contract_violations_are_reported(bad_plugin):
    cluster, root, server = bad_plugin
    pod = build_pod("p", "pod-uid", ["c"])
    cluster.put(pod)
    cluster.put(reserved(build_claim("c", "uid-c", [("gpu", "gpu-0")]), pod))
    (root / "cdi").mkdir()
    sim = KubeletSim("node-1", root / "reg", cluster, root / "cdi")
    try:
        sim.step()
    finally:
        sim.close()
    kinds = {(v.kind, v.detail) for v in sim.violations}
    assert ("registration", "v1.DRAPlugin must be listed first") in kinds
    assert any(kind == "cdi-missing" and "nowhere" in detail for kind, detail in kinds)
    assert any(kind == "unknown-device" and "gpu-7" in detail for kind, detail in kinds)
    assert sim.plugins["gpu.example.com"].service == "v1beta1.DRAPlugin"  # first one it knows
    assert wait_for(lambda: server.registration.status is not None)
    assert server.registration.status.plugin_registered


def test_restarted_plugins_are_registered_again_and_stale_sockets_waited_for(short_tmp):
    cluster = ClusterDirectory(short_tmp / "cluster")
    paths = PluginPaths.for_driver("gpu.example.com", short_tmp / "reg", short_tmp / "plugins")

    def server() -> PluginServer:
        helper = PluginHelper(BadDriver(), "gpu.example.com", cluster, paths.data_dir)
        return PluginServer(helper, paths)

    sim = KubeletSim("node-1", short_tmp / "reg", cluster, short_tmp / "cdi")
    first = server()
    first.start()
    try:
        sim.step()
        assert set(sim.plugins) == {"gpu.example.com"}
        first.stop()
        sim.step()
        assert sim.plugins == {}
        stale = sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM)
        stale.bind(str(paths.registration_socket))  # a socket file nobody listens on
        stale.close()
        sim.step()
        assert sim.plugins == {} and sim.violations == []
        second = server()
        second.start()
        try:
            sim.step()
            assert set(sim.plugins) == {"gpu.example.com"}
            assert second.registration.status is not None
        finally:
            second.stop()
    finally:
        first.stop()
        sim.close()


def run_once(dirs: DriverDirs, *extra: str) -> subprocess.CompletedProcess[str]:
    """``kubedra kubelet-sim --once`` against the driver directories (a new process each time,
    as a user runs it round after round)."""
    return subprocess.run(
        kubedra_command(
            "kubelet-sim",
            "--node-name=node-1",
            f"--registry-dir={dirs.registry}",
            f"--cdi-dir={dirs.cdi}",
            f"--cluster-dir={dirs.cluster}",
            "--once",
            "--wait-timeout=20",
            *extra,
        ),
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_once_unprepares_claims_of_pods_that_ended_since_the_last_run(drivers, driver_dirs):
    cluster = ClusterDirectory(driver_dirs.cluster)
    cluster.register_node("node-1")
    drivers.start()
    pod = build_pod("p", "pod-uid", ["c1"])
    cluster.put(pod)
    cluster.put(reserved(build_claim("c1", "uid-1", [("gpu", "gpu-0")]), pod))
    first = run_once(driver_dirs)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["prepared"] == {
        "uid-1": {"claim": "default/c1", "cdiDeviceIDs": ["k8s.gpu.example.com/gpu=uid-1-gpu-0"]}
    }
    assert [p.name for p in driver_dirs.cdi.iterdir()] == ["k8s.gpu.example.com-gpu_uid-1.json"]
    pod["status"]["phase"] = "Succeeded"  # the pod ends between two runs
    cluster.put(pod)
    second = run_once(driver_dirs)
    assert second.returncode == 0, second.stderr
    report = json.loads(second.stdout)
    assert report["prepared"] == {} and report["failures"] == []
    assert report["latencyMs"]["unprepare"]["count"] == 1
    assert list(driver_dirs.cdi.iterdir()) == []
    # remembered, as the kubelet's dra_manager_state: where the first run left it
    state = driver_dirs.registry / ".kubelet-sim-node-1.json"
    assert json.loads(state.read_text()) == {
        "version": "kubedra.kubelet-sim/v1",
        "node": "node-1",
        "claims": {},
    }


def test_an_unusable_state_file_is_named_not_a_traceback(driver_dirs):
    state = driver_dirs.root / "state.json"
    state.write_text("{not json")
    done = run_once(driver_dirs, f"--state-file={state}", "--wait-timeout=0")
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: the kubelet-sim state {state} is not usable (")
    assert "Traceback" not in done.stderr
    hostile = run_once(
        driver_dirs, "--node-name=../../etc", "--no-register-node", "--wait-timeout=0"
    )
    assert hostile.returncode == 2
    assert "invalid node name '../../etc'" in hostile.stderr


@pytest.mark.parametrize("gate", [True, False])
def test_skip_node_operations_skip_the_grpc_calls_with_the_gate(drivers, driver_dirs, gate):
    """KEP-5945 (k8s.io/api resource/v1 ``SkipNodeOperations``, kubernetes/kubernetes#139933):
    with the kubelet's DRAOptionalNodeOperations gate, a claim whose allocated devices of a
    driver all skip NodePrepareResources is not prepared by that driver (no CDI spec is
    written), and not unprepared either; without the gate both calls are made."""
    cluster = ClusterDirectory(driver_dirs.cluster)
    cluster.register_node("node-1")
    drivers.start()
    pod = build_pod("p", "pod-uid", ["c1"])
    cluster.put(pod)
    claim = reserved(build_claim("c1", "uid-1", [("gpu", "gpu-0")]), pod)
    claim["status"]["allocation"]["devices"]["results"][0]["skipNodeOperations"] = ["*"]
    cluster.put(claim)
    sim = KubeletSim(
        "node-1", driver_dirs.registry, cluster, driver_dirs.cdi, optional_node_operations=gate
    )
    try:
        sim.step()
        report = sim.report()
        specs = sorted(p.name for p in driver_dirs.cdi.iterdir())
        if gate:
            assert specs == []
            assert report["prepared"]["uid-1"]["skippedNodeOperations"] == {
                "gpu.example.com": ["NodePrepareResources", "NodeUnprepareResources"]
            }
        else:
            assert specs == ["k8s.gpu.example.com-gpu_uid-1.json"]
            assert "skippedNodeOperations" not in report["prepared"]["uid-1"]
        pod["status"]["phase"] = "Succeeded"
        cluster.put(pod)
        sim.step()
        assert sim.prepared == {}
        calls = sim.report()["latencyMs"]
        assert calls["prepare"]["count"] == calls["unprepare"]["count"] == (0 if gate else 1)
    finally:
        sim.close()


def test_a_skipped_unprepare_is_remembered_across_a_restart(drivers, driver_dirs):
    """The state file keeps which drivers skip NodeUnprepareResources (KEP-5945), as the
    kubelet's claim cache does: a kubelet-sim started afresh after the pod ended skips the
    call the first one would have skipped, and the driver's CDI spec stays (it is never told)."""
    cluster = ClusterDirectory(driver_dirs.cluster)
    cluster.register_node("node-1")
    drivers.start()
    pod = build_pod("p", "pod-uid", ["c1"])
    cluster.put(pod)
    claim = reserved(build_claim("c1", "uid-1", [("gpu", "gpu-0")]), pod)
    claim["status"]["allocation"]["devices"]["results"][0]["skipNodeOperations"] = [
        "NodeUnprepareResources"
    ]
    cluster.put(claim)
    state = driver_dirs.root / "state.json"

    def kubelet() -> KubeletSim:
        return KubeletSim(
            "node-1",
            driver_dirs.registry,
            cluster,
            driver_dirs.cdi,
            state_file=state,
            optional_node_operations=True,
        )

    first = kubelet()
    try:
        first.step()
        assert first.report()["latencyMs"]["prepare"]["count"] == 1
    finally:
        first.close()
    recorded = json.loads(state.read_text())["claims"]["uid-1"]
    assert recorded["skipUnprepare"] == ["gpu.example.com"]
    pod["status"]["phase"] = "Succeeded"  # the pod ends while no kubelet-sim runs
    cluster.put(pod)
    second = kubelet()
    try:
        second.step()
        assert second.prepared == {}
        assert second.report()["latencyMs"]["unprepare"]["count"] == 0
    finally:
        second.close()
    assert [p.name for p in driver_dirs.cdi.iterdir()] == ["k8s.gpu.example.com-gpu_uid-1.json"]
    assert json.loads(state.read_text())["claims"] == {}


def test_a_claim_name_that_leaves_the_directory_is_reported_not_raised(drivers, driver_dirs):
    """``kubelet-sim --once`` exited 1 with a StoreError traceback when a pod's
    resourceClaimStatuses named ``../../x``: that pod's claim is reported as unusable and
    the other pods go on."""
    cluster = ClusterDirectory(driver_dirs.cluster)
    cluster.register_node("node-1")
    drivers.start()
    bad = build_pod("bad", "pod-bad", [])
    bad["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "t"}]
    bad["status"]["resourceClaimStatuses"] = [{"name": "gpu", "resourceClaimName": "../../x"}]
    cluster.put(bad)
    good = build_pod("good", "pod-good", ["c1"])
    cluster.put(good)
    cluster.put(reserved(build_claim("c1", "uid-1", [("gpu", "gpu-0")]), good))
    sim = KubeletSim("node-1", driver_dirs.registry, cluster, driver_dirs.cdi)
    try:
        sim.step()
        assert set(sim.prepared) == {"uid-1"}
        [failure] = sim.report()["failures"]
        assert failure["claim"] == "default/../../x"
        assert failure["error"].startswith(
            "pod default/bad: unusable claim: ResourceClaim cannot be stored: metadata.name: "
            'Invalid value: "../../x"'
        )
    finally:
        sim.close()
