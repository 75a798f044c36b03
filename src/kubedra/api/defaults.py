"""Apiserver defaulting for v1 objects, applied to wire dicts.

``resource.k8s.io/v1`` (pkg/apis/resource/v1 defaults and the generated defaulters):
requests and subrequests get ``allocationMode: ExactCount`` and, in that mode, ``count: 1``;
tolerations in requests, subrequests and allocation results get ``operator: Equal``; device
taints without ``timeAdded`` get the current time (whole seconds), as do DeviceTaintRule taints.

``core/v1`` and ``scheduling.k8s.io/v1``, as far as scheduling depends on them: a Pod gets
``schedulerName: default-scheduler``, ``restartPolicy: Always``, ``dnsPolicy: ClusterFirst``,
``terminationGracePeriodSeconds: 30`` and ``enableServiceLinks: true``, and a container's
requests default to its limits; a Node's ``allocatable`` defaults to its ``capacity``; a
Namespace gets the ``kubernetes.io/metadata.name`` label; a PriorityClass gets
``preemptionPolicy: PreemptLowerPriority``.

``scheduling.k8s.io/v1beta1`` (1.37): a PodGroup's ``disruptionMode`` defaults to
``{single: {}}`` (``+default`` in k8s.io/api ``scheduling/v1beta1/types.go``). 1.36's
``v1alpha2`` default (``Pod``) belongs to a field the off-by-default WorkloadAwarePreemption gate
drops, so it is not applied.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

EXACT_COUNT = "ExactCount"
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"


def apply_defaults(obj: dict[str, Any], *, now: datetime | None = None) -> dict[str, Any]:
    """Return a defaulted copy of the v1 wire dict ``obj`` (``obj`` itself is not changed).

    ``now`` is the time written into taints without ``timeAdded``; the current time if omitted.
    """
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    defaulter = None
    if isinstance(api_version, str) and isinstance(kind, str):
        defaulter = _DEFAULTERS.get((api_version, kind))
    if defaulter is None:
        return dict(obj)
    return defaulter(obj, now)


def _timestamp(now: datetime | None) -> str:
    """``now`` (default: the current time) as a taint's ``timeAdded``: computed only where a
    taint needs one, since formatting it for every object cost more than the defaulting."""
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    return moment.replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def _copy(value: Any) -> Any:
    """A deep copy of a wire dict (dicts, lists and immutable scalars).

    copy.deepcopy's memo and per-type dispatch made it the larger part of creating a pod or a
    claim; wire objects are trees of JSON values, which this copies in a fraction of the time.
    """
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


def _dicts(value: Any) -> list[dict[str, Any]]:
    """The dict items of ``value`` when it is a list (other shapes are left to validation)."""
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, dict)]


def _child(parent: dict[str, Any], key: str) -> dict[str, Any] | None:
    value = parent.get(key)
    return value if isinstance(value, dict) else None


# --- resource.k8s.io/v1 -------------------------------------------------------------------


def _default_tolerations(holder: dict[str, Any]) -> None:
    for toleration in _dicts(holder.get("tolerations")):
        if not toleration.get("operator"):
            toleration["operator"] = "Equal"


def _default_exact(request: dict[str, Any]) -> None:
    """ExactDeviceRequest and DeviceSubRequest share these defaults."""
    if not request.get("allocationMode"):
        request["allocationMode"] = EXACT_COUNT
    if request["allocationMode"] == EXACT_COUNT and not request.get("count"):
        request["count"] = 1
    _default_tolerations(request)


def _claim_spec_defaulted(spec: Any) -> Any:
    """``spec`` (a ResourceClaimSpec) with its requests defaulted: the dicts on the way to a
    request are copied, the rest is shared with ``spec`` (stored objects are read-only)."""
    devices = spec.get("devices") if isinstance(spec, dict) else None
    requests = devices.get("requests") if isinstance(devices, dict) else None
    if not isinstance(devices, dict) or not isinstance(requests, list):
        return spec
    new_requests: list[Any] = []
    for request in requests:
        if isinstance(request, dict):
            request = dict(request)
            exactly = _child(request, "exactly")
            if exactly is not None:
                request["exactly"] = exactly = _exact_copy(exactly)
                _default_exact(exactly)
            subrequests = request.get("firstAvailable")
            if isinstance(subrequests, list):
                request["firstAvailable"] = subrequests = [
                    _exact_copy(sub) if isinstance(sub, dict) else sub for sub in subrequests
                ]
                for subrequest in _dicts(subrequests):
                    _default_exact(subrequest)
        new_requests.append(request)
    return {**spec, "devices": {**devices, "requests": new_requests}}


def _exact_copy(request: dict[str, Any]) -> dict[str, Any]:
    """A request to default: the dict and its tolerations (which get ``operator``) copied."""
    out = dict(request)
    tolerations = out.get("tolerations")
    if isinstance(tolerations, list):
        out["tolerations"] = [dict(t) if isinstance(t, dict) else t for t in tolerations]
    return out


def _resource_claim(obj: dict[str, Any], _now: datetime | None) -> dict[str, Any]:
    out = dict(obj)
    if "spec" in out:
        out["spec"] = _claim_spec_defaulted(out["spec"])
    status = _child(out, "status")
    allocation = _child(status, "allocation") if status is not None else None
    devices = _child(allocation, "devices") if allocation is not None else None
    if status is not None and allocation is not None and devices is not None:
        results = devices.get("results")
        if isinstance(results, list):
            new_results = [_exact_copy(r) if isinstance(r, dict) else r for r in results]
            for result in _dicts(new_results):
                _default_tolerations(result)
            devices = {**devices, "results": new_results}
            out["status"] = {**status, "allocation": {**allocation, "devices": devices}}
    return out


def _resource_claim_template(obj: dict[str, Any], _now: datetime | None) -> dict[str, Any]:
    out = dict(obj)
    template = _child(out, "spec")
    if template is not None and "spec" in template:
        out["spec"] = {**template, "spec": _claim_spec_defaulted(template["spec"])}
    return out


def _resource_slice(obj: dict[str, Any], now: datetime | None) -> dict[str, Any]:
    """Copies only the devices whose taints change: slices can be large and many."""
    spec = _child(obj, "spec")
    devices = spec.get("devices") if spec is not None else None
    if spec is None or not isinstance(devices, list):
        return dict(obj)
    if not any(isinstance(device, dict) and device.get("taints") for device in devices):
        return dict(obj)
    stamp = _timestamp(now)
    new_devices = [_device_with_taint_times(device, stamp) for device in devices]
    if all(new is old for new, old in zip(new_devices, devices, strict=True)):
        return dict(obj)
    return obj | {"spec": spec | {"devices": new_devices}}


def _device_with_taint_times(device: Any, now: str) -> Any:
    if not isinstance(device, dict):
        return device
    taints = device.get("taints")
    if not any(not taint.get("timeAdded") for taint in _dicts(taints)):
        return device
    assert isinstance(taints, list)
    stamped = [
        taint | {"timeAdded": now}
        if isinstance(taint, dict) and not taint.get("timeAdded")
        else taint
        for taint in taints
    ]
    return device | {"taints": stamped}


def _device_taint_rule(obj: dict[str, Any], now: datetime | None) -> dict[str, Any]:
    out = _copy(obj)
    spec = _child(out, "spec")
    taint = _child(spec, "taint") if spec is not None else None
    if taint is not None and not taint.get("timeAdded"):
        taint["timeAdded"] = _timestamp(now)
    return out


def _pool_status_request(obj: dict[str, Any], now: datetime | None) -> dict[str, Any]:
    """``spec.limit`` defaults to 100 (``+default=100``, v1alpha3)."""
    out = _copy(obj)
    spec = _child(out, "spec")
    if spec is not None and spec.get("limit") is None:
        spec["limit"] = 100
    return out


# --- core/v1 and scheduling.k8s.io/v1 ------------------------------------------------------


_POD_SPEC_DEFAULTS: dict[str, Any] = {
    "restartPolicy": "Always",
    "dnsPolicy": "ClusterFirst",
    "terminationGracePeriodSeconds": 30,
    "schedulerName": "default-scheduler",
    "enableServiceLinks": True,
}


def _with_requests_from_limits(container: Any) -> Any:
    """Requests not given default to the limits (SetDefaults_Pod): the container with its
    resources and requests copied when a limit is set, else the container itself."""
    if not isinstance(container, dict):
        return container
    resources = _child(container, "resources")
    limits = _child(resources, "limits") if resources is not None else None
    if resources is None or not limits:
        return container
    requests = _child(resources, "requests")
    requests = {} if requests is None else dict(requests)
    for name, quantity in limits.items():
        requests.setdefault(name, quantity)
    return {**container, "resources": {**resources, "requests": requests}}


def _pod(obj: dict[str, Any], _now: datetime | None) -> dict[str, Any]:
    """Copies the spec and the containers with limits; the rest is shared with ``obj``
    (stored objects are read-only, and a deep copy was most of the cost of creating a pod)."""
    out = dict(obj)
    spec = _child(out, "spec")
    if spec is None:
        return out
    spec = out["spec"] = dict(spec)
    for key, value in _POD_SPEC_DEFAULTS.items():
        if spec.get(key) in (None, ""):
            spec[key] = value
    for key in ("containers", "initContainers"):
        containers = spec.get(key)
        if isinstance(containers, list):
            spec[key] = [_with_requests_from_limits(c) for c in containers]
    return out


def _node(obj: dict[str, Any], _now: datetime | None) -> dict[str, Any]:
    out = _copy(obj)
    status = _child(out, "status")
    if status is not None and status.get("allocatable") is None:
        capacity = _child(status, "capacity")
        if capacity is not None:
            status["allocatable"] = dict(capacity)
    return out


def _namespace(obj: dict[str, Any], _now: datetime | None) -> dict[str, Any]:
    out = _copy(obj)
    metadata = _child(out, "metadata")
    name = metadata.get("name") if metadata is not None else None
    if metadata is not None and isinstance(name, str) and name:
        labels = _child(metadata, "labels")
        if labels is None:
            labels = metadata["labels"] = {}
        labels[NAMESPACE_NAME_LABEL] = name
    return out


def _priority_class(obj: dict[str, Any], _now: datetime | None) -> dict[str, Any]:
    out = dict(obj)
    if not out.get("preemptionPolicy"):
        out["preemptionPolicy"] = "PreemptLowerPriority"
    return out


def _pod_group(obj: dict[str, Any], _now: datetime | None) -> dict[str, Any]:
    out = _copy(obj)
    spec = _child(out, "spec")
    if spec is not None and spec.get("disruptionMode") is None:
        spec["disruptionMode"] = {"single": {}}
    return out


_DEFAULTERS: dict[tuple[str, str], Callable[[dict[str, Any], datetime | None], dict[str, Any]]] = {
    ("resource.k8s.io/v1", "ResourceClaim"): _resource_claim,
    ("resource.k8s.io/v1", "ResourceClaimTemplate"): _resource_claim_template,
    ("resource.k8s.io/v1", "ResourceSlice"): _resource_slice,
    ("resource.k8s.io/v1", "DeviceTaintRule"): _device_taint_rule,
    ("resource.k8s.io/v1alpha3", "ResourcePoolStatusRequest"): _pool_status_request,
    ("v1", "Pod"): _pod,
    ("v1", "Node"): _node,
    ("v1", "Namespace"): _namespace,
    ("scheduling.k8s.io/v1", "PriorityClass"): _priority_class,
    ("scheduling.k8s.io/v1beta1", "PodGroup"): _pod_group,
}
