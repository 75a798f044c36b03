"""simulate, explain and serve-api with kubectl's flags: workloads, skipped kinds, features."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from cli_subprocess import run_kubedra

REPO = Path(__file__).resolve().parents[2]
CLUSTER = REPO / "examples" / "claim-templates" / "cluster.yaml"

APP = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: one-a100
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
          selectors:
          - cel:
              expression: device.attributes["gpu.example.com"].model == "A100"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      resourceClaims:
      - name: gpu
        resourceClaimTemplateName: one-a100
      containers:
      - name: app
        image: example
        resources:
          claims: [{name: gpu}]
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports: [{port: 80}]
"""
DAEMONSET = """\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers:
      - name: agent
        image: example
"""
CAPACITY_CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: train
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        capacity:
          requests:
            memory: 10Gi
"""


def kubedra(*args: str) -> subprocess.CompletedProcess[str]:
    return run_kubedra(*args, cwd=REPO, timeout=120)


def _objects(stdout: str, kind: str) -> list[dict[str, Any]]:
    return [obj for obj in yaml.safe_load_all(stdout) if obj and obj["kind"] == kind]


def test_deployment_with_claim_template_becomes_three_placed_pods(tmp_path: Path) -> None:
    (tmp_path / "app.yaml").write_text(APP)
    out = kubedra("simulate", "-f", str(CLUSTER), "-f", str(tmp_path / "app.yaml"), "-o", "yaml")
    assert out.returncode == 0, out.stdout + out.stderr
    pods = _objects(out.stdout, "Pod")
    assert len(pods) == 3
    for pod in pods:
        assert pod["metadata"]["name"].startswith("web-")
        assert pod["metadata"]["ownerReferences"][0]["kind"] == "ReplicaSet"
        assert pod["spec"]["nodeName"]
    claims = _objects(out.stdout, "ResourceClaim")
    assert len(claims) == 3
    devices = set()
    for claim in claims:
        [result] = claim["status"]["allocation"]["devices"]["results"]
        devices.add(f"{result['pool']}/{result['device']}")
    assert len(devices) == 3  # three distinct A100s
    assert not any(device.endswith("t4-0") for device in devices)

    text = kubedra("simulate", str(CLUSTER), str(tmp_path / "app.yaml"))
    assert text.returncode == 0, text.stdout + text.stderr
    assert "3 pod(s) on 3 node(s): 3 placed, 0 pending" in text.stdout
    assert 'Deployment.apps "default/web" makes 3 pods' in text.stdout
    assert 'skipped Service "web" (v1): kubedra does not model this kind' in text.stdout
    names = kubedra("simulate", str(CLUSTER), str(tmp_path / "app.yaml"), "-o", "name")
    assert names.returncode == 0
    assert sum(line.startswith("pod/web-") for line in names.stdout.splitlines()) == 3


def test_skipped_kinds_do_not_change_the_exit_status(tmp_path: Path) -> None:
    (tmp_path / "svc.yaml").write_text(APP.split("---\n")[-1])
    out = kubedra("simulate", str(CLUSTER), str(tmp_path / "svc.yaml"))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "skipped Service" in out.stdout
    assert out.stderr == ""


def test_daemonset_makes_one_pod_per_node(tmp_path: Path) -> None:
    (tmp_path / "ds.yaml").write_text(DAEMONSET)
    out = kubedra("simulate", str(CLUSTER), "-f", str(tmp_path), "-o", "yaml")
    assert out.returncode == 0, out.stdout + out.stderr
    pods = _objects(out.stdout, "Pod")
    assert sorted(pod["spec"]["nodeName"] for pod in pods) == ["worker-1", "worker-2", "worker-3"]


def test_release_features_are_stated_and_warned_about(tmp_path: Path) -> None:
    (tmp_path / "claim.yaml").write_text(CAPACITY_CLAIM)
    old = kubedra("simulate", "--kubernetes-version", "1.35", str(CLUSTER), str(tmp_path))
    assert old.returncode == 0, old.stdout + old.stderr
    assert (
        "claim default/train uses DRAConsumableCapacity: alpha, off by default in 1.35"
        in old.stdout
    )
    assert old.stderr.startswith(
        "Warning: claim default/train relies on DRAConsumableCapacity, which is off in 1.35"
    )
    new = kubedra("simulate", "--kubernetes-version", "1.37", str(CLUSTER), str(tmp_path))
    assert "DRAConsumableCapacity: beta, on by default in 1.37" in new.stdout
    assert new.stderr == ""
    bad = kubedra("simulate", "--feature-gates", "DRANope=true", str(CLUSTER))
    assert bad.returncode == 2
    assert "unrecognized feature gate: DRANope" in bad.stderr


def test_feature_gates_reach_the_scheduler(tmp_path: Path) -> None:
    """A capacity request is refused by the scheduler where DRAConsumableCapacity is off."""
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "trainer"},
        "spec": {
            "resourceClaims": [{"name": "gpu", "resourceClaimName": "train"}],
            "containers": [{"name": "c", "image": "x", "resources": {"claims": [{"name": "gpu"}]}}],
        },
    }
    (tmp_path / "claim.yaml").write_text(CAPACITY_CLAIM + "---\n" + yaml.safe_dump(pod))
    args = ("explain", "pod", "trainer", str(CLUSTER), str(tmp_path), "-o", "json")
    off = kubedra(*args, "--kubernetes-version", "1.35")
    assert off.returncode == 0, off.stderr
    assert json.loads(off.stdout)["phase"] != "Scheduled"
    assert "DRAConsumableCapacity feature is disabled" in off.stdout
    on = kubedra(
        *args, "--kubernetes-version", "1.35", "--feature-gates", "DRAConsumableCapacity=true"
    )
    assert on.returncode == 0, on.stderr
    result = json.loads(on.stdout)
    assert result["phase"] == "Scheduled"
    assert result["features"] == [
        "claim default/train uses DRAConsumableCapacity: "
        "alpha, off by default in 1.35, turned on by --feature-gates"
    ]
    assert "alpha feature in 1.35" in on.stderr


def test_explain_expands_workloads_and_takes_f(tmp_path: Path) -> None:
    (tmp_path / "app.yaml").write_text(APP)
    placed = kubedra("simulate", str(CLUSTER), str(tmp_path), "-o", "name")
    pod = next(line for line in placed.stdout.splitlines() if line.startswith("pod/web-"))
    out = kubedra(
        "explain", "pod", pod.removeprefix("pod/"), "-f", str(CLUSTER), "-f", str(tmp_path)
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.startswith(f"pod default/{pod.removeprefix('pod/')} is bound to node")
    assert 'skipped Service "web"' in out.stdout
    as_yaml = kubedra(
        "explain", "pod", pod.removeprefix("pod/"), str(CLUSTER), str(tmp_path), "-o", "yaml"
    )
    assert yaml.safe_load(as_yaml.stdout)["found"] is True
    help_text = kubedra("explain", "pod", "-h")
    assert help_text.returncode == 0 and "--kubeconfig" in help_text.stdout


def test_no_input_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # no manifests and no cluster kubectl could find (else that cluster is the input)
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST"):
        monkeypatch.delenv(name, raising=False)
    for args in (("simulate",), ("explain", "pod", "x")):
        out = kubedra(*args)
        assert out.returncode == 1
        assert out.stderr.startswith("error: give manifests")
        assert "Traceback" not in out.stderr


def test_every_dra_example_file_and_scenario_directory_validates() -> None:
    """validate reads every manifest under examples/ (scenario directories included) and
    deploy/, and each scenario directory validates on its own with -f DIR."""
    files = sorted(
        path
        for root in (REPO / "examples", REPO / "deploy")
        for path in root.rglob("*")
        if path.suffix in (".yaml", ".yml", ".json")
    )
    out = kubedra("validate", "examples", "deploy")
    assert out.returncode == 0, out.stdout + out.stderr
    assert f" in {len(files)} files: " in out.stdout.splitlines()[-1]
    # Scenario directories hold manifests (examples/alibaba-trace holds CSVs for trace import).
    scenarios = sorted(
        p for p in (REPO / "examples").iterdir() if p.is_dir() and any(p.glob("*.yaml"))
    )
    assert len(scenarios) >= 10
    args = [arg for directory in scenarios for arg in ("-f", str(directory))]
    each = kubedra("validate", *args)
    assert each.returncode == 0, each.stdout + each.stderr
    assert each.stdout.splitlines()[-1].endswith(" 0 invalid")
    counted = sum(1 for d in scenarios for p in d.iterdir() if p.suffix == ".yaml")
    assert f" in {counted} files: " in each.stdout.splitlines()[-1]


def test_unreachable_cluster_and_bad_release_are_clear_errors(tmp_path: Path) -> None:
    missing = str(tmp_path / "none")
    for args, status in (
        (("simulate", "--kubeconfig", missing), 1),
        (("explain", "pod", "x", "--kubeconfig", missing), 1),
        (("serve-api", "--kubeconfig", missing), 2),
    ):
        out = kubedra(*args)
        assert out.returncode == status, out.stderr
        assert out.stderr == f"error: kubeconfig {missing}: no such file\n"
    for command in (("simulate",), ("explain", "pod", "x"), ("serve-api",)):
        bad = kubedra(*command, "--kubernetes-version", "1.30", "--example", "gpu-demo")
        assert bad.returncode == 2
        assert bad.stderr.startswith('Error: invalid argument "1.30" for "--kubernetes-version"')


def test_serve_api_help_has_the_shared_flags() -> None:
    out = kubedra("serve-api", "-h")
    assert out.returncode == 0, out.stderr
    for flag in ("--filename", "--recursive", "--kubeconfig", "--context", "--feature-gates"):
        assert flag in out.stdout


HUGE_RC = """\
apiVersion: v1
kind: ReplicationController
metadata: {name: rc}
spec:
  replicas: 2147483647
  selector: {app: rc}
  template:
    metadata: {labels: {app: rc}}
    spec:
      containers: [{name: c, image: x}]
"""


def test_one_command_makes_a_bounded_number_of_pods(tmp_path: Path) -> None:
    """2**31 - 1 replicas is valid int32, but no command starts making them: the error names
    the number and the flag (the same bound for simulate, explain and serve-api)."""
    (tmp_path / "rc.yaml").write_text(HUGE_RC)
    bound = (
        f'{tmp_path / "rc.yaml"}: document 0: ReplicationController "default/rc" makes '
        "2147483647 pods: more than the 100000 one command makes (raise the bound with --max-pods)"
    )
    for command, status in ((("simulate",), 1), (("explain", "pod", "x"), 1), (("serve-api",), 2)):
        out = kubedra(*command, str(tmp_path / "rc.yaml"))
        assert out.returncode == status, command  # each command's exit for bad input
        assert bound in out.stderr, out.stderr
    (tmp_path / "app.yaml").write_text(APP)
    low = kubedra("simulate", str(CLUSTER), str(tmp_path / "app.yaml"), "--max-pods", "2")
    assert low.returncode == 1
    assert 'Deployment.apps "default/web" makes 3 pods: more than the 2 one command' in low.stderr
    ok = kubedra("simulate", str(CLUSTER), str(tmp_path / "app.yaml"), "--max-pods", "3")
    assert ok.returncode == 0, ok.stderr
    # The bound is on the command's total: a second Deployment of 3 passes 5.
    second = APP.split("---\n")[1].replace("name: web", "name: api")
    (tmp_path / "api.yaml").write_text(second)
    both = [str(CLUSTER), str(tmp_path / "app.yaml"), str(tmp_path / "api.yaml")]
    total = kubedra("simulate", *both, "--max-pods", "5")
    assert total.returncode == 1
    assert 'Deployment.apps "default/api" makes 3 pods (3 before it): more than the 5' in (
        total.stderr
    )
    assert "default/web" not in total.stderr


def test_workload_counts_are_checked_as_the_apiserver_checks_them(tmp_path: Path) -> None:
    bad = [
        ("replicas: 2147483648", "cannot be decoded: spec.replicas: integer 2147483648 does "
         "not fit in 32 bits"),
        ("replicas: -1", "is invalid: spec.replicas: Invalid value: -1: must be greater than "
         "or equal to 0"),
        ('replicas: "3"', 'cannot be decoded: spec.replicas: expected integer, got a string '
         '"3"'),
        ("replicas: 1.5", "cannot be decoded: spec.replicas: expected integer, got a number "
         "1.5"),
    ]  # fmt: skip
    for field, message in bad:
        (tmp_path / "rc.yaml").write_text(HUGE_RC.replace("replicas: 2147483647", field))
        out = kubedra("simulate", str(tmp_path / "rc.yaml"))
        assert out.returncode == 1, field
        assert f'ReplicationController "default/rc" {message}' in out.stderr, out.stderr
        assert "Traceback" not in out.stderr
