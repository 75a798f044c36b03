"""The live-cluster reader end to end against ``kubedra serve-api``: simulating what it serves
gives the same result as simulating the files it was started from."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml

from cli_subprocess import kubedra_env, run_kubedra, stop_process
from kubedra.api.io import load_paths
from kubedra.apiserver import ApiServer, write_kubeconfig
from kubedra.live import read_cluster
from kubedra.scheduler import new_simulation

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
SCENARIOS = ["claim-templates", "partitionable-gpu", "admin-access", "pending-gpu-memory"]


def _kubedra(*args: str) -> subprocess.CompletedProcess[str]:
    return run_kubedra(*args, cwd=REPO, timeout=120)


@contextmanager
def _served(tmp_path: Path, *paths: Path) -> Iterator[Path]:
    """``paths`` simulated and served in this process; yields the kubeconfig for it."""
    loaded = load_paths(list(paths))
    assert not loaded.errors, loaded.errors
    simulation = new_simulation()
    assert simulation.load([o.wire for o in loaded.objects]) == []
    server = ApiServer(simulation).start()
    try:
        yield write_kubeconfig(tmp_path / "kubeconfig", server.url)
    finally:
        server.stop()


def _outcome(stdout: str) -> dict[str, Any]:
    """Each pod's node and phase, and the devices of the claims reserved for it."""
    items = [o for o in yaml.safe_load_all(stdout) if o]
    pods = {
        f"{o['metadata']['namespace']}/{o['metadata']['name']}": (
            o["spec"].get("nodeName"),
            (o.get("status") or {}).get("phase"),
        )
        for o in items
        if o["kind"] == "Pod"
    }
    devices: dict[str, list[str]] = {}
    for claim in (o for o in items if o["kind"] == "ResourceClaim"):
        status = claim.get("status") or {}
        results = ((status.get("allocation") or {}).get("devices") or {}).get("results") or []
        for consumer in status.get("reservedFor") or []:
            key = f"{claim['metadata']['namespace']}/{consumer['name']}"
            devices.setdefault(key, []).extend(
                f"{r['driver']}/{r['pool']}/{r['device']}" for r in results
            )
    return {"pods": pods, "devices": {k: sorted(v) for k, v in devices.items()}}


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_simulating_the_served_cluster_matches_the_files(scenario: str, tmp_path: Path) -> None:
    directory = EXAMPLES / scenario
    from_files = _kubedra("simulate", str(directory), "-o", "yaml")
    assert from_files.returncode in (0, 2), from_files.stderr
    with _served(tmp_path, directory) as kubeconfig:
        from_api = _kubedra("simulate", "--kubeconfig", str(kubeconfig), "-o", "yaml")
    assert from_api.returncode == from_files.returncode, from_api.stderr
    expected = _outcome(from_files.stdout)
    assert expected["pods"]
    assert _outcome(from_api.stdout) == expected


def test_what_if_a_workload_is_added_to_the_served_cluster(tmp_path: Path) -> None:
    """Only the cluster is served; the workload comes from a file, as "what if I add this"."""
    directory = EXAMPLES / "claim-templates"
    from_files = _kubedra("simulate", str(directory), "-o", "yaml")
    with _served(tmp_path, directory / "cluster.yaml") as kubeconfig:
        snapshot = read_cluster(str(kubeconfig))
        assert {o["kind"] for o in snapshot.objects} >= {"Node", "ResourceSlice", "DeviceClass"}
        assert not [o for o in snapshot.objects if o["kind"] == "Pod"]
        from_api = _kubedra(
            "simulate",
            "--kubeconfig",
            str(kubeconfig),
            "-f",
            str(directory / "workload.yaml"),
            "-o",
            "yaml",
        )
    assert from_api.returncode == from_files.returncode, from_api.stderr
    assert _outcome(from_api.stdout) == _outcome(from_files.stdout)


def test_explain_reads_the_served_cluster(tmp_path: Path) -> None:
    directory = EXAMPLES / "pending-gpu-memory"
    files = _kubedra("simulate", str(directory), "-o", "yaml")
    pending = [
        name for name, (node, _phase) in _outcome(files.stdout)["pods"].items() if node is None
    ]
    assert pending
    namespace, name = pending[0].split("/")
    from_files = _kubedra("explain", "pod", name, "-n", namespace, str(directory))
    with _served(tmp_path, directory) as kubeconfig:
        from_api = _kubedra(
            "explain", "pod", name, "-n", namespace, "--kubeconfig", str(kubeconfig)
        )
    assert from_api.returncode == 0, from_api.stderr
    assert from_api.stdout == from_files.stdout


def test_serve_api_cli_is_read_by_simulate(tmp_path: Path) -> None:
    """``kubedra serve-api`` as a process, with the kubeconfig it writes."""
    kubeconfig = tmp_path / "served.kubeconfig"
    env = kubedra_env()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kubedra",
            "serve-api",
            "--example",
            "gpu-demo",
            "--kubernetes-version",
            "v1.36.2",
            "--kubeconfig-out",
            str(kubeconfig),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not kubeconfig.exists():
            assert process.poll() is None, process.communicate()[1]
            assert time.monotonic() < deadline, "kubedra serve-api did not start"
            time.sleep(0.1)
        from_api = _kubedra("simulate", "--kubeconfig", str(kubeconfig), "-o", "yaml")
        server = yaml.safe_load(kubeconfig.read_text())["clusters"][0]["cluster"]["server"]
        import json
        import urllib.request

        with urllib.request.urlopen(server + "/version", timeout=10) as response:
            version = json.loads(response.read())
    finally:
        stop_process(process)
        assert process.stderr is not None
    from_files = _kubedra("simulate", "--example", "gpu-demo", "-o", "yaml")
    assert from_api.returncode == from_files.returncode == 0, from_api.stderr
    assert _outcome(from_api.stdout) == _outcome(from_files.stdout)
    assert (version["major"], version["minor"], version["gitVersion"]) == (
        "1",
        "36",
        "v1.36.0+kubedra",
    )
