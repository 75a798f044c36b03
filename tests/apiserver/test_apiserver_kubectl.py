"""kubectl (the real binary) against the simulated cluster: the scheduler reacts live."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import DATA, Served, simulation_from
from kubedra.apiserver import ApiServer, write_kubeconfig


def test_kubectl_create_pod_gets_scheduled_and_its_claim_allocated(served_cli: Served) -> None:
    out = served_cli.kubectl("create", "-f", str(DATA / "gpu-pod.yaml"))
    assert out.splitlines() == [
        "resourceclaim.resource.k8s.io/gpu-claim created",
        "pod/trainer created",
    ]
    waited = served_cli.kubectl(
        "wait", "--for=condition=PodScheduled", "pod/trainer", "--timeout=30s"
    )
    assert waited.strip() == "pod/trainer condition met"
    pod = json.loads(served_cli.kubectl("get", "pod", "trainer", "-o", "json"))
    assert pod["spec"]["nodeName"] == "node-1"
    claim = json.loads(served_cli.kubectl("get", "resourceclaim", "gpu-claim", "-o", "json"))
    results = claim["status"]["allocation"]["devices"]["results"]
    assert [(r["driver"], r["pool"], r["device"], r["request"]) for r in results] == [
        ("gpu.example.com", "node-1", "gpu-0", "gpu")
    ]
    assert claim["status"]["reservedFor"] == [
        {"resource": "pods", "name": "trainer", "uid": pod["metadata"]["uid"]}
    ]


def test_kubectl_get_tables_like_the_apiserver(served: Served) -> None:
    served.kubectl("create", "-f", str(DATA / "gpu-pod.yaml"))
    served.kubectl("create", "-f", str(DATA / "pending-claim.yaml"))
    claims = served.kubectl("get", "resourceclaims", "-o", "wide").splitlines()
    assert [line.split() for line in claims] == [
        ["NAME", "STATE", "AGE"],
        ["gpu-claim", "allocated,reserved", "0s"],
        ["unused", "pending", "0s"],
    ]
    pods = served.kubectl("get", "pods", "-o", "wide").splitlines()
    assert pods[0].split() == [
        "NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED", "NODE",
        "READINESS", "GATES",
    ]  # fmt: skip
    assert pods[1].split() == [
        "trainer", "1/1", "Running", "0", "0s", "<none>", "node-1", "<none>", "<none>"
    ]  # fmt: skip
    slices = served.kubectl("get", "resourceslices").splitlines()
    assert [line.split() for line in slices] == [
        ["NAME", "NODE", "DRIVER", "POOL", "AGE"],
        ["node-1-gpu", "node-1", "gpu.example.com", "node-1", "0s"],
    ]
    across = served.kubectl("get", "pods", "-A").splitlines()
    assert across[0].split()[:2] == ["NAMESPACE", "NAME"]
    assert across[1].split()[:2] == ["default", "trainer"]


def test_kubectl_describe_pod_shows_node_claims_and_scheduling_event(served: Served) -> None:
    served.kubectl("create", "-f", str(DATA / "gpu-pod.yaml"))
    described = served.kubectl("describe", "pod", "trainer")
    lines = [line.split() for line in described.splitlines()]
    assert ["Name:", "trainer"] in lines
    assert ["Node:", "node-1/"] in lines or ["Node:", "node-1"] in lines
    assert ["Status:", "Running"] in lines
    assert ["PodScheduled", "True"] in lines
    scheduled = [line for line in lines if line[:2] == ["Normal", "Scheduled"]]
    assert len(scheduled) == 1
    assert scheduled[0][-5:] == ["Successfully", "assigned", "default/trainer", "to", "node-1"]


def test_kubectl_apply_creates_new_objects_with_last_applied(served: Served) -> None:
    out = served.kubectl("apply", "-f", str(DATA / "gpu-pod.yaml"))
    assert out.splitlines() == [
        "resourceclaim.resource.k8s.io/gpu-claim created",
        "pod/trainer created",
    ]
    pod = json.loads(served.kubectl("get", "pod", "trainer", "-o", "json"))
    annotations = pod["metadata"]["annotations"]
    applied = json.loads(annotations["kubectl.kubernetes.io/last-applied-configuration"])
    assert applied["metadata"] == {"annotations": {}, "name": "trainer", "namespace": "default"}
    assert pod["spec"]["nodeName"] == "node-1"
    labelled = (
        (DATA / "gpu-pod.yaml")
        .read_text()
        .replace("  name: trainer\n", "  name: trainer\n  labels: {team: ml}\n")
    )
    out = served.kubectl("apply", "-f", "-", stdin=labelled)
    assert out.splitlines()[-1] == "pod/trainer configured"
    shown = served.kubectl("get", "pod", "trainer", "--show-labels").splitlines()
    assert shown[1].split()[-1] == "team=ml"


def test_kubectl_delete_pod_releases_its_claim(served: Served) -> None:
    served.kubectl("create", "-f", str(DATA / "gpu-pod.yaml"))
    out = served.kubectl("delete", "pod", "trainer", "--timeout=30s")
    # kubectl 1.37 adds "from default namespace"; older ones end after "deleted".
    assert out.strip().startswith('pod "trainer" deleted')
    missing = served.kubectl("get", "pod", "trainer", check=False)
    assert 'Error from server (NotFound): pods "trainer" not found' in missing
    claim = json.loads(served.kubectl("get", "resourceclaim", "gpu-claim", "-o", "json"))
    assert "reservedFor" not in claim.get("status", {})
    claims = served.kubectl("get", "resourceclaims").splitlines()
    assert claims[1].split()[:2] == ["gpu-claim", "pending"]
    out = served.kubectl("delete", "-f", str(DATA / "gpu-pod.yaml"), "--ignore-not-found")
    assert out.strip().startswith('resourceclaim.resource.k8s.io "gpu-claim" deleted')


def test_kubectl_reports_server_errors(served: Served) -> None:
    served.kubectl("create", "-f", str(DATA / "gpu-pod.yaml"))
    again = served.kubectl("create", "-f", str(DATA / "gpu-pod.yaml"), check=False)
    assert (
        'Error from server (AlreadyExists): error when creating "'
        + str(DATA / "gpu-pod.yaml")
        + '": pods "trainer" already exists'
    ) in again
    bad = served.kubectl("create", "-f", "-", stdin=BAD_CLAIM, check=False)
    assert 'The ResourceClaim "bad" is invalid' in bad
    assert "spec.devices.requests[0].name" in bad


BAD_CLAIM = """
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: bad
spec:
  devices:
    requests:
    - name: Not_A_DNS_Label
      exactly:
        deviceClassName: gpu.example.com
"""


def test_kubectl_through_a_path_prefix(tmp_path: Path) -> None:
    """The API mounted under a path (as inside a web app) works for kubectl too."""
    server = ApiServer(simulation_from(DATA / "cluster.yaml"), prefix="/k8s/")
    server.start()
    try:
        assert server.url.endswith("/k8s")
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", server.url)
        served = Served(server.url, kubeconfig, tmp_path)
        served.kubectl("create", "-f", str(DATA / "gpu-pod.yaml"))
        pods = served.kubectl("get", "pods", "-o", "wide").splitlines()
        assert pods[1].split()[:3] == ["trainer", "1/1", "Running"]
    finally:
        server.stop()


def test_kubectl_typed_commands_send_protobuf(served: Served) -> None:
    """`kubectl create namespace|priorityclass` encode their bodies in protobuf."""
    assert served.kubectl("create", "namespace", "ml").strip() == "namespace/ml created"
    out = served.kubectl(
        "create", "priorityclass", "high", "--value=1000", "--description=urgent",
        "--preemption-policy=Never",
    )  # fmt: skip
    assert out.strip() == "priorityclass.scheduling.k8s.io/high created"
    rows = [line.split() for line in served.kubectl("get", "namespaces").splitlines()]
    assert rows == [["NAME", "STATUS", "AGE"], ["ml", "Active", "0s"]]
    high = json.loads(served.kubectl("get", "priorityclass", "high", "-o", "json"))
    assert (high["value"], high["description"], high["preemptionPolicy"]) == (
        1000,
        "urgent",
        "Never",
    )
    assert "globalDefault" not in high
    missing = served.kubectl("create", "deployment", "x", "--image=y", check=False)
    assert "the server could not find the requested resource" in missing


def test_pending_pod_is_scheduled_when_devices_appear(served: Served) -> None:
    """Creating a ResourceSlice with kubectl wakes the scheduler for the waiting pod."""
    served.kubectl("create", "-f", str(DATA / "fpga-pod.yaml"))
    pod = json.loads(served.kubectl("get", "pod", "accel", "-o", "json"))
    assert pod["status"]["phase"] == "Pending"
    scheduled = next(c for c in pod["status"]["conditions"] if c["type"] == "PodScheduled")
    assert (scheduled["status"], scheduled["reason"]) == ("False", "Unschedulable")
    described = served.kubectl("describe", "pod", "accel")
    assert "Warning  FailedScheduling" in described
    claims = [line.split() for line in served.kubectl("get", "resourceclaims").splitlines()]
    assert claims[1][0].startswith("accel-fpga-")
    assert claims[1][1] == "pending"
    served.kubectl("create", "-f", str(DATA / "fpga-slice.yaml"))
    served.kubectl("wait", "--for=condition=PodScheduled", "pod/accel", "--timeout=30s")
    rows = [line.split() for line in served.kubectl("get", "pods", "-o", "wide").splitlines()]
    assert rows[1][:3] == ["accel", "1/1", "Running"]
    assert rows[1][6] == "node-1"
    claims = [line.split() for line in served.kubectl("get", "resourceclaims").splitlines()]
    assert claims[1][1] == "allocated,reserved"
