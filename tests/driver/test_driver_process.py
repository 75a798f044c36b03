"""``kubedra driver example-gpu`` as a process, spoken to by an independent kubelet client."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

from conftest import build_claim, kubedra_command, subprocess_env, wait_for
from kubedra.driver.store_dir import ClusterDirectory

SLOW_DRIVER = Path(__file__).with_name("slow_gpu_driver.py")


def test_registration_answer_matches_what_the_kubelet_expects(drivers, driver_dirs, kubelet_client):
    drivers.start()
    info = kubelet_client.get_info(driver_dirs.registration_socket)
    assert info.type == "DRAPlugin"
    assert info.name == "gpu.example.com"
    assert info.endpoint == str(driver_dirs.dra_socket)
    assert list(info.supported_versions) == [
        "v1.DRAPlugin",
        "v1beta1.DRAPlugin",
        "v1.DRAResourceHealth",
        "v1alpha1.DRAResourceHealth",
    ]
    kubelet_client.notify(driver_dirs.registration_socket, True)
    for version in ("v1", "v1alpha1"):
        report = kubelet_client.first_health_report(driver_dirs.dra_socket, version)
        names = sorted(d.device.device_name for d in report.devices)
        assert names == [f"gpu-{i}" for i in range(4)]
        assert {d.health for d in report.devices} == {1}  # HEALTHY


def test_every_claim_uid_is_answered_and_unknown_unprepare_succeeds(
    drivers, driver_dirs, kubelet_client
):
    cluster = ClusterDirectory(driver_dirs.cluster)
    cluster.put(build_claim("good", "uid-good", [("gpu", "gpu-0")]))
    cluster.put(build_claim("other-node", "uid-other", [("gpu", "gpu-1")], pool="node-9"))
    drivers.start()
    for version in ("v1", "v1beta1"):
        response = kubelet_client.prepare(
            driver_dirs.dra_socket,
            [
                ("default", "good", "uid-good"),
                ("default", "missing", "uid-missing"),
                ("default", "good", "uid-replaced"),
                ("default", "other-node", "uid-other"),
            ],
            version,
        )
        assert set(response.claims) == {"uid-good", "uid-missing", "uid-replaced", "uid-other"}
        good = response.claims["uid-good"]
        assert good.error == ""
        assert [(d.pool_name, d.device_name) for d in good.devices] == [("node-1", "gpu-0")]
        assert list(good.devices[0].request_names) == ["gpu"]
        assert list(good.devices[0].cdi_device_ids) == ["k8s.gpu.example.com/gpu=uid-good-gpu-0"]
        assert "not found" in response.claims["uid-missing"].error
        assert "got replaced" in response.claims["uid-replaced"].error
        assert "not allocatable" in response.claims["uid-other"].error
    response = kubelet_client.unprepare(
        driver_dirs.dra_socket, [("default", "never", "uid-never"), ("default", "good", "uid-good")]
    )
    assert {uid: entry.error for uid, entry in response.claims.items()} == {
        "uid-never": "",
        "uid-good": "",
    }
    assert not list(driver_dirs.cdi.iterdir())


def test_sigterm_stops_cleanly_and_removes_the_sockets(drivers, driver_dirs):
    proc = drivers.start()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=15) == 0
    assert not driver_dirs.registration_socket.exists()
    assert not driver_dirs.dra_socket.exists()


def _stale_socket(path) -> None:
    """A socket file nobody listens on, as a killed driver leaves it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    sock.close()


def test_stale_sockets_are_replaced_at_start(drivers, driver_dirs, kubelet_client):
    _stale_socket(driver_dirs.registration_socket)
    _stale_socket(driver_dirs.dra_socket)
    drivers.start()
    assert kubelet_client.get_info(driver_dirs.registration_socket).name == "gpu.example.com"


def test_a_file_at_a_socket_path_is_an_error_and_kept(drivers, driver_dirs):
    driver_dirs.dra_socket.parent.mkdir(parents=True)
    driver_dirs.dra_socket.write_text("precious")
    proc = drivers.start(wait=False)
    assert proc.wait(timeout=30) == 2
    assert driver_dirs.dra_socket.read_text() == "precious"
    log = (driver_dirs.root / "driver-0.log").read_text()
    assert "exists and is not a socket; refusing to remove it" in log


def test_rolling_update_sockets_carry_the_pod_uid(drivers, driver_dirs, kubelet_client):
    drivers.start("--rolling-update-uid=pod-a", wait=False)
    drivers.start("--rolling-update-uid=pod-b", wait=False)
    for uid in ("pod-a", "pod-b"):
        socket = driver_dirs.registry / f"gpu.example.com-{uid}-reg.sock"
        wait_for(socket.is_socket, what=str(socket))
        info = kubelet_client.get_info(socket)
        assert info.endpoint == str(driver_dirs.plugins / "gpu.example.com" / f"dra-{uid}.sock")
    cluster = ClusterDirectory(driver_dirs.cluster)
    cluster.put(build_claim("c", "uid-c", [("gpu", "gpu-2")]))
    first = kubelet_client.prepare(
        driver_dirs.plugins / "gpu.example.com" / "dra-pod-a.sock", [("default", "c", "uid-c")]
    )
    second = kubelet_client.prepare(
        driver_dirs.plugins / "gpu.example.com" / "dra-pod-b.sock", [("default", "c", "uid-c")]
    )
    assert first == second
    assert (driver_dirs.plugins / "gpu.example.com" / "serialize.lock").exists()


def test_killed_during_prepare_then_restarted_gives_the_same_answer_once(
    drivers, driver_dirs, kubelet_client
):
    cluster = ClusterDirectory(driver_dirs.cluster)
    cluster.put(build_claim("c", "uid-c", [("gpu", "gpu-1")]))
    slow = drivers.start("--prepare-delay=30", program=[sys.executable, str(SLOW_DRIVER)])
    checkpoint = driver_dirs.plugins / "gpu.example.com" / "checkpoint.json"
    errors: list[Exception] = []

    def interrupted_prepare() -> None:
        try:
            kubelet_client.prepare(driver_dirs.dra_socket, [("default", "c", "uid-c")])
        except Exception as error:  # the kill breaks the call
            errors.append(error)

    caller = threading.Thread(target=interrupted_prepare)
    caller.start()
    wait_for(
        lambda: checkpoint.exists() and "PrepareStarted" in checkpoint.read_text(),
        what="the PrepareStarted checkpoint",
    )
    slow.send_signal(signal.SIGKILL)
    slow.wait(timeout=10)
    caller.join(timeout=15)
    assert errors, "the interrupted call should fail"

    drivers.start()
    first = kubelet_client.prepare(driver_dirs.dra_socket, [("default", "c", "uid-c")])
    after_first = json.loads(checkpoint.read_text())["claims"]["uid-c"]
    second = kubelet_client.prepare(driver_dirs.dra_socket, [("default", "c", "uid-c")])
    after_second = json.loads(checkpoint.read_text())["claims"]["uid-c"]
    assert first == second
    assert first.claims["uid-c"].error == ""
    assert after_first["state"] == "PrepareCompleted"
    assert after_second == after_first  # answered from the checkpoint: not prepared again
    specs = list(driver_dirs.cdi.glob("*.json"))
    assert [p.name for p in specs] == ["k8s.gpu.example.com-gpu_uid-c.json"]


def test_wiped_slices_are_republished(drivers, driver_dirs):
    cluster = ClusterDirectory(driver_dirs.cluster)
    cluster.register_node("node-1")
    drivers.start()
    first = wait_for(
        lambda: cluster.list_resource_slices("gpu.example.com", "node-1"), what="published slices"
    )
    result = subprocess.run(
        kubedra_command(
            "kubelet-sim",
            "--node-name=node-1",
            f"--registry-dir={driver_dirs.registry}",
            f"--cdi-dir={driver_dirs.cdi}",
            f"--cluster-dir={driver_dirs.cluster}",
            "--wipe-slices",
            "--once",
        ),
        env=subprocess_env(),
        capture_output=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr.decode()
    again = wait_for(
        lambda: [
            s
            for s in cluster.list_resource_slices("gpu.example.com", "node-1")
            if s["metadata"]["uid"] != first[0]["metadata"]["uid"]
        ],
        what="republished slices",
    )
    assert [s["spec"]["devices"] for s in again] == [first[0]["spec"]["devices"]]
    assert again[0]["metadata"]["name"].startswith("00000-gpu.example.com-node-1-")


def test_without_a_cluster_the_sockets_still_answer(drivers, driver_dirs, kubelet_client):
    drivers.start(cluster=False)
    assert kubelet_client.get_info(driver_dirs.registration_socket).name == "gpu.example.com"
    response = kubelet_client.prepare(
        driver_dirs.dra_socket, [("ns", "a", "uid-a"), ("ns", "b", "uid-b")]
    )
    assert set(response.claims) == {"uid-a", "uid-b"}
    assert "no cluster configured" in response.claims["uid-a"].error
    unprepared = kubelet_client.unprepare(driver_dirs.dra_socket, [("ns", "a", "uid-a")])
    assert unprepared.claims["uid-a"].error == ""
    assert list(driver_dirs.cluster.iterdir()) == []
