"""``kubedra simulate``: the demo, machine-readable output, exit codes and timelines."""

from __future__ import annotations

from pathlib import Path

import yaml

from cli_subprocess import run_kubedra as kubedra

REPO = Path(__file__).resolve().parent.parent.parent


def test_gpu_demo_binds_gpu_b_and_says_why() -> None:
    out = kubedra("simulate", "--example", "gpu-demo")
    assert out.returncode == 0, out.stderr
    lines = [line.rstrip() for line in out.stdout.splitlines()]
    assert lines[0] == "1 pod(s) on 3 node(s): 1 placed, 0 pending"
    assert lines[2].split() == ["default/training", "worker-2", "Running", "training-gpu"]
    claim_rows = [line.split() for line in lines if line.startswith("default/training-gpu")]
    assert claim_rows == [
        ["default/training-gpu", "gpu", "gpu.example.com/worker-2/gpu-b", "memory=24Gi", "training"]
    ]
    devices = {line.split()[0]: line.split()[1:] for line in lines if "/worker-" in line}
    assert " ".join(devices["gpu.example.com/worker-1/gpu-a"]) == (
        "worker-1 8Gi no (request selector false)"
    )
    assert " ".join(devices["gpu.example.com/worker-2/gpu-b"]) == "worker-2 24Gi yes -> allocated"
    assert devices["gpu.example.com/worker-3/gpu-c"][:3] == ["worker-3", "12Gi", "no"]


def test_yaml_output_is_every_object_and_valid(tmp_path: Path) -> None:
    out = kubedra("simulate", "--example", "gpu-demo", "-o", "yaml")
    assert out.returncode == 0, out.stderr
    docs = list(yaml.safe_load_all(out.stdout))
    assert [d["kind"] for d in docs].count("ResourceSlice") == 3
    [claim] = [d for d in docs if d["kind"] == "ResourceClaim"]
    assert claim["status"]["allocation"]["devices"]["results"][0]["device"] == "gpu-b"
    assert claim["status"]["reservedFor"][0]["name"] == "training"
    [pod] = [d for d in docs if d["kind"] == "Pod"]
    assert pod["spec"]["nodeName"] == "worker-2"
    check = kubedra("validate", "-", stdin=out.stdout)
    assert check.returncode == 0, check.stdout
    assert check.stdout.strip().endswith("9 valid, 0 invalid")


def test_json_output_is_a_list() -> None:
    out = kubedra("simulate", "--example", "gpu-demo", "-o", "json")
    data = yaml.safe_load(out.stdout)
    assert data["kind"] == "List" and len(data["items"]) == 9


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


POD = """\
apiVersion: v1
kind: Pod
metadata: {name: big}
spec:
  containers: [{name: c, image: i, resources: {requests: {cpu: "100"}}}]
"""
NODE = """\
apiVersion: v1
kind: Node
metadata: {name: small}
status: {capacity: {cpu: "2", memory: 4Gi, pods: "10"}}
"""


def test_pending_pod_exits_two_with_its_reason(tmp_path: Path) -> None:
    out = kubedra("simulate", str(write(tmp_path / "c.yaml", NODE + "---\n" + POD)), "-n", "team")
    assert out.returncode == 2, out.stderr
    assert "team/big: 0/1 nodes are available: 1 Insufficient cpu." in out.stdout


def test_bad_input_exits_one(tmp_path: Path) -> None:
    bad = write(tmp_path / "bad.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: Bad_Name}\n")
    out = kubedra("simulate", str(bad))
    assert out.returncode == 1
    assert 'Pod "Bad_Name" is invalid' in out.stderr
    assert kubedra("simulate", "--example", "nope").returncode == 1
    assert kubedra("simulate").returncode == 1


def test_timeline_cordon_delete_and_taint(tmp_path: Path) -> None:
    events = write(
        tmp_path / "events.yaml",
        """\
- cordon: worker-2
- delete: {kind: Pod, name: training}
- create:
    apiVersion: v1
    kind: Pod
    metadata: {name: again}
    spec:
      resourceClaims: [{name: gpu, resourceClaimName: training-gpu}]
      containers: [{name: c, image: i}]
- uncordon: worker-2
- after: 30s
  taint: {device: gpu-b, key: example.com/ecc, effect: NoExecute}
""",
    )
    out = kubedra("simulate", "--example", "gpu-demo", "--events", str(events))
    text = out.stdout
    assert "Step 1 (t=+0s): cordon worker-2\n  node worker-2 cordoned" in text
    freed = "claim default/training-gpu deallocated: gpu.example.com/worker-2/gpu-b free again"
    assert freed in text
    assert "pod default/again unschedulable: 0/3 nodes are available:" in text
    assert "Step 4 (t=+0s): uncordon worker-2" in text
    assert "pod default/again bound to worker-2" in text
    assert "Step 5 (t=+30s)" in text
    evicted = "pod default/again evicted: Device Taint manager: deleting due to NoExecute taint"
    assert evicted in text
    assert out.returncode == 0, out.stderr


def test_bad_timeline_names_the_step(tmp_path: Path) -> None:
    events = write(tmp_path / "e.yaml", "- cordon: x\n- explode: now\n")
    out = kubedra("simulate", "--example", "gpu-demo", "--events", str(events))
    assert out.returncode == 1
    assert f"{events}: step 2: unknown step 'explode'" in out.stderr


def test_wide_adds_priority_qos_and_node_selector() -> None:
    out = kubedra("simulate", "--example", "gpu-demo", "-o", "wide")
    lines = [line.split() for line in out.stdout.splitlines()]
    assert ["POD", "NODE", "STATUS", "CLAIMS", "PRIORITY", "QOS"] in lines
    assert ["default/training", "worker-2", "Running", "training-gpu", "0", "Burstable"] in lines
    assert any(row[-3:] == ["metadata.name", "In", "worker-2"] for row in lines)


def test_seed_changes_generated_names_reproducibly() -> None:
    def names(seed: str) -> list[str]:
        out = kubedra("simulate", str(REPO / "examples" / "claim-templates"), "--seed", seed)
        return [line.split()[3] for line in out.stdout.splitlines() if line.startswith("default/")][
            :2
        ]

    assert names("3") == names("3")
    assert names("3") != names("4")


DONE_POD = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu}
spec:
  spec:
    devices:
      requests: [{name: gpu, exactly: {deviceClassName: gpu}}]
---
apiVersion: v1
kind: Pod
metadata: {name: done}
spec:
  containers: [{name: c, image: x, resources: {claims: [{name: gpu}]}}]
  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
status:
  phase: Failed
"""


def test_simulate_and_explain_end_for_a_done_pod_with_a_template(tmp_path: Path) -> None:
    """Issue 23 item 1: both commands spun forever on a finished pod whose claim comes from
    a template (the subprocess timeout turns that hang into a failure)."""
    manifest = write(tmp_path / "done.yaml", DONE_POD)
    out = kubedra("simulate", str(manifest), timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[2].split() == ["default/done", "-", "Failed", "-"]
    out = kubedra("explain", "pod", "done", str(manifest), timeout=60)
    assert (out.returncode, out.stdout.strip()) == (0, "pod default/done is Failed."), out.stderr


def test_a_selector_past_the_runtime_limit_leaves_the_pod_pending(tmp_path: Path) -> None:
    """Estimated cheap (upstream takes flatten's result to be as long as its target), it
    iterates a million shared items: the scheduler's path stops at the runtime limit, as
    cel-go and `conformance eval` do; it placed the pod before."""
    levels = "cel.bind(l0, [" + ", ".join(["0"] * 10) + "], "
    for level in range(1, 6):
        levels += f"cel.bind(l{level}, [" + ", ".join([f"l{level - 1}"] * 10) + "], "
    selector = levels + "l5.flatten(5).all(x, x == 0)" + ")" * 6
    demo = (REPO / "src/kubedra/cluster/examples/gpu-demo.yaml").read_text()
    memory = 'device.capacity["gpu.example.com"].memory.compareTo(quantity("16Gi")) >= 0'
    assert demo.count(memory) == 1
    path = write(tmp_path / "demo.yaml", demo.replace(memory, selector.replace('"', '\\"')))
    check = kubedra("validate", str(path))
    assert check.returncode == 0, check.stdout  # the estimate is within the limit
    out = kubedra("simulate", str(path))
    assert out.returncode == 2, out.stdout + out.stderr
    assert "0 placed, 1 pending" in out.stdout
    assert "actual cost limit exceeded" in out.stdout
