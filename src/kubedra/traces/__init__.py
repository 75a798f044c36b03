"""Traces for ``kubedra replay``: imported from production data or generated from distributions.

A trace directory holds ``cluster.yaml`` (Nodes, ResourceSlices, the DeviceClass, one
ResourceClaimTemplate per request shape) and ``trace.yaml`` (one entry per arrival: ``at``,
``duration`` and the Pod, which names its template), in the format ``kubedra replay`` reads.
This package only builds manifests and writes files: it sits on kubedra.api alone.
"""

from kubedra.traces.alibaba import AlibabaOptions, PendingTasks, import_alibaba
from kubedra.traces.errors import TraceInputError
from kubedra.traces.synthetic import SyntheticOptions, generate, parse_mix
from kubedra.traces.trace_dir import CLUSTER_FILE, TRACE_FILE, Trace, write_trace

__all__ = [
    "CLUSTER_FILE",
    "TRACE_FILE",
    "AlibabaOptions",
    "PendingTasks",
    "SyntheticOptions",
    "Trace",
    "TraceInputError",
    "generate",
    "import_alibaba",
    "parse_mix",
    "write_trace",
]
