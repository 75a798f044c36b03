"""What the driver kit needs from a cluster: ResourceSlices, ResourceClaims, Pods and Nodes.

Two implementations: :mod:`kubedra.driver.store_dir` (a local cluster directory of manifests)
and :mod:`kubedra.driver.store_kube` (the Kubernetes API). Objects are plain wire dicts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol


class StoreError(Exception):
    """A store operation failed (conflict, permission, transport...)."""


class ClusterStore(Protocol):
    def list_resource_slices(self, driver: str, node_name: str | None) -> list[dict[str, Any]]:
        """Slices of ``driver``; only those of ``node_name`` when it is given."""
        ...

    def create_resource_slice(self, obj: dict[str, Any]) -> dict[str, Any]:
        """Create from ``metadata.generateName``; returns the stored object."""
        ...

    def update_resource_slice(self, obj: dict[str, Any]) -> dict[str, Any]: ...

    def delete_resource_slice(self, name: str, uid: str | None = None) -> bool:
        """False when the slice (with that UID) no longer exists."""
        ...

    def delete_node_resource_slices(self, node_name: str, driver: str | None = None) -> int:
        """What a starting kubelet does: delete the node's slices (of one driver or all)."""
        ...

    def get_node_uid(self, name: str) -> str | None: ...

    def wait_for_node(self, name: str, timeout: float) -> bool:
        """Return True as soon as the Node exists, False after ``timeout`` seconds without it
        (a watch, so that a publisher waiting for its owner publishes the moment it appears)."""
        ...

    def register_node(self, name: str) -> str:
        """The UID of the Node, creating it where the store plays the kubelet's part."""
        ...

    def get_resource_claim(self, namespace: str, name: str) -> dict[str, Any] | None: ...

    def list_pods(self, node_name: str) -> list[dict[str, Any]]: ...


class DetachedStore:
    """No cluster at all: the plugin still serves the kubelet, but publishes nothing and
    answers every claim with an error that says why (useful to probe the sockets alone)."""

    REASON = "no cluster configured (use --cluster-dir, --kubeconfig or --in-cluster)"

    def _fail(self) -> StoreError:
        return StoreError(self.REASON)

    def list_resource_slices(self, driver: str, node_name: str | None) -> list[dict[str, Any]]:
        raise self._fail()

    def create_resource_slice(self, obj: dict[str, Any]) -> dict[str, Any]:
        raise self._fail()

    def update_resource_slice(self, obj: dict[str, Any]) -> dict[str, Any]:
        raise self._fail()

    def delete_resource_slice(self, name: str, uid: str | None = None) -> bool:
        raise self._fail()

    def delete_node_resource_slices(self, node_name: str, driver: str | None = None) -> int:
        raise self._fail()

    def get_node_uid(self, name: str) -> str | None:
        raise self._fail()

    def wait_for_node(self, name: str, timeout: float) -> bool:
        raise self._fail()

    def register_node(self, name: str) -> str:
        raise self._fail()

    def get_resource_claim(self, namespace: str, name: str) -> dict[str, Any] | None:
        raise self._fail()

    def list_pods(self, node_name: str) -> list[dict[str, Any]]:
        raise self._fail()


def open_store(
    cluster_dir: Path | None = None,
    kubeconfig: Path | None = None,
    in_cluster: bool = False,
    *,
    allow_detached: bool = False,
) -> ClusterStore:
    """The store that the command-line options select (at most one of them; with
    ``allow_detached``, none gives a :class:`DetachedStore`)."""
    chosen = sum([cluster_dir is not None, kubeconfig is not None, in_cluster])
    if chosen == 0 and allow_detached:
        return DetachedStore()
    if chosen != 1:
        raise StoreError("choose exactly one of --cluster-dir, --kubeconfig and --in-cluster")
    if cluster_dir is not None:
        from kubedra.driver.store_dir import ClusterDirectory

        directory = ClusterDirectory(cluster_dir)
        directory.remove_stale_temp_files()
        return directory
    from kubedra.driver.store_kube import KubernetesStore

    return KubernetesStore.from_config(kubeconfig, in_cluster=in_cluster)
