"""The :class:`ClusterStore` on a live cluster, through the official ``kubernetes`` client.

ResourceSlices and ResourceClaims go through the dynamic custom-objects API, which speaks the
same JSON wire dicts as the rest of kubedra; Nodes and Pods through CoreV1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kubernetes import client, config, watch
from kubernetes.client.exceptions import ApiException

from kubedra.driver.store import StoreError

GROUP = "resource.k8s.io"
VERSION = "v1"


def _not_found(error: ApiException) -> bool:
    return getattr(error, "status", None) == 404


def _store_error(action: str, error: ApiException) -> StoreError:
    return StoreError(f"{action}: {getattr(error, 'status', '?')} {getattr(error, 'reason', '')}")


class KubernetesStore:
    def __init__(self, api_client: Any) -> None:
        self.api_client = api_client
        self.custom = client.CustomObjectsApi(api_client)
        self.core = client.CoreV1Api(api_client)

    @classmethod
    def from_config(cls, kubeconfig: Path | None, *, in_cluster: bool = False) -> KubernetesStore:
        if in_cluster:
            config.load_incluster_config()
            return cls(client.ApiClient())
        return cls(config.new_client_from_config(config_file=str(kubeconfig)))

    def list_resource_slices(self, driver: str, node_name: str | None) -> list[dict[str, Any]]:
        selector = f"spec.driver={driver}"
        if node_name is not None:
            selector += f",spec.nodeName={node_name}"
        try:
            result: Any = self.custom.list_cluster_custom_object(
                GROUP, VERSION, "resourceslices", field_selector=selector
            )
        except ApiException as error:
            raise _store_error("list ResourceSlices", error) from error
        return list(result.get("items") or [])

    def create_resource_slice(self, obj: dict[str, Any]) -> dict[str, Any]:
        body = {"apiVersion": f"{GROUP}/{VERSION}", "kind": "ResourceSlice", **obj}
        try:
            created: Any = self.custom.create_cluster_custom_object(
                GROUP, VERSION, "resourceslices", body
            )
        except ApiException as error:
            raise _store_error("create ResourceSlice", error) from error
        return dict(created)

    def update_resource_slice(self, obj: dict[str, Any]) -> dict[str, Any]:
        body = {"apiVersion": f"{GROUP}/{VERSION}", "kind": "ResourceSlice", **obj}
        name = body["metadata"]["name"]
        try:
            updated: Any = self.custom.replace_cluster_custom_object(
                GROUP, VERSION, "resourceslices", name, body
            )
        except ApiException as error:
            raise _store_error(f"update ResourceSlice {name}", error) from error
        return dict(updated)

    def delete_resource_slice(self, name: str, uid: str | None = None) -> bool:
        options = client.V1DeleteOptions(
            preconditions=client.V1Preconditions(uid=uid) if uid else None
        )
        try:
            self.custom.delete_cluster_custom_object(
                GROUP, VERSION, "resourceslices", name, body=options
            )
        except ApiException as error:
            # 404: already gone; 409: the UID precondition failed, i.e. a different slice now.
            if _not_found(error) or getattr(error, "status", None) == 409:
                return False
            raise _store_error(f"delete ResourceSlice {name}", error) from error
        return True

    def delete_node_resource_slices(self, node_name: str, driver: str | None = None) -> int:
        selector = f"spec.nodeName={node_name}" + (f",spec.driver={driver}" if driver else "")
        try:
            result: Any = self.custom.list_cluster_custom_object(
                GROUP, VERSION, "resourceslices", field_selector=selector
            )
        except ApiException as error:
            raise _store_error("list ResourceSlices", error) from error
        return sum(
            self.delete_resource_slice(item["metadata"]["name"])
            for item in result.get("items") or []
        )

    def get_node_uid(self, name: str) -> str | None:
        try:
            node: Any = self.core.read_node(name)
        except ApiException as error:
            if _not_found(error):
                return None
            raise _store_error(f"read Node {name}", error) from error
        return str(node.metadata.uid)

    def wait_for_node(self, name: str, timeout: float) -> bool:
        if self.get_node_uid(name):
            return True
        watcher = watch.Watch()
        try:
            for event in watcher.stream(
                self.core.list_node,
                field_selector=f"metadata.name={name}",
                timeout_seconds=max(1, int(timeout)),
            ):
                if event.get("type") in ("ADDED", "MODIFIED"):
                    return True
        except ApiException as error:
            raise _store_error(f"watch Node {name}", error) from error
        finally:
            watcher.stop()
        return False

    def register_node(self, name: str) -> str:
        """A live cluster's Nodes are registered by real kubelets; this only looks it up."""
        uid = self.get_node_uid(name)
        if uid is None:
            raise StoreError(f'nodes "{name}" not found')
        return uid

    def get_resource_claim(self, namespace: str, name: str) -> dict[str, Any] | None:
        try:
            claim: Any = self.custom.get_namespaced_custom_object(
                GROUP, VERSION, namespace, "resourceclaims", name
            )
        except ApiException as error:
            if _not_found(error):
                return None
            raise _store_error(f"get ResourceClaim {namespace}/{name}", error) from error
        return dict(claim)

    def list_pods(self, node_name: str) -> list[dict[str, Any]]:
        try:
            pods: Any = self.core.list_pod_for_all_namespaces(
                field_selector=f"spec.nodeName={node_name}"
            )
        except ApiException as error:
            raise _store_error("list Pods", error) from error
        return [self.api_client.sanitize_for_serialization(pod) for pod in pods.items]
