"""Reading a live cluster, read-only, through the official ``kubernetes`` client."""

from kubedra.live.connect import LiveError, cluster_configured, connect, default_kubeconfig
from kubedra.live.reader import KINDS, ClusterReader, LiveKind, Snapshot, read_cluster

__all__ = [
    "KINDS",
    "ClusterReader",
    "LiveError",
    "LiveKind",
    "Snapshot",
    "cluster_configured",
    "connect",
    "default_kubeconfig",
    "read_cluster",
]
