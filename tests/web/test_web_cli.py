"""`kubedra serve` as a command: the address it prints, a port in use, bad input."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from typer.testing import CliRunner

from cli_subprocess import kubedra_env
from kubedra.cli.main import _register_commands, app

SRC = Path(__file__).resolve().parents[2] / "src"
EXAMPLE = SRC / "kubedra" / "cluster" / "examples" / "gpu-demo.yaml"


def runner() -> CliRunner:
    _register_commands()
    return CliRunner()


def test_serve_prints_address_and_serves_page_and_kubernetes_api(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    env = kubedra_env()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kubedra",
            "serve",
            str(EXAMPLE),
            "--port",
            "0",
            "--kubeconfig-out",
            str(kubeconfig),
            "--start-time",
            "2030-05-01T12:00:00Z",
        ],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stderr is not None
        deadline = time.monotonic() + 60
        line = ""
        while "web page on" not in line and time.monotonic() < deadline:
            line = proc.stderr.readline()
            assert line or proc.poll() is None, "kubedra serve exited early"
        url = line.split(" on ", 1)[1].split("/ ", 1)[0]
        assert url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(url + "/", timeout=10) as resp:
            assert b"kubedra" in resp.read()
        with urllib.request.urlopen(url + "/k8s/api/v1/nodes", timeout=10) as resp:
            nodes = json.load(resp)["items"]
        assert [n["metadata"]["name"] for n in nodes] == ["worker-1", "worker-2", "worker-3"]
        assert {n["metadata"]["creationTimestamp"] for n in nodes} == {"2030-05-01T12:00:00Z"}
        assert f"server: {url}/k8s" in kubeconfig.read_text()
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_port_in_use_is_a_clear_error() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = runner().invoke(app, ["serve", "--example", "gpu-demo", "--port", str(port)])
    assert result.exit_code == 2
    assert f"error: cannot listen on 127.0.0.1:{port}: Address already in use" in result.output
    assert "--port 0" in result.output


def test_unknown_example_and_bad_manifest() -> None:
    result = runner().invoke(app, ["serve", "--example", "nope"])
    assert result.exit_code == 2
    assert "no example named 'nope' (known: gpu-demo)" in result.output
    result = runner().invoke(app, ["serve", "--example", "gpu-demo", "--start-time", "noon"])
    assert result.exit_code == 2
    assert 'invalid argument "noon" for "--start-time" flag' in result.output
    result = runner().invoke(app, ["serve", "/nonexistent/dir"])
    assert result.exit_code == 2
    assert "error:" in result.output and "/nonexistent/dir" in result.output
