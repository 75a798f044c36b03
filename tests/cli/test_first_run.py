"""What a new user met trying ``kubedra simulate`` (issue 22): a claim of a missing class, a
pod naming a missing claim, and long summaries."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_subprocess import run_kubedra

MISSING = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: tpu}
spec:
  devices:
    requests:
    - name: tpu
      exactly: {deviceClassName: tpu.example.com}
---
apiVersion: v1
kind: Pod
metadata: {name: tpu-job}
spec:
  resourceClaims: [{name: tpu, resourceClaimName: tpu}]
  containers: [{name: main, image: busybox, resources: {claims: [{name: tpu}]}}]
---
apiVersion: v1
kind: Pod
metadata: {name: ghost}
spec:
  resourceClaims: [{name: c, resourceClaimName: does-not-exist}]
  containers: [{name: main, image: busybox, resources: {claims: [{name: c}]}}]
"""


@pytest.fixture(scope="module")
def summary(tmp_path_factory: pytest.TempPathFactory) -> str:
    """``kubedra simulate --example gpu-demo`` plus a claim of a class that does not exist and
    a pod naming a claim that does not exist."""
    path: Path = tmp_path_factory.mktemp("first-run") / "missing.yaml"
    path.write_text(MISSING)
    done = run_kubedra("simulate", "--example", "gpu-demo", str(path), timeout=120)
    assert done.returncode == 2, done.stderr  # pods stay Pending
    return done.stdout


def _block(text: str, heading: str) -> list[str]:
    """The lines under ``heading`` up to the next blank line."""
    lines = text.splitlines()
    start = lines.index(heading) + 1
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    return lines[start:end]


def test_a_claim_of_a_missing_class_lists_no_devices(summary: str) -> None:
    block = _block(summary, "Devices for default/tpu request tpu (class tpu.example.com):")
    assert block == ["  no devices: device class tpu.example.com does not exist"]
    # the request of an existing class still lists its candidates
    gpu = _block(summary, "Devices for default/training-gpu request gpu (class gpu.example.com):")
    assert any("gpu-b" in line and "yes -> allocated" in line for line in gpu)


def test_a_pod_naming_a_missing_claim_says_why_it_waits(summary: str) -> None:
    pending = _block(summary, "Pending")
    assert (
        '  default/ghost: not scheduled yet: resourceclaim.resource.k8s.io "does-not-exist" '
        "not found"
    ) in pending
    assert not any("waiting to be scheduled" in line for line in pending)


def test_limit_sets_the_rows_of_the_pod_and_claim_tables(tmp_path: Path) -> None:
    path = tmp_path / "missing.yaml"
    path.write_text(MISSING)
    cut = run_kubedra("simulate", "--example", "gpu-demo", str(path), "--limit", "1")
    assert cut.returncode == 2, cut.stderr
    pods = _block(cut.stdout, cut.stdout.splitlines()[0])
    assert [line.split()[0] for line in pods] == ["POD", "default/training", "..."]
    assert "... and 2 more pods (--limit 0 shows all)" in cut.stdout
    assert "... and 1 more claim devices (--limit 0 shows all)" in cut.stdout
    every = run_kubedra("simulate", "--example", "gpu-demo", str(path), "--limit", "0")
    table = every.stdout.split("\nCLAIM ")[0]
    assert all(f"default/{pod} " in table for pod in ("training", "tpu-job", "ghost"))
    assert "more pods" not in every.stdout
    bad = run_kubedra("simulate", "--example", "gpu-demo", "--limit", "-1")
    assert bad.returncode == 2 and "--limit" in bad.stderr
