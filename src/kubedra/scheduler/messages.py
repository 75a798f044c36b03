"""The PodScheduled message of a pod that cannot be placed: upstream's ``FitError.Error()``.

``0/N nodes are available: <reasons>. <post-filter messages>``: every reason of every node
is counted ("2 Insufficient cpu", "1 node(s) had untolerated taint(s)"), the "count reason"
strings are sorted as strings (so "10 x" sorts before "2 y", as in Go), and the PostFilter
plugins' messages follow (DynamicResources, then DefaultPreemption's ``preemption: ...``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kubedra.scheduler.status import Status

NO_NODES = "no nodes available to schedule pods"
PREEMPTION_NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"


def histogram(statuses: Iterable[Status], extra: Mapping[str, int] | None = None) -> str:
    counts: dict[str, int] = dict(extra or {})
    for status in statuses:
        for reason in status.reasons:
            counts[reason] = counts.get(reason, 0) + 1
    return ", ".join(sorted(f"{count} {reason}" for reason, count in counts.items()))


def fit_error(
    num_all_nodes: int,
    statuses: Mapping[str, Status],
    pre_filter_message: str = "",
    post_filter_message: str = "",
    absent: int = 0,
    absent_reason: str = "",
) -> str:
    """FitError.Error(): ``absent`` nodes without an explicit status count as ``absent_reason``."""
    message = f"0/{num_all_nodes} nodes are available:"
    if pre_filter_message:
        message += f" {pre_filter_message}."
    else:
        extra = {absent_reason: absent} if absent and absent_reason else None
        reasons = histogram(statuses.values(), extra)
        if reasons:
            message += f" {reasons}."
    if post_filter_message:
        message += f" {post_filter_message}"
        if not post_filter_message.endswith("."):
            message += "."
    return message
