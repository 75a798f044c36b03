"""`kubedra serve-api` from the command line: examples, bad input, the kubeconfig it writes."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

from cli_subprocess import run_kubedra
from conftest import serve_cli
from kubedra.apiserver import kubeconfig


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return run_kubedra("serve-api", *args, timeout=60)


def test_unknown_example_is_a_clear_error() -> None:
    done = run_cli("--example", "nope")
    assert done.returncode == 2
    assert done.stderr.startswith("error: no example named 'nope' (known: gpu-demo")
    assert "Traceback" not in done.stderr


def test_unreadable_manifest_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: 3}\n")
    done = run_cli(str(bad))
    assert done.returncode == 2
    assert done.stderr.startswith("error: ")
    assert "spec.containers" in done.stderr
    assert "Traceback" not in done.stderr


def test_kubeconfig_names_one_context() -> None:
    config = kubeconfig("http://127.0.0.1:1234", "ml")
    assert config["current-context"] == "kubedra"
    assert config["clusters"] == [
        {"name": "kubedra", "cluster": {"server": "http://127.0.0.1:1234"}}
    ]
    assert config["contexts"][0]["context"] == {
        "cluster": "kubedra",
        "user": "kubedra",
        "namespace": "ml",
    }


def test_serve_api_example_gpu_demo(tmp_path: Path) -> None:
    """The demo's pod is already scheduled, on the one node with a big enough GPU."""
    with serve_cli(tmp_path, "--example", "gpu-demo") as served:
        rows = [line.split() for line in served.kubectl("get", "pods", "-o", "wide").splitlines()]
        assert rows[1][:3] == ["training", "1/1", "Running"]
        assert rows[1][6] == "worker-2"
        claims = served.kubectl("get", "resourceclaims").splitlines()
        assert claims[1].split()[:2] == ["training-gpu", "allocated,reserved"]


def test_port_in_use_is_a_clear_error() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run_cli("--port", str(port))
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: cannot listen on 127.0.0.1:{port}: ")
    assert "Traceback" not in done.stderr
