"""What a new user sees with kubectl against `kubedra serve-api` (issue 22, finding 4): Ready
nodes with heartbeats and Leases, a clock at today's time, OpenAPI that agrees with /version
and serves `kubectl explain`, server-side dry runs and `kubectl diff`, pods that watch as
Terminating when deleted, and Events that belong to one pod, not to its name."""

from __future__ import annotations

import json
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from cli_subprocess import run_kubedra
from conftest import DATA, Served, kubectl_binary, serve_cli, simulation_from
from kubedra.apiserver import ApiServer, write_kubeconfig
from kubedra.cluster.clock import parse_time


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[ApiServer, Served]]:
    """The test cluster served in this process, with the server at hand (its clock)."""
    running = ApiServer(simulation_from(DATA / "cluster.yaml"))
    running.start()
    try:
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", running.url)
        yield running, Served(running.url, kubeconfig, tmp_path)
    finally:
        running.stop()


def rows(text: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines()]


def get_json(served: Served, *args: str) -> dict:
    return json.loads(served.kubectl("get", *args, "-o", "json"))


def json_documents(text: str) -> list[dict]:
    """kubectl's ``-o json`` of several objects: one document after the other."""
    decoder = json.JSONDecoder()
    documents, at = [], 0
    while text[at:].strip():
        at += len(text[at:]) - len(text[at:].lstrip())
        document, at = decoder.raw_decode(text, at)
        documents.append(document)
    return documents


def http_json(url: str, accept: str = "application/json") -> dict:
    request = urllib.request.Request(url, headers={"Accept": accept})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


# --- nodes: Ready, heartbeats, Leases ---------------------------------------------------------


def test_nodes_are_ready_renew_their_lease_and_heartbeats_wake_no_pod(server) -> None:
    running, served = server
    assert rows(served.kubectl("get", "nodes")) == [
        ["NAME", "STATUS", "ROLES", "AGE", "VERSION"],
        ["node-1", "Ready", "<none>", "0s", "v1.37.0+kubedra"],
    ]
    node = get_json(served, "node", "node-1")
    conditions = {c["type"]: c for c in node["status"]["conditions"]}
    assert list(conditions) == ["MemoryPressure", "DiskPressure", "PIDPressure", "Ready"]
    ready = conditions["Ready"]
    assert (ready["status"], ready["reason"], ready["message"]) == (
        "True",
        "KubeletReady",
        "kubelet is posting ready status",
    )
    assert ready["lastHeartbeatTime"] == "2026-01-01T00:00:00Z"
    described = served.kubectl("describe", "node", "node-1")
    assert "Failed to get lease" not in described
    assert ["HolderIdentity:", "node-1"] in rows(described)
    lease = get_json(served, "lease", "node-1", "-n", "kube-node-lease")
    assert lease["spec"] == {
        "holderIdentity": "node-1",
        "leaseDurationSeconds": 40,
        "renewTime": "2026-01-01T00:00:00.000000Z",
    }
    assert lease["metadata"]["ownerReferences"][0]["uid"] == node["metadata"]["uid"]
    # a pending pod: each scheduling attempt would count one more FailedScheduling
    served.kubectl("create", "-f", str(DATA / "fpga-pod.yaml"))
    before = get_json(served, "events")["items"]
    running.cluster.clock.advance(301)  # past the 5-minute status report and many renewals
    lease = get_json(served, "lease", "node-1", "-n", "kube-node-lease")
    assert lease["spec"]["renewTime"] == "2026-01-01T00:05:01.000000Z"
    node = get_json(served, "node", "node-1")
    beats = {c["type"]: c["lastHeartbeatTime"] for c in node["status"]["conditions"]}
    assert set(beats.values()) == {"2026-01-01T00:05:01Z"}
    ready = next(c for c in node["status"]["conditions"] if c["type"] == "Ready")
    assert ready["lastTransitionTime"] == "2026-01-01T00:00:00Z"
    after = get_json(served, "events")["items"]
    assert [(e["reason"], e["count"]) for e in after] == [
        (e["reason"], e["count"]) for e in before
    ]  # a heartbeat changes nothing the scheduler reads: no retry, no new event
    refused = served.kubectl("delete", "lease", "node-1", "-n", "kube-node-lease", check=False)
    assert "(MethodNotAllowed)" in refused


def test_a_node_marked_not_ready_stays_so(server) -> None:
    running, served = server
    served.kubectl(
        "patch", "node", "node-1", "--subresource=status", "--type=merge", "-p",
        json.dumps({"status": {"conditions": [{"type": "Ready", "status": "False"}]}}),
    )  # fmt: skip
    running.cluster.clock.advance(60)
    assert rows(served.kubectl("get", "nodes"))[1][:2] == ["node-1", "NotReady"]
    lease = get_json(served, "lease", "node-1", "-n", "kube-node-lease")
    assert lease["spec"]["renewTime"] == "2026-01-01T00:00:00.000000Z"  # not renewed


# --- the clock --------------------------------------------------------------------------------


def test_the_clock_starts_now_and_follows_the_wall_clock(tmp_path: Path) -> None:
    started = datetime.now(UTC)
    with serve_cli(tmp_path, str(DATA / "cluster.yaml")) as served:
        node = get_json(served, "node", "node-1")
        created = parse_time(node["metadata"]["creationTimestamp"])
        assert created is not None
        assert started - timedelta(seconds=2) <= created <= datetime.now(UTC)
        time.sleep(2.2)
        served.kubectl("create", "-f", str(DATA / "gpu-pod.yaml"))
        pod = get_json(served, "pod", "trainer")
        later = parse_time(pod["metadata"]["creationTimestamp"])
        assert later is not None and later - created >= timedelta(seconds=2)
        event = get_json(served, "events")["items"][0]
        assert parse_time(event["lastTimestamp"]) == later


def test_start_time_fixes_the_clock(tmp_path: Path) -> None:
    with serve_cli(
        tmp_path, str(DATA / "cluster.yaml"), "--start-time", "2030-05-01T12:00:00Z"
    ) as served:
        served.kubectl("create", "-f", str(DATA / "gpu-pod.yaml"))
        pod = get_json(served, "pod", "trainer")
        assert pod["metadata"]["creationTimestamp"] == "2030-05-01T12:00:00Z"
        assert pod["status"]["startTime"] == "2030-05-01T12:00:00Z"
    done = run_kubedra("serve-api", "--start-time", "yesterday", timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith(
        'Error: invalid argument "yesterday" for "--start-time" flag: not an RFC 3339 time'
    )


# --- OpenAPI ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("release", "has", "lacks"),
    [
        (None, "nodeAllocatableResources", "nodeAllocatableResourceMappings"),
        ("1.36", "nodeAllocatableResourceMappings", "nodeAllocatableResources"),
    ],
)
def test_openapi_agrees_with_version_and_has_the_releases_fields(
    release: str | None, has: str, lacks: str
) -> None:
    with ApiServer(simulation_from(DATA / "cluster.yaml"), release=release) as running:
        version = http_json(running.url + "/version")["gitVersion"]
        assert version == f"v{release or '1.37'}.0+kubedra"
        paths = http_json(running.url + "/openapi/v3")["paths"]
        document = http_json(running.url + paths["apis/resource.k8s.io/v1"]["serverRelativeURL"])
        assert document["info"]["version"] == version
        swagger = http_json(running.url + "/openapi/v2")
        assert swagger["info"]["version"] == version
        for schemas in (document["components"]["schemas"], swagger["definitions"]):
            device = schemas["io.k8s.api.resource.v1.Device"]["properties"]
            assert has in device and lacks not in device
            claim = schemas["io.k8s.api.resource.v1.ResourceClaim"]
            assert claim["x-kubernetes-group-version-kind"] == [
                {"group": "resource.k8s.io", "kind": "ResourceClaim", "version": "v1"}
            ]
        kinds = {
            gvk["kind"]
            for key in paths
            for schema in http_json(running.url + paths[key]["serverRelativeURL"])["components"][
                "schemas"
            ].values()
            for gvk in schema.get("x-kubernetes-group-version-kind", [])
        }
        assert {"Pod", "Node", "Event", "Lease", "ResourceClaim", "DeviceClass"} <= kinds
        assert ("PodGroup" in kinds) == (release != "1.35")
        protobuf = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
        request = urllib.request.Request(running.url + "/openapi/v2", headers={"Accept": protobuf})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 406


def test_kubectl_explain_reads_the_schemas(tmp_path: Path) -> None:
    with ApiServer(simulation_from(DATA / "cluster.yaml"), release="1.36") as running:
        served = Served(running.url, write_kubeconfig(tmp_path / "kc", running.url), tmp_path)
        explained = served.kubectl("explain", "resourceclaims.spec.devices.requests")
        assert ["KIND:", "ResourceClaim"] in rows(explained)
        fields = [line.split()[0] for line in explained.splitlines() if "\t<" in line]
        assert fields == ["exactly", "firstAvailable", "name"]
        workload = served.kubectl("explain", "workloads")
        assert ["VERSION:", "v1alpha2"] in rows(workload)
        lease = served.kubectl("explain", "leases.spec.renewTime")
        assert ["FIELD:", "renewTime", "<string>"] in rows(lease)


# --- dry runs and kubectl diff ----------------------------------------------------------------


def test_server_dry_runs_change_nothing(server) -> None:
    running, served = server
    out = served.kubectl(
        "create", "--dry-run=server", "-f", str(DATA / "gpu-pod.yaml"), "-o", "json"
    )
    dry = json_documents(out)
    assert [d["kind"] for d in dry] == ["ResourceClaim", "Pod"]
    assert "resourceVersion" not in dry[1]["metadata"]
    version = running.cluster.store.resource_version
    assert served.kubectl("get", "pods,resourceclaims", "-o", "name") == ""
    served.kubectl("create", "-f", str(DATA / "gpu-pod.yaml"))
    real = get_json(served, "resourceclaim", "gpu-claim")
    # nothing was used up: the first object created gets the uid the dry run showed
    assert real["metadata"]["uid"] == dry[0]["metadata"]["uid"]
    assert running.cluster.store.resource_version > version
    version = running.cluster.store.resource_version
    labelled = served.kubectl(
        "label",
        "pod",
        "trainer",
        "team=ml",
        "--dry-run=server",
        "-o",
        "jsonpath={.metadata.labels}",
    )
    assert json.loads(labelled) == {"team": "ml"}
    out = served.kubectl("delete", "pod", "trainer", "--dry-run=server")
    assert out.startswith('pod "trainer" deleted') and "(server dry run)" in out
    assert running.cluster.store.resource_version == version
    assert "labels" not in get_json(served, "pod", "trainer")["metadata"]


def test_kubectl_diff_shows_what_apply_would_change(server) -> None:
    _, served = server
    manifest = (DATA / "gpu-pod.yaml").read_text()
    served.kubectl("apply", "-f", "-", stdin=manifest)
    env = {"HOME": str(served.home), "KUBECONFIG": str(served.kubeconfig), "PATH": "/usr/bin:/bin"}
    same = subprocess.run(
        [kubectl_binary(), "diff", "-f", "-"], input=manifest, capture_output=True, text=True,
        env=env, timeout=60, check=False,
    )  # fmt: skip
    assert (same.returncode, same.stdout, same.stderr) == (0, "", "")
    changed = manifest.replace("  name: trainer\n", "  name: trainer\n  labels: {team: ml}\n")
    diff = subprocess.run(
        [kubectl_binary(), "diff", "-f", "-"], input=changed, capture_output=True, text=True,
        env=env, timeout=60, check=False,
    )  # fmt: skip
    assert diff.returncode == 1, diff.stderr
    assert "+  labels:\n+    team: ml\n" in diff.stdout
    assert "labels" not in get_json(served, "pod", "trainer")["metadata"]
    # a new image: kubectl's strategic merge patch names only the container and its image
    newer = manifest.replace("pause:3.10", "pause:3.11")
    diff = subprocess.run(
        [kubectl_binary(), "diff", "-f", "-"], input=newer, capture_output=True, text=True,
        env=env, timeout=60, check=False,
    )  # fmt: skip
    changed_lines = [
        line for line in diff.stdout.splitlines() if line[:1] in "+-" and line[:3] not in "+++---"
    ]
    assert changed_lines == [
        "-  - image: registry.k8s.io/pause:3.10",
        "+  - image: registry.k8s.io/pause:3.11",
    ], diff.stdout
    served.kubectl("apply", "-f", "-", stdin=newer)
    container = get_json(served, "pod", "trainer")["spec"]["containers"][0]
    assert container["image"] == "registry.k8s.io/pause:3.11"
    assert container["resources"] == {"claims": [{"name": "gpu"}]}


# --- watching pods; Events per pod ------------------------------------------------------------


def test_get_pods_watch_fills_status_and_shows_terminating(server) -> None:
    _, served = server
    env = {"HOME": str(served.home), "KUBECONFIG": str(served.kubeconfig), "PATH": "/usr/bin:/bin"}
    watch = subprocess.Popen(
        [kubectl_binary(), "get", "pods", "-w"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )  # fmt: skip
    try:
        time.sleep(1.5)  # the watch is open
        served.kubectl("create", "-f", str(DATA / "gpu-pod.yaml"))
        served.kubectl("wait", "--for=condition=Ready", "pod/trainer", "--timeout=30s")
        out = served.kubectl("delete", "pod", "trainer", "--timeout=30s")
        assert out.startswith('pod "trainer" deleted')
        time.sleep(1.5)  # the last events reach the watch
    finally:
        watch.terminate()
        output, _ = watch.communicate(timeout=30)
    lines = [line.split() for line in output.splitlines() if line.startswith("trainer")]
    assert all(len(line) == 5 for line in lines), output  # NAME READY STATUS RESTARTS AGE
    statuses = [line[2] for line in lines]
    assert statuses[0] == "Pending"
    assert "Running" in statuses
    terminating = statuses.index("Terminating")
    assert statuses[terminating:] == ["Terminating", "Completed", "Completed"], output
    assert lines[-1][1] == "0/1"


def test_a_pod_created_again_has_its_own_events(server) -> None:
    _, served = server
    served.kubectl("create", "-f", str(DATA / "fpga-pod.yaml"))
    first = get_json(served, "pod", "accel")["metadata"]["uid"]
    served.kubectl("delete", "pod", "accel")
    pod_only = (DATA / "fpga-pod.yaml").read_text().split("---")[-1]
    served.kubectl("create", "-f", "-", stdin=pod_only)
    second = get_json(served, "pod", "accel")["metadata"]["uid"]
    events = [e for e in get_json(served, "events")["items"] if e["reason"] == "FailedScheduling"]
    assert [(e["involvedObject"]["uid"], e["count"]) for e in events] == [(first, 1), (second, 1)]
    described = served.kubectl("describe", "pod", "accel")
    assert (
        len([line for line in rows(described) if line[:2] == ["Warning", "FailedScheduling"]]) == 1
    )
