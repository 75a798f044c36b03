"""``kubedra snapshot`` end to end against a fake API server, through a kubeconfig file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from fake_apiserver import PLURALS, FakeCluster, serve, write_kubeconfig

from cli_subprocess import run_kubedra as _kubedra
from kubedra.api.io import load_paths, load_text
from kubedra.live import ClusterReader, LiveError, connect, read_cluster

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


def _example_objects() -> list[dict[str, Any]]:
    """The examples as the fake serves them: resource.k8s.io in v1beta2 (v1's shape)."""
    objects = []
    for loaded in load_paths([EXAMPLES]).objects:
        if loaded.wire["kind"] not in PLURALS:  # kinds the live reader does not read
            continue
        wire = dict(loaded.wire)
        if wire["apiVersion"] == "resource.k8s.io/v1":
            wire["apiVersion"] = "resource.k8s.io/v1beta2"
        objects.append(wire)
    return objects


def _key(obj: dict[str, Any]) -> tuple[str, str, str]:
    metadata = obj.get("metadata", {})
    return obj["kind"], metadata.get("namespace", ""), metadata["name"]


@pytest.fixture
def cluster() -> FakeCluster:
    return FakeCluster(_example_objects(), forbidden={"priorityclasses"})


def test_snapshot_reads_every_kind_in_pages_and_converts_to_v1(
    cluster: FakeCluster, tmp_path: Path
) -> None:
    with serve(cluster) as url:
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", url)
        api_client = connect(kubeconfig)
        snapshot = ClusterReader(api_client, chunk_size=2).read()
        api_client.close()
    expected = {_key(obj): obj for obj in _v1(cluster.objects) if obj["kind"] != "PriorityClass"}
    got = {_key(obj): obj for obj in snapshot.objects}
    assert got.keys() == expected.keys()
    for key, obj in got.items():
        assert "managedFields" not in obj["metadata"]
        assert obj == expected[key], key
    assert snapshot.versions["ResourceClaim"] == "resource.k8s.io/v1beta2"
    assert snapshot.versions["Pod"] == "v1"
    assert snapshot.skipped == [
        "priorityclasses.scheduling.k8s.io: priorityclasses.scheduling.k8s.io is forbidden: "
        'User "viewer" cannot list resource "priorityclasses" in API group '
        '"scheduling.k8s.io" at the cluster scope'
    ]
    loaded = snapshot.load()
    assert not loaded.errors
    assert len(loaded.objects) == len(snapshot.objects)
    methods = {method for method, _path, _query in cluster.requests}
    assert methods == {"GET"}
    # Pagination: N ResourceSlices in pages of two take ceil(N / 2) requests, the later ones
    # carrying the continue token (the offset reached so far).
    slices = sum(1 for obj in cluster.objects if obj["kind"] == "ResourceSlice")
    assert slices > 4
    slice_requests = [q for _m, p, q in cluster.requests if p.endswith("/resourceslices")]
    tokens = [None] + [[str(offset)] for offset in range(2, slices, 2)]
    assert [q.get("continue") for q in slice_requests] == tokens
    assert all(q["limit"] == ["2"] for q in slice_requests)


def _v1(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        obj | {"apiVersion": "resource.k8s.io/v1"}
        if obj["apiVersion"] == "resource.k8s.io/v1beta2"
        else obj
        for obj in objects
    ]


def test_namespace_restricts_namespaced_kinds(cluster: FakeCluster, tmp_path: Path) -> None:
    with serve(cluster) as url:
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", url)
        snapshot = read_cluster(str(kubeconfig), namespace="gpu-monitoring")
    namespaces = {
        obj["metadata"].get("namespace")
        for obj in snapshot.objects
        if obj["kind"] in ("Pod", "ResourceClaim", "ResourceClaimTemplate")
    }
    assert namespaces == {"gpu-monitoring"}
    paths = {path for _m, path, _q in cluster.requests}
    assert "/api/v1/namespaces/gpu-monitoring/pods" in paths
    assert "/api/v1/nodes" in paths


def test_snapshot_command_output_validates(cluster: FakeCluster, tmp_path: Path) -> None:
    with serve(cluster) as url:
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", url)
        out = _kubedra("snapshot", "--kubeconfig", str(kubeconfig), "-o", "yaml")
    assert out.returncode == 0, out.stderr
    assert "Warning: skipped priorityclasses.scheduling.k8s.io" in out.stderr
    listing = yaml.safe_load(out.stdout)
    assert listing["kind"] == "List"
    saved = tmp_path / "cluster.yaml"
    saved.write_text(out.stdout)
    result = _kubedra("validate", str(saved))
    assert result.returncode == 0, result.stdout + result.stderr
    count = len(listing["items"])
    assert f"{count} objects in 1 file: {count} valid, 0 invalid" in result.stdout
    # The saved List loads to the same objects the files hold (less the forbidden kind).
    from_snapshot = {_key(obj.wire): obj.wire for obj in load_text(out.stdout).objects}
    from_files = {
        _key(obj.wire): obj.wire
        for obj in load_paths([EXAMPLES]).objects
        if obj.kind != "PriorityClass" and obj.kind in PLURALS
    }
    assert from_snapshot == from_files


def test_snapshot_json_and_context(cluster: FakeCluster, tmp_path: Path) -> None:
    with serve(cluster) as url:
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", url, context="lab")
        out = _kubedra(
            "snapshot", "--kubeconfig", str(kubeconfig), "--context", "lab", "-o", "json"
        )
        missing = _kubedra("snapshot", "--kubeconfig", str(kubeconfig), "--context", "nope")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["kind"] == "List"
    assert missing.returncode == 1
    assert missing.stderr.startswith("error: cannot use ")
    assert "nope" in missing.stderr
    assert "Traceback" not in missing.stderr


def test_wrong_credentials_and_unreachable_server_are_one_line_errors(
    cluster: FakeCluster, tmp_path: Path
) -> None:
    with serve(cluster) as url:
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", url, token="wrong")
        with pytest.raises(LiveError, match=r"discovery of resource\.k8s\.io: Unauthorized"):
            read_cluster(str(kubeconfig))
    gone = write_kubeconfig(tmp_path / "gone", url)  # the server has stopped
    out = _kubedra("snapshot", "--kubeconfig", str(gone))
    assert out.returncode == 1
    assert out.stderr.startswith(f"error: cannot reach {url}")
    assert len(out.stderr.strip().splitlines()) == 1


def test_no_kubeconfig_and_not_in_cluster(tmp_path: Path) -> None:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT")
    }
    env |= {"HOME": str(tmp_path), "PYTHONPATH": str(REPO / "src")}
    out = subprocess.run(
        [sys.executable, "-m", "kubedra", "snapshot"], capture_output=True, text=True, env=env
    )
    assert out.returncode == 1
    assert out.stderr.startswith("error: no kubeconfig found")


def test_in_cluster_configuration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a kubeconfig, the pod's service account is used, as client-go does."""
    import kubernetes.config.incluster_config as incluster

    token, cert = tmp_path / "token", tmp_path / "ca.crt"
    token.write_text("in-cluster-token")
    cert.write_text("not checked until a TLS connection is made")
    monkeypatch.setattr(incluster, "SERVICE_TOKEN_FILENAME", str(token))
    monkeypatch.setattr(incluster, "SERVICE_CERT_FILENAME", str(cert))
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "443")
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    api_client = connect()
    try:
        assert api_client.configuration.host == "https://10.0.0.1:443"
        header = api_client.configuration.auth_settings()["BearerToken"]
        assert header["value"].lower() == "bearer in-cluster-token"
    finally:
        api_client.close()


def test_newest_served_version_is_read_and_an_unserved_group_is_skipped(
    tmp_path: Path,
) -> None:
    both = FakeCluster(_v1(_example_objects()), resource_versions=("v1beta2", "v1"))
    with serve(both) as url:
        snapshot = read_cluster(str(write_kubeconfig(tmp_path / "k", url)))
    assert snapshot.versions["ResourceSlice"] == "resource.k8s.io/v1"
    assert not any(
        path.startswith("/apis/resource.k8s.io/v1beta2/") for _m, path, _q in both.requests
    )

    none = FakeCluster(_example_objects(), resource_versions=())
    with serve(none) as url:
        snapshot = read_cluster(str(write_kubeconfig(tmp_path / "k", url)))
    assert {obj["kind"] for obj in snapshot.objects} == {
        "Namespace",
        "Node",
        "Pod",
        "PriorityClass",
    }
    assert snapshot.skipped[0] == (
        "deviceclasses.resource.k8s.io: not served in a version kubedra reads "
        "(resource.k8s.io/v1, resource.k8s.io/v1beta2, resource.k8s.io/v1beta1)"
    )
    assert len(snapshot.skipped) == 5


def test_v1beta1_objects_are_converted_to_v1(tmp_path: Path) -> None:
    beta_slice = {
        "apiVersion": "resource.k8s.io/v1beta1",
        "kind": "ResourceSlice",
        "metadata": {"name": "node-1-gpu"},
        "spec": {
            "driver": "gpu.example.com",
            "nodeName": "node-1",
            "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
            "devices": [{"name": "gpu-0", "basic": {"attributes": {"model": {"string": "a"}}}}],
        },
    }
    cluster = FakeCluster([beta_slice], resource_versions=("v1beta1",))
    with serve(cluster) as url:
        snapshot = read_cluster(str(write_kubeconfig(tmp_path / "k", url)))
    [got] = snapshot.objects
    assert got["apiVersion"] == "resource.k8s.io/v1"
    assert got["spec"]["devices"] == [{"name": "gpu-0", "attributes": {"model": {"string": "a"}}}]
    assert snapshot.versions["ResourceSlice"] == "resource.k8s.io/v1beta1"
    assert (
        "devicetaintrules.resource.k8s.io: not served in a version kubedra reads "
        "(resource.k8s.io/v1, resource.k8s.io/v1beta2)"
    ) in snapshot.skipped
    assert not snapshot.load().errors
