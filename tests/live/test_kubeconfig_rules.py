"""Commands that read a live cluster pick it as kubectl does: ``--kubeconfig`` (one file that
must exist), else every existing file of ``$KUBECONFIG`` merged in order (and then never
``~/.kube/config``), else ``~/.kube/config``; ``--context`` selects among the merged contexts.
Without manifests, that cluster is the input of ``simulate`` and ``explain``."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from kubedra.api.io import load_text
from kubedra.apiserver import ApiServer, write_kubeconfig
from kubedra.cluster.examples import example_text
from kubedra.live import default_kubeconfig
from kubedra.scheduler import new_simulation

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The gpu-demo served in this process; yields a kubeconfig (context ``kubedra``)."""
    text = example_text("gpu-demo")
    assert text is not None
    simulation = new_simulation()
    assert not simulation.load([o.wire for o in load_text(text, "gpu-demo").objects])
    server = ApiServer(simulation).start()
    try:
        yield write_kubeconfig(tmp_path_factory.mktemp("served") / "kubeconfig", server.url)
    finally:
        server.stop()


def _elsewhere(path: Path) -> Path:
    """A kubeconfig whose current context points at a server nobody listens on."""
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "elsewhere", "cluster": {"server": "http://127.0.0.1:9"}}],
        "users": [{"name": "elsewhere", "user": {}}],
        "contexts": [
            {"name": "elsewhere", "context": {"cluster": "elsewhere", "user": "elsewhere"}}
        ],
        "current-context": "elsewhere",
    }
    path.write_text(yaml.safe_dump(config))
    return path


def _kubedra(home: Path, kubeconfig: str | None, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT")
    }
    env |= {"HOME": str(home), "PYTHONPATH": str(SRC)}
    if kubeconfig is not None:
        env["KUBECONFIG"] = kubeconfig
    return subprocess.run(
        [sys.executable, "-m", "kubedra", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_explain_reads_the_cluster_of_kubeconfig_without_flags(
    served: Path, tmp_path: Path
) -> None:
    done = _kubedra(tmp_path, str(served), "explain", "pod", "training")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("pod default/training is bound to node worker-2")


def test_context_is_found_in_any_file_of_kubeconfig(served: Path, tmp_path: Path) -> None:
    listed = os.pathsep.join(
        [str(tmp_path / "absent"), str(_elsewhere(tmp_path / "a")), str(served)]
    )
    done = _kubedra(tmp_path, listed, "simulate", "--context", "kubedra", "-o", "name")
    assert done.returncode == 0, done.stderr
    assert "pod/training" in done.stdout.splitlines()
    # the first file's current context wins when --context is not given
    unreachable = _kubedra(tmp_path, listed, "simulate", "-o", "name")
    assert unreachable.returncode == 1
    assert "127.0.0.1:9" in unreachable.stderr and "Traceback" not in unreachable.stderr


def test_the_kubeconfig_list_replaces_the_home_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home_config = tmp_path / ".kube" / "config"
    home_config.parent.mkdir()
    _elsewhere(home_config)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    assert default_kubeconfig() == str(home_config)
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "absent"))
    assert default_kubeconfig() is None  # as kubectl: ~/.kube/config is not consulted
    first, second = _elsewhere(tmp_path / "first"), _elsewhere(tmp_path / "second")
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join([str(first), "", str(second)]))
    assert default_kubeconfig() == os.pathsep.join([str(first), str(second)])


def test_without_input_or_cluster_the_error_names_both(tmp_path: Path) -> None:
    done = _kubedra(tmp_path, None, "explain", "pod", "training")
    assert done.returncode == 1
    assert done.stderr.startswith("error: give manifests")
    assert "$KUBECONFIG" in done.stderr and "Traceback" not in done.stderr
