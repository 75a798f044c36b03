"""Which DRA features the input objects rely on, and what the chosen release says about them.

Detection looks at the fields each gate guards upstream (the apiserver drops a disabled
feature's fields on create, and the scheduler ignores them): ``adminAccess`` needs
DRAAdminAccess, ``firstAvailable`` DRAPrioritizedList, counters DRAPartitionableDevices, and so
on. Objects are v1 wire dicts (older resource.k8s.io versions already converted).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from kubedra.features.flag import FeatureGates
from kubedra.features.gates import BASELINE, GATES, Stage, spec_at

MAX_NAMED_SUBJECTS = 3

_SUBJECTS = {
    "ResourceClaim": "claim",
    "ResourceClaimTemplate": "claim template",
    "ResourceSlice": "slice",
    "DeviceClass": "device class",
    "DeviceTaintRule": "device taint rule",
    "ResourcePoolStatusRequest": "pool status request",
    "Pod": "pod",
}


@dataclass(frozen=True)
class FeatureUse:
    """One object relying on one gate; ``subject`` names it as messages do (``claim ml/train``)."""

    gate: str
    subject: str


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def subject_of(obj: dict[str, Any]) -> str:
    """``claim ml/train``, ``slice node-1-gpu``, ``deployment default/web``."""
    kind = str(obj.get("kind", "object"))
    metadata = _dict(obj.get("metadata"))
    name = str(metadata.get("name") or metadata.get("generateName") or "")
    namespace = metadata.get("namespace")
    full = f"{namespace}/{name}" if namespace else name
    return f"{_SUBJECTS.get(kind, kind.lower())} {full}"


def _claim_spec_gates(spec: dict[str, Any]) -> Iterator[str]:
    devices = _dict(spec.get("devices"))
    for request in _dicts(devices.get("requests")):
        exactly = _dict(request.get("exactly"))
        subrequests = _dicts(request.get("firstAvailable"))
        if subrequests:
            yield "DRAPrioritizedList"
        if exactly.get("adminAccess") is True:
            yield "DRAAdminAccess"
        for one in [exactly, *subrequests]:
            if one.get("tolerations"):
                yield "DRADeviceTaints"
            if _dict(one.get("capacity")).get("requests"):
                yield "DRAConsumableCapacity"
            if one.get("derivedAttributes"):
                yield "DRADerivedAttributes"
    for constraint in _dicts(devices.get("constraints")):
        if constraint.get("distinctAttribute"):
            yield "DRAConsumableCapacity"


def _slice_gates(spec: dict[str, Any]) -> Iterator[str]:
    if spec.get("sharedCounters") or spec.get("perDeviceNodeSelection"):
        yield "DRAPartitionableDevices"
    if spec.get("partitionTypeAttribute"):
        yield "DRAPartitionableDevicesType"
    if spec.get("skipNodeOperations"):
        yield "DRAOptionalNodeOperations"
    for device in _dicts(spec.get("devices")):
        if device.get("consumesCounters"):
            yield "DRAPartitionableDevices"
            if any(_dict(use).get("compatibilityGroups") for use in device["consumesCounters"]):
                yield "DRADeviceCompatibilityGroups"
        if any(key in device for key in ("nodeName", "nodeSelector", "allNodes")):
            yield "DRAPartitionableDevices"
        if device.get("taints"):
            yield "DRADeviceTaints"
        if device.get("bindingConditions") or device.get("bindingFailureConditions"):
            yield "DRADeviceBindingConditions"
        if device.get("bindsToNode"):
            yield "DRADeviceBindingConditions"
        if device.get("allowMultipleAllocations") or any(
            _dict(capacity).get("requestPolicy")
            for capacity in _dict(device.get("capacity")).values()
        ):
            yield "DRAConsumableCapacity"
        if device.get("nodeAllocatableResources"):
            yield "DRANodeAllocatableResources"
        for attribute in _dict(device.get("attributes")).values():
            if any(key in _dict(attribute) for key in ("bools", "ints", "strings", "versions")):
                yield "DRAListTypeAttributes"


API_GATES = frozenset({"DRAResourcePoolStatus"})
"""Gates that enable a whole API kind rather than fields of one."""


IMPLICIT_EXTENDED_PREFIX = "deviceclass.resource.kubernetes.io/"
"""Every DeviceClass is also an extended resource of this name plus the class name."""


def gates_used(obj: dict[str, Any], extended_names: frozenset[str] = frozenset()) -> list[str]:
    """The DRA gates one object relies on, in first-use order, each once.

    Workloads (Deployment, Job, ...) are looked at through their pod template. A pod asking
    for an extended resource that a DeviceClass provides (``extended_names``, or the implicit
    ``deviceclass.resource.kubernetes.io/<class>``) relies on DRAExtendedResource.
    """
    kind = obj.get("kind")
    spec = _dict(obj.get("spec"))
    found: Iterable[str] = ()
    if kind == "ResourceClaim":
        found = _claim_spec_gates(spec)
        if _dict(obj.get("status")).get("devices"):
            found = [*found, "DRAResourceClaimDeviceStatus"]
    elif kind == "ResourceClaimTemplate":
        found = _claim_spec_gates(_dict(spec.get("spec")))
    elif kind == "ResourceSlice":
        found = _slice_gates(spec)
    elif kind == "DeviceClass":
        found = ["DRAExtendedResource"] if spec.get("extendedResourceName") else []
    elif kind == "DeviceTaintRule":
        found = ["DRADeviceTaintRules"]
    elif kind == "PodGroup" and spec.get("resourceClaims"):
        found = ["DRAWorkloadResourceClaims"]  # dropped on create while the gate is off
    elif kind == "ResourcePoolStatusRequest":
        found = ["DRAResourcePoolStatus"]
        if spec.get("defaultPartitionTypeAttribute"):
            found.append("DRAPartitionableDevicesType")
    uses = [BASELINE] if kind in _SUBJECTS and kind != "Pod" else []
    pod_spec = _pod_spec(obj)
    if pod_spec is not None:
        if pod_spec.get("resourceClaims"):
            uses = [BASELINE]
        if _asks_for_extended(pod_spec, extended_names):
            found = [*found, BASELINE, "DRAExtendedResource"]
    for gate in found:
        if gate not in uses:
            uses.append(gate)
    return uses


def _pod_spec(obj: dict[str, Any]) -> dict[str, Any] | None:
    # Imported here: kubedra.api.workloads loads the validation rules, which commands that
    # only parse --feature-gates must not pay for at startup.
    from kubedra.api.workloads import pod_spec_of

    return pod_spec_of(obj)


def _asks_for_extended(pod_spec: dict[str, Any], extended_names: frozenset[str]) -> bool:
    for container in _dicts(pod_spec.get("containers")) + _dicts(pod_spec.get("initContainers")):
        resources = _dict(container.get("resources"))
        for amounts in (_dict(resources.get("requests")), _dict(resources.get("limits"))):
            for name in amounts:
                if name in extended_names or str(name).startswith(IMPLICIT_EXTENDED_PREFIX):
                    return True
    return False


def extended_resource_names(objects: Iterable[dict[str, Any]]) -> frozenset[str]:
    """The ``extendedResourceName`` of every DeviceClass among the objects."""
    return frozenset(
        str(_dict(obj.get("spec")).get("extendedResourceName"))
        for obj in objects
        if obj.get("kind") == "DeviceClass" and _dict(obj.get("spec")).get("extendedResourceName")
    )


def feature_uses(objects: Iterable[dict[str, Any]]) -> list[FeatureUse]:
    """Every (gate, object) pair, in input order."""
    objects = list(objects)
    names = extended_resource_names(objects)
    return [FeatureUse(gate, subject_of(obj)) for obj in objects for gate in gates_used(obj, names)]


def _subjects_text(subjects: list[str]) -> str:
    shown = subjects[:MAX_NAMED_SUBJECTS]
    text = ", ".join(shown)
    if len(subjects) > len(shown):
        text += f" and {len(subjects) - len(shown)} more"
    return text


def _grouped(uses: list[FeatureUse]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for use in uses:
        subjects = groups.setdefault(use.gate, [])
        if use.subject not in subjects:
            subjects.append(use.subject)
    return groups


def _maturity(gate: str, gates: FeatureGates) -> str:
    release = gates.release
    spec = spec_at(gate, release)
    if spec is None:
        return f"does not exist in {release}"
    default = "on" if spec.default else "off"
    text = f"{spec.stage.value}, {default} by default in {release}"
    if spec.locked:
        text += " (locked)"
    if gate in gates.overrides and gates.overrides[gate] != spec.default:
        text += f", turned {'on' if gates.overrides[gate] else 'off'} by --feature-gates"
    return text


def describe_feature_usage(
    objects: Iterable[dict[str, Any]], release: str, gates: FeatureGates | None = None
) -> list[str]:
    """One line per DRA feature the objects use beyond the baseline, with its maturity:
    ``claim ml/train uses DRAConsumableCapacity: beta, on by default in 1.36``."""
    gates = gates if gates is not None else FeatureGates.for_release(release)
    lines = []
    for gate, subjects in _grouped(feature_uses(objects)).items():
        if gate == BASELINE and gates.enabled(gate):
            continue
        verb = "uses" if len(subjects) == 1 else "use"
        lines.append(f"{_subjects_text(subjects)} {verb} {gate}: {_maturity(gate, gates)}")
    return lines


def feature_warnings(
    objects: Iterable[dict[str, Any]], release: str, gates: FeatureGates | None = None
) -> list[str]:
    """Warnings for features the input relies on that are off, missing or alpha in the release."""
    gates = gates if gates is not None else FeatureGates.for_release(release)
    warnings = []
    for gate, subjects in _grouped(feature_uses(objects)).items():
        spec = spec_at(gate, release)
        who = _subjects_text(subjects)
        relies = "relies" if len(subjects) == 1 else "rely"
        if spec is None:
            since = f" (it first appears in {GATES[gate][0].since})"
            warnings.append(
                f"{who} {relies} on {gate}, which Kubernetes {release} does not have{since}: "
                "the apiserver drops its fields and the scheduler ignores them"
            )
        elif not gates.enabled(gate):
            effect = (
                "the apiserver does not serve the kind"
                if gate in API_GATES
                else "the apiserver drops its fields and the scheduler ignores them"
            )
            warnings.append(
                f"{who} {relies} on {gate}, which is off in {release} ({spec.stage.value}): "
                f"{effect}; enable it with --feature-gates={gate}=true"
            )
        elif spec.stage is Stage.ALPHA:
            warnings.append(
                f"{who} {relies} on {gate}, an alpha feature in {release}: off in most clusters, "
                "and it may change or go away"
            )
    return warnings
