"""Bounds on what one input may ask for, shared by every command that reads it.

Kubernetes bounds these through its types (a ``time.Duration`` is int64 nanoseconds) or
leaves them to the cluster's size; a simulation must refuse them up front, with the number
and the flag that raises a bound, instead of trying to make two billion pods.
"""

from __future__ import annotations

MAX_DURATION_NANOS = 2**63 - 1
"""Go's ``time.Duration`` (int64 nanoseconds, about 292 years): the longest span of time
that step files, timelines and traces may let pass, one step and all steps together."""

MAX_DURATION_SECONDS = MAX_DURATION_NANOS / 1e9

MAX_DURATION_TEXT = "2562047h47m16.854775807s"
"""``time.Duration(math.MaxInt64).String()``."""

DEFAULT_MAX_PODS = 100_000
"""How many pods one command makes of workloads unless raised (``--max-pods``): enough for
a large cluster, far below the two billion a ReplicationController may ask for."""

DEFAULT_MAX_NODES = 100
"""How many nodes one planning step may add unless raised (``--max-nodes``): ``plan nodes``
adds at most this many, and an ``add-nodes`` step may ask for at most this many."""
