"""kubectl's flags on kubedra commands: -f/-R, -n/-A, -o, -h, --version, release and gates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from cli_subprocess import run_kubedra as _kubedra
from kubedra import __version__
from kubedra.cli.main import _register_commands, app
from kubedra.features import SUPPORTED

REPO = Path(__file__).resolve().parents[2]

CLASS = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: {name}\n"
CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: train
  namespace: ml
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu
        capacity:
          requests:
            memory: 10Gi
"""
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      resourceClaims:
      - name: gpu
        resourceClaimTemplateName: gpu-template
      containers:
      - name: app
        image: example
        resources:
          claims: [{name: %s}]
"""
SERVICE = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports: [{port: 80}]\n"


@pytest.fixture(scope="module")
def runner() -> CliRunner:
    _register_commands()
    return CliRunner()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "a.yaml").write_text(CLASS.format(name="a"))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.yaml").write_text(CLASS.format(name="b"))
    return tmp_path


def test_help_alias_and_version(runner: CliRunner) -> None:
    for args in (["-h"], ["validate", "-h"], ["snapshot", "-h"], ["conformance", "-h"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, args
        assert "Usage:" in result.output
    assert runner.invoke(app, ["--version"]).output == f"{__version__}\n"


def test_filename_directories_follow_kubectl(runner: CliRunner, tree: Path) -> None:
    flat = runner.invoke(app, ["validate", "-f", str(tree)])
    assert flat.output.endswith("1 object in 1 file: 1 valid, 0 invalid\n")
    deep = runner.invoke(app, ["validate", "-R", "-f", str(tree)])
    assert deep.output.endswith("2 objects in 2 files: 2 valid, 0 invalid\n")
    # Positional paths keep kubedra's meaning: directories are read recursively.
    positional = runner.invoke(app, ["validate", str(tree)])
    assert positional.output.endswith("2 objects in 2 files: 2 valid, 0 invalid\n")
    repeated = runner.invoke(
        app, ["validate", "-f", str(tree / "a.yaml"), "--filename", str(tree / "sub")]
    )
    assert repeated.output.endswith("2 objects in 2 files: 2 valid, 0 invalid\n")
    empty = runner.invoke(app, ["validate", "-f", str(tree / "sub" / "..")])
    assert empty.exit_code == 0
    (tree / "only-sub").mkdir()
    (tree / "only-sub" / "deeper").mkdir()
    (tree / "only-sub" / "deeper" / "c.yaml").write_text(CLASS.format(name="c"))
    nothing = runner.invoke(app, ["validate", "-f", str(tree / "only-sub")])
    assert nothing.exit_code == 1
    assert "directory holds no .yaml, .yml or .json files (use -R for subdirectories)" in (
        nothing.output
    )


def test_filename_stdin_and_no_input(runner: CliRunner) -> None:
    result = runner.invoke(app, ["validate", "-f", "-"], input=CLASS.format(name="x"))
    assert result.exit_code == 0
    assert result.output == "1 object in 1 file: 1 valid, 0 invalid\n"
    none = runner.invoke(app, ["validate"])
    assert none.exit_code == 2
    assert "give manifest paths or -f FILE|DIR|-" in none.output


def test_namespace_defaulting_and_mismatch(runner: CliRunner, tmp_path: Path) -> None:
    no_namespace = CLAIM.replace("  namespace: ml\n", "")
    (tmp_path / "claim.yaml").write_text(no_namespace + "---\n" + CLASS.format(name="gpu"))
    result = runner.invoke(app, ["validate", "-n", "ml", "-o", "json", str(tmp_path)])
    assert result.exit_code == 0
    objects = json.loads(result.output)["objects"]
    assert [(o["kind"], o["namespace"]) for o in objects] == [
        ("ResourceClaim", "ml"),
        ("DeviceClass", None),
    ]
    (tmp_path / "claim.yaml").write_text(CLAIM.replace("namespace: ml", "namespace: a"))
    mismatch = runner.invoke(app, ["validate", "-n", "b", str(tmp_path)])
    assert mismatch.exit_code == 1
    # The apiserver's answer (EnsureObjectNamespaceMatchesRequestNamespace), as the loaders give it.
    assert (
        "the namespace of the provided object does not match the namespace sent on the request"
    ) in mismatch.output
    everywhere = runner.invoke(app, ["validate", "-A", "-n", "b", str(tmp_path)])
    assert everywhere.exit_code == 0


def test_output_formats(runner: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text(CLASS.format(name="gpu") + "---\n" + CLAIM)
    names = runner.invoke(app, ["validate", "-o", "name", str(tmp_path)])
    assert names.output == "deviceclass.resource.k8s.io/gpu\nresourceclaim.resource.k8s.io/train\n"
    wide = runner.invoke(app, ["validate", "-o", "wide", str(tmp_path)])
    assert f'DeviceClass.resource.k8s.io "gpu" is valid ({tmp_path / "m.yaml"}: document 0)' in (
        wide.output
    )
    as_yaml = yaml.safe_load(runner.invoke(app, ["validate", "-o", "yaml", str(tmp_path)]).output)
    as_json = json.loads(runner.invoke(app, ["validate", "-o", "json", str(tmp_path)]).output)
    assert as_yaml == as_json
    assert as_json["features"] == [
        "claim ml/train uses DRAConsumableCapacity: beta, on by default in 1.37"
    ]
    assert as_json["kubernetesVersion"] == "1.37"


def test_workloads_are_checked_and_other_kinds_skipped(tmp_path: Path) -> None:
    (tmp_path / "app.yaml").write_text(DEPLOYMENT % "gpu" + "---\n" + SERVICE)
    good = _kubedra("validate", str(tmp_path))
    assert good.returncode == 0, good.stdout + good.stderr
    assert good.stdout.splitlines() == [
        f'{tmp_path / "app.yaml"}: document 1: skipped Service "web" (v1): '
        "kubedra does not model this kind",
        "1 object in 1 file: 1 valid, 0 invalid, 1 skipped",
    ]
    (tmp_path / "app.yaml").write_text(DEPLOYMENT % "other")
    bad = _kubedra("validate", str(tmp_path))
    assert bad.returncode == 1
    assert bad.stdout.splitlines()[0] == (
        'Deployment.apps "default/web" is invalid: '
        "spec.template.spec.containers[0].resources.claims[0]: "
        'Not found: "other": must be one of the names in pod.spec.resourceClaims: gpu'
    )
    assert "Traceback" not in bad.stderr


def test_release_and_feature_gates(tmp_path: Path) -> None:
    (tmp_path / "claim.yaml").write_text(CLAIM)
    old = _kubedra("validate", "--kubernetes-version", "1.35", str(tmp_path))
    assert old.returncode == 0
    assert "claim ml/train uses DRAConsumableCapacity: alpha, off by default in 1.35" in old.stdout
    assert old.stderr == (
        "Warning: claim ml/train relies on DRAConsumableCapacity, which is off in 1.35 (alpha): "
        "the apiserver drops its fields and the scheduler ignores them; enable it with "
        "--feature-gates=DRAConsumableCapacity=true\n"
    )
    on = _kubedra(
        "validate",
        "--kubernetes-version=v1.35",
        "--feature-gates=DRAConsumableCapacity=true",
        str(tmp_path),
    )
    assert "turned on by --feature-gates" in on.stdout
    assert "alpha feature in 1.35" in on.stderr
    unknown = _kubedra("validate", "--feature-gates", "DRANope=true", str(tmp_path))
    assert unknown.returncode == 2
    assert unknown.stderr == (
        'Error: invalid argument "DRANope=true" for "--feature-gates" flag: '
        "unrecognized feature gate: DRANope\n"
    )
    version = _kubedra("validate", "--kubernetes-version", "1.30", str(tmp_path))
    assert version.returncode == 2
    assert "Kubernetes 1.30 is not supported (supported: 1.34, 1.35, 1.36, 1.37)" in version.stderr


def test_every_dra_example_validates() -> None:
    out = _kubedra("validate", "examples", "deploy")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 invalid" in out.stdout.splitlines()[-1]


@pytest.mark.parametrize("release", SUPPORTED[:-1])
def test_examples_in_older_releases_fail_only_on_kinds_not_served_then(release: str) -> None:
    """Every example object is valid in every release; only the v1 DeviceTaintRule and the
    scheduling.k8s.io/v1beta1 Workload API (both served from 1.37) are refused by older
    releases, with the release that serves them."""
    out = _kubedra("validate", "--kubernetes-version", release, "examples", "deploy")
    assert "0 invalid" in out.stdout.splitlines()[-1], out.stdout + out.stderr
    unreadable = [line for line in out.stdout.splitlines() if "no matches for kind" in line]
    assert unreadable, out.stdout
    served_later = ('in version "resource.k8s.io/v1"', 'in version "scheduling.k8s.io/v1beta1"')
    assert all(any(v in line for v in served_later) for line in unreadable), unreadable
    assert all(f"selected release: {release}" in line for line in unreadable)
