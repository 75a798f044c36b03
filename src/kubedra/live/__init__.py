"""Reading a live cluster, read-only, through the official ``kubernetes`` client."""

from kubedra.live.connect import LiveError, connect
from kubedra.live.reader import KINDS, ClusterReader, LiveKind, Snapshot, read_cluster

__all__ = [
    "KINDS",
    "ClusterReader",
    "LiveError",
    "LiveKind",
    "Snapshot",
    "connect",
    "read_cluster",
]
