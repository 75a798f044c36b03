"""The "try it locally" block of docs/guides/driver-kit.md, run exactly as written (only its
/tmp/dra moves to a fresh directory, and ``kubedra`` is this checkout's), and what it relies
on: ``--once`` waits for registrations, the publisher publishes the moment the Node exists."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from conftest import REPO, kubedra_command, subprocess_env
from kubedra.driver.helper import PluginHelper
from kubedra.driver.kubelet_sim import KubeletSim, pick_health_service
from kubedra.driver.publisher import Pool, ResourceSlicePublisher
from kubedra.driver.server import PluginPaths, PluginServer
from kubedra.driver.store_dir import ClusterDirectory
from kubedra.drivers.example_gpu import ExampleGpuDriver

BLOCK_INTRO = "Try it locally (no cluster needed):"


def readme_block() -> str:
    text = (REPO / "docs" / "guides" / "driver-kit.md").read_text()
    after = text[text.index(BLOCK_INTRO) :]
    match = re.search(r"```bash\n(.*?)```", after, re.DOTALL)
    assert match is not None
    return match.group(1)


def _shim_dir(root: Path) -> Path:
    """A ``kubedra`` command on PATH that runs this checkout's code."""
    bin_dir = root / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "kubedra"
    shim.write_text(f'#!/bin/sh\nexec {sys.executable} -m kubedra "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    return bin_dir


def test_readme_try_it_locally_block_works_as_written():
    block = readme_block()
    assert "/tmp/dra" in block
    with tempfile.TemporaryDirectory(prefix="kd-") as tmp:
        root = Path(tmp)
        script = "set -eu\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n" + block.replace(
            "/tmp/dra", str(root / "dra")
        )
        env = subprocess_env()
        env["PATH"] = str(_shim_dir(root)) + os.pathsep + env["PATH"]
        start = time.monotonic()
        result = subprocess.run(
            ["bash", "-c", script], env=env, capture_output=True, text=True, timeout=120
        )
        elapsed = time.monotonic() - start
    assert result.returncode == 0, result.stderr
    assert '"gpu.example.com"' in result.stdout  # the report lists the registered plugin
    listed = result.stdout.strip().splitlines()[-1]
    assert listed.startswith("00000-gpu.example.com-node-1-"), result.stdout
    assert "not found" not in result.stderr
    assert elapsed < 60


def test_once_without_any_registration_is_an_error(tmp_path):
    result = subprocess.run(
        kubedra_command(
            "kubelet-sim",
            "--node-name=node-1",
            f"--registry-dir={tmp_path / 'reg'}",
            f"--cdi-dir={tmp_path / 'cdi'}",
            f"--cluster-dir={tmp_path / 'cluster'}",
            "--once",
            "--wait-timeout=0.3",
        ),
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 4
    assert "error: no registration of any DRA plugin in" in result.stderr
    assert "within 0.3s" in result.stderr


def test_once_names_the_expected_driver_that_never_registers(tmp_path):
    result = subprocess.run(
        kubedra_command(
            "kubelet-sim",
            "--node-name=node-1",
            f"--registry-dir={tmp_path / 'reg'}",
            f"--cluster-dir={tmp_path / 'cluster'}",
            "--once",
            "--expect-driver=gpu.example.com",
            "--wait-timeout=0.2",
        ),
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 4
    assert "no registration of gpu.example.com" in result.stderr


def test_the_publisher_publishes_as_soon_as_the_node_exists(tmp_path):
    """No waiting for the next resync: the publisher watches for its owner Node."""

    cluster = ClusterDirectory(tmp_path)
    errors: list[Exception] = []
    publisher = ResourceSlicePublisher(
        cluster, "gpu.example.com", "node-1", resync_interval=30, on_error=errors.append
    )
    publisher.update({"node-1": Pool(devices=[{"name": "d-0"}])})
    publisher.start()
    try:
        time.sleep(0.3)
        assert cluster.list_resource_slices("gpu.example.com", "node-1") == []
        cluster.register_node("node-1")
        assert publisher.synced.wait(5)
        assert len(cluster.list_resource_slices("gpu.example.com", "node-1")) == 1
    finally:
        started = time.monotonic()
        publisher.stop()
        assert time.monotonic() - started < 2
    assert errors == []  # a Node that arrives while watched is no error


def test_kubelet_sim_prefers_health_v1_and_rejects_bad_driver_names(short_tmp):

    assert pick_health_service(["v1alpha1.DRAResourceHealth", "v1.DRAResourceHealth"]) == (
        "v1.DRAResourceHealth"
    )
    assert pick_health_service(["v1beta1.DRAPlugin", "v1alpha1.DRAResourceHealth"]) == (
        "v1alpha1.DRAResourceHealth"
    )
    assert pick_health_service(["v1beta1.DRAPlugin"]) == ""
    cluster = ClusterDirectory(short_tmp / "cluster")
    paths = PluginPaths.for_driver("gpu.example.com", short_tmp / "reg", short_tmp / "plugins")
    driver = ExampleGpuDriver("node-1", short_tmp / "cdi", gpus=1)
    server = PluginServer(PluginHelper(driver, "gpu.example.com", cluster, paths.data_dir), paths)
    server.start()
    sim = KubeletSim("node-1", short_tmp / "reg", cluster, short_tmp / "cdi")
    try:
        sim.scan_registry()
        assert sim.report()["plugins"]["gpu.example.com"]["healthService"] == (
            "v1.DRAResourceHealth"
        )
        server.registration.info.name = "../evil"
        assert sim.register(paths.registration_socket) is None
        assert server.registration.status is not None
        assert not server.registration.status.plugin_registered
        assert server.registration.status.error.startswith("invalid DRA driver name '../evil'")
        server.registration.info.name = "gpu.example.com"
        server.registration.info.endpoint = "/" + "x" * 200
        assert sim.register(paths.registration_socket) is None
        assert "is longer than 107 bytes" in server.registration.status.error
    finally:
        sim.close()
        server.stop()
