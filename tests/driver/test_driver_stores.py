"""The cluster-directory store and the Kubernetes store (with a mocked API client)."""

from __future__ import annotations

import threading
import time
from unittest import mock

import pytest
import yaml
from kubernetes.client.exceptions import ApiException

from kubedra.driver.store import StoreError, open_store
from kubedra.driver.store_dir import ClusterDirectory
from kubedra.driver.store_kube import KubernetesStore


def slice_object(node: str, driver: str = "gpu.example.com", name: str = "") -> dict:
    meta = {"name": name} if name else {"generateName": "00000-gpu.example.com-n-"}
    return {
        "kind": "ResourceSlice",
        "metadata": meta,
        "spec": {"driver": driver, "nodeName": node, "pool": {"name": node}},
    }


def test_layout_one_object_per_file(tmp_path):
    store = ClusterDirectory(tmp_path)
    created = store.create_resource_slice(slice_object("n"))
    store.put({"kind": "ResourceClaim", "metadata": {"name": "c", "namespace": "ns"}})
    store.put({"kind": "Pod", "metadata": {"name": "p"}, "spec": {"nodeName": "n"}})
    store.register_node("n")
    store.put({"kind": "DeviceClass", "metadata": {"name": "gpu.example.com"}})
    name = created["metadata"]["name"]
    assert name.startswith("00000-gpu.example.com-n-") and len(name) == 29
    files = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert files == [
        "deviceclasses/gpu.example.com.yaml",
        "nodes/n.yaml",
        "pods/default/p.yaml",
        "resourceclaims/ns/c.yaml",
        f"resourceslices/{name}.yaml",
    ]
    on_disk = yaml.safe_load((tmp_path / f"resourceslices/{name}.yaml").read_text())
    assert on_disk["apiVersion"] == "resource.k8s.io/v1"
    assert on_disk["metadata"]["uid"] == created["metadata"]["uid"]


def test_resource_versions_increase_and_uids_stay(tmp_path):
    store = ClusterDirectory(tmp_path)
    first = store.create_resource_slice(slice_object("n", name="s"))
    second = store.update_resource_slice(first)
    assert int(second["metadata"]["resourceVersion"]) > int(first["metadata"]["resourceVersion"])
    assert second["metadata"]["uid"] == first["metadata"]["uid"]
    with pytest.raises(StoreError, match="already exists"):
        store.create_resource_slice(slice_object("n", name="s"))


def test_filters_and_deletion_preconditions(tmp_path):
    store = ClusterDirectory(tmp_path)
    mine = store.create_resource_slice(slice_object("n"))
    store.create_resource_slice(slice_object("m"))
    store.create_resource_slice(slice_object("n", driver="other.example.com"))
    assert store.list_resource_slices("gpu.example.com", "n") == [mine]
    assert len(store.list_resource_slices("gpu.example.com", None)) == 2
    assert not store.delete_resource_slice(mine["metadata"]["name"], uid="someone-else")
    assert store.delete_resource_slice(mine["metadata"]["name"], uid=mine["metadata"]["uid"])
    assert not store.delete_resource_slice(mine["metadata"]["name"])
    assert store.delete_node_resource_slices("m") == 1


def test_unreadable_manifests_are_skipped(tmp_path):
    store = ClusterDirectory(tmp_path)
    (tmp_path / "resourceslices").mkdir()
    (tmp_path / "resourceslices" / "bad.yaml").write_text("spec: [unclosed")
    (tmp_path / "resourceslices" / ".partial.yaml.tmp").write_text("half")
    assert store.list_objects("ResourceSlice") == []


def test_open_store_needs_exactly_one_source(tmp_path):
    with pytest.raises(StoreError, match="exactly one"):
        open_store()
    with pytest.raises(StoreError, match="exactly one"):
        open_store(tmp_path, tmp_path / "kubeconfig")
    assert isinstance(open_store(tmp_path), ClusterDirectory)


@pytest.fixture
def kube() -> tuple[KubernetesStore, mock.MagicMock, mock.MagicMock]:
    with (
        mock.patch("kubedra.driver.store_kube.client.CustomObjectsApi") as custom_cls,
        mock.patch("kubedra.driver.store_kube.client.CoreV1Api") as core_cls,
    ):
        api_client = mock.MagicMock()
        api_client.sanitize_for_serialization.side_effect = lambda pod: {"name": pod}
        store = KubernetesStore(api_client)
        return store, custom_cls.return_value, core_cls.return_value


def test_kube_lists_slices_with_field_selectors(kube):
    store, custom, _ = kube
    custom.list_cluster_custom_object.return_value = {"items": [{"metadata": {"name": "s"}}]}
    assert store.list_resource_slices("gpu.example.com", "n") == [{"metadata": {"name": "s"}}]
    custom.list_cluster_custom_object.assert_called_with(
        "resource.k8s.io",
        "v1",
        "resourceslices",
        field_selector="spec.driver=gpu.example.com,spec.nodeName=n",
    )


def test_kube_create_update_delete(kube):
    store, custom, _ = kube
    custom.create_cluster_custom_object.return_value = {"metadata": {"name": "s-1"}}
    assert store.create_resource_slice({"metadata": {"generateName": "s-"}, "spec": {}}) == {
        "metadata": {"name": "s-1"}
    }
    body = custom.create_cluster_custom_object.call_args.args[3]
    assert body["apiVersion"] == "resource.k8s.io/v1" and body["kind"] == "ResourceSlice"
    store.update_resource_slice({"metadata": {"name": "s-1"}, "spec": {}})
    assert custom.replace_cluster_custom_object.call_args.args[3] == "s-1"
    assert store.delete_resource_slice("s-1", uid="u")
    options = custom.delete_cluster_custom_object.call_args.kwargs["body"]
    assert options.preconditions.uid == "u"
    custom.delete_cluster_custom_object.side_effect = ApiException(status=404)
    assert not store.delete_resource_slice("s-1")
    custom.delete_cluster_custom_object.side_effect = ApiException(status=403, reason="Forbidden")
    with pytest.raises(StoreError, match="403 Forbidden"):
        store.delete_resource_slice("s-1")


def test_kube_claims_nodes_and_pods(kube):
    store, custom, core = kube
    custom.get_namespaced_custom_object.return_value = {"metadata": {"uid": "c"}}
    assert store.get_resource_claim("ns", "c") == {"metadata": {"uid": "c"}}
    custom.get_namespaced_custom_object.assert_called_with(
        "resource.k8s.io", "v1", "ns", "resourceclaims", "c"
    )
    custom.get_namespaced_custom_object.side_effect = ApiException(status=404)
    assert store.get_resource_claim("ns", "gone") is None
    core.read_node.return_value = mock.Mock(metadata=mock.Mock(uid="node-uid"))
    assert store.get_node_uid("n") == "node-uid"
    assert store.register_node("n") == "node-uid"
    core.read_node.side_effect = ApiException(status=404)
    assert store.get_node_uid("n") is None
    core.list_pod_for_all_namespaces.return_value = mock.Mock(items=["p1"])
    assert store.list_pods("n") == [{"name": "p1"}]
    core.list_pod_for_all_namespaces.assert_called_with(field_selector="spec.nodeName=n")


def test_kube_wait_for_node_watches_the_node(kube):
    store, _, core = kube
    core.read_node.side_effect = ApiException(status=404)
    with mock.patch("kubedra.driver.store_kube.watch.Watch") as watch_cls:
        watch_cls.return_value.stream.return_value = iter([{"type": "ADDED", "object": None}])
        assert store.wait_for_node("n", 2.0)
        stream = watch_cls.return_value.stream
        assert stream.call_args.args == (core.list_node,)
        expected = {"field_selector": "metadata.name=n", "timeout_seconds": 2}
        assert stream.call_args.kwargs == expected
        watch_cls.return_value.stream.return_value = iter([])
        assert not store.wait_for_node("n", 0.5)


def test_dir_wait_for_node_returns_when_the_node_appears(tmp_path):
    store = ClusterDirectory(tmp_path)
    assert not store.wait_for_node("node-1", 0.1)
    threading.Timer(0.2, store.register_node, args=("node-1",)).start()
    started = time.monotonic()
    assert store.wait_for_node("node-1", 5)
    assert time.monotonic() - started < 2
