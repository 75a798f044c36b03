"""Pod requests and node allocatable as the kube-scheduler counts them.

CPU is counted in millicores, every other resource in whole units (bytes for memory and
ephemeral-storage), as upstream's ``framework.Resource`` does. Requests follow
``resourcehelper.PodRequests``: containers add up, init containers count with their maximum
(restartable "sidecar" init containers add to everything after them), pod-level resources
replace the container sum for cpu and memory, and the pod overhead is added on top.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubedra.api.quantity import Quantity

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL = "ephemeral-storage"
PODS = "pods"

DEFAULT_MILLI_CPU_REQUEST = 100
"""schedutil.DefaultMilliCPURequest: a container without a cpu request, for scoring."""
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024
"""schedutil.DefaultMemoryRequest (200 MiB)."""

DEVICE_CLASS_PREFIX = "deviceclass.resource.kubernetes.io/"
"""The implicit extended resource name of every DeviceClass: this prefix plus the class name."""

Resources = dict[str, int]


class QuantityCache:
    """Parsed quantity strings, per scheduler (the same few strings repeat in every pod)."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str], int] = {}

    def amount(self, name: str, raw: Any) -> int:
        key = (name, str(raw))
        value = self._cache.get(key)
        if value is None:
            try:
                q = Quantity.parse(str(raw))
            except ValueError:
                value = 0
            else:
                value = q.milli_value() if name == CPU else q.value()
            self._cache[key] = value
        return value

    def resource_list(self, raw: Mapping[str, Any] | None) -> Resources:
        if not raw:
            return {}
        return {name: self.amount(name, value) for name, value in raw.items()}


def _add(total: Resources, more: Mapping[str, int]) -> None:
    for name, value in more.items():
        total[name] = total.get(name, 0) + value


def _max(total: Resources, other: Mapping[str, int]) -> None:
    for name, value in other.items():
        if value > total.get(name, 0):
            total[name] = value


def pod_requests(pod: Mapping[str, Any], q: QuantityCache, non_zero: bool = False) -> Resources:
    """The pod's effective requests; ``non_zero`` counts missing cpu/memory with the defaults
    (per container), as the LeastAllocated score does."""
    spec = pod.get("spec") or {}

    def container_requests(c: Mapping[str, Any]) -> Resources:
        req = q.resource_list((c.get("resources") or {}).get("requests"))
        if non_zero:
            req.setdefault(CPU, DEFAULT_MILLI_CPU_REQUEST)
            req.setdefault(MEMORY, DEFAULT_MEMORY_REQUEST)
        return req

    total: Resources = {}
    for c in spec.get("containers") or []:
        _add(total, container_requests(c))
    sidecars: Resources = {}
    init_max: Resources = {}
    for c in spec.get("initContainers") or []:
        req = container_requests(c)
        if c.get("restartPolicy") == "Always":
            _add(sidecars, req)
            effective = dict(sidecars)
        else:
            effective = dict(sidecars)
            _add(effective, req)
        _max(init_max, effective)
    _add(total, sidecars)
    _max(total, init_max)
    pod_level = q.resource_list((spec.get("resources") or {}).get("requests"))
    for name in (CPU, MEMORY):
        if name in pod_level:
            total[name] = pod_level[name]
    _add(total, q.resource_list(spec.get("overhead")))
    return total


def is_extended_resource(name: str) -> bool:
    """v1helper.IsExtendedResourceName: a domain-qualified name without ``kubernetes.io/``
    that is not a quota (``requests.``) name; DRA's implicit
    ``deviceclass.resource.kubernetes.io/<class>`` names count as extended too."""
    if name.startswith(DEVICE_CLASS_PREFIX):
        return True
    return "/" in name and "kubernetes.io/" not in name and not name.startswith("requests.")


def is_scalar(name: str) -> bool:
    """schedutil.IsScalarResourceName: extended, hugepages-* or attachable-volumes-*."""
    return (
        is_extended_resource(name)
        or name.startswith("hugepages-")
        or name.startswith("attachable-volumes-")
    )
