"""Validators of the Workload API: ``scheduling.k8s.io/v1beta1`` Workload and PodGroup and
``v1alpha3`` CompositePodGroup (1.37), and ``v1alpha2`` Workload and PodGroup (1.36).

1.37 validates the v1beta1 types declaratively (their ``+k8s:`` tags in k8s.io/api
``scheduling/v1beta1/types.go``, the rules of apimachinery ``pkg/api/validate``): unions
``must specify one of: `a`, `b``` / ``must specify exactly one of: ...``, ``Required value``
for a missing or zero required field, ``must be greater than or equal to 1`` for ``+k8s:minimum``,
``Too many`` for ``+k8s:maxItems``, ``Duplicate value`` at the repeated item of a map-list, DNS
label (``k8s-short-name``) and subdomain (``k8s-long-name``) formats, list checks before the
checks of each item. Rules tagged ``+k8s:alpha`` (PodGroup ``status.conditions``,
``parentCompositePodGroupName`` needing ``workloadRef``) only shadow the others upstream and are
not applied. 1.36 validates ``v1alpha2`` by hand (``pkg/apis/scheduling/validation``):
``minCount`` 0 is ``Required value``, below 0 ``must be greater than zero``, and each
template's name is checked before it is compared with the others.

Feature gates that forbid fields (TopologyAwareWorkloadScheduling, CompositePodGroup,
PodGroupPreemptionPolicy, WorkloadAwarePreemption) are not applied here, as for the other
kinds: ``kubedra validate`` reports the gates an object relies on.
"""

from __future__ import annotations

from collections.abc import Callable

from kubedra.api.naming import is_qualified_name
from kubedra.api.scheduling_versions import V1ALPHA2
from kubedra.api.validation.errors import (
    FieldError,
    child,
    duplicate,
    index,
    invalid,
    not_supported,
    required,
    too_many,
)
from kubedra.api.validation.meta import validate_object_meta
from kubedra.api.validation.names import name_is_dns_label, name_is_dns_subdomain
from kubedra.api.validation.resource_common import as_dict, as_list, as_str

MAX_POD_GROUP_TEMPLATES = 8
"""``WorkloadMaxPodGroupTemplates``."""
MAX_POD_GROUP_RESOURCE_CLAIMS = 4
"""``MaxPodGroupResourceClaims``."""
MAX_TOPOLOGY_CONSTRAINTS = 1
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
PREEMPTION_POLICIES = ["Never", "PreemptLowerPriority"]


# --- formats ------------------------------------------------------------------------------------


def _short_name(value: object, path: str, *, needed: bool = True) -> list[FieldError]:
    """``+k8s:required`` (when ``needed``) and ``+k8s:format=k8s-short-name`` (a DNS label)."""
    text = as_str(value)
    if not text:
        return [required(path)] if needed else []
    return [invalid(path, text, m) for m in name_is_dns_label(text, False)]


def _long_name(value: object, path: str, *, needed: bool = False) -> list[FieldError]:
    """``+k8s:format=k8s-long-name`` (a DNS subdomain), optional unless ``needed``."""
    text = as_str(value)
    if not text:
        return [required(path)] if needed else []
    return [invalid(path, text, m) for m in name_is_dns_subdomain(text, False)]


def _path_segment_name(value: object, path: str) -> list[FieldError]:
    """``+k8s:required`` and ``+k8s:format=k8s-path-segment-name``."""
    text = as_str(value)
    if not text:
        return [required(path)]
    if text in (".", ".."):
        return [invalid(path, text, f"may not be '{text}'")]
    return [invalid(path, text, f"may not contain '{c}'") for c in "/%" if c in text]


def _union(obj: dict, members: tuple[str, ...], path: str) -> list[FieldError]:
    """``validate.Union``: exactly one member set (a non-empty list counts as set)."""
    names = ", ".join(f"`{m}`" for m in members)
    present = [m for m in members if obj.get(m) not in (None, [], "")]
    if not present:
        return [invalid(path, "", f"must specify one of: {names}")]
    if len(present) > 1:
        shown = "{" + ", ".join(f"`{m}`" for m in present) + "}"
        return [invalid(path, shown, f"must specify exactly one of: {names}")]
    return []


def _priority(spec: dict, path: str) -> list[FieldError]:
    """``priorityClassName`` (long name), ``priority`` (at most 1e9), ``preemptionPolicy``."""
    errs = _long_name(spec.get("priorityClassName"), child(path, "priorityClassName"))
    priority = spec.get("priority")
    if isinstance(priority, int) and priority > HIGHEST_USER_DEFINABLE_PRIORITY:
        detail = f"must be less than or equal to {HIGHEST_USER_DEFINABLE_PRIORITY}"
        errs.append(invalid(child(path, "priority"), priority, detail))
    policy = spec.get("preemptionPolicy")
    if policy is not None and policy not in PREEMPTION_POLICIES:
        errs.append(not_supported(child(path, "preemptionPolicy"), policy, PREEMPTION_POLICIES))
    return errs


def _map_list(
    items: list,
    path: str,
    maximum: int,
    check_item: Callable[[dict, str], list[FieldError]],
) -> list[FieldError]:
    """A ``+k8s:listType=map`` keyed by ``name``: too many, then each repeated name at its item,
    then every item's own checks."""
    errs: list[FieldError] = []
    if len(items) > maximum:
        errs.append(too_many(path, len(items), maximum))
    seen: set[str] = set()
    for i, raw in enumerate(items):
        name = as_str(as_dict(raw).get("name"))
        if name in seen:
            errs.append(duplicate(index(path, i), name))
        seen.add(name)
    for i, raw in enumerate(items):
        errs.extend(check_item(as_dict(raw), index(path, i)))
    return errs


# --- v1beta1 building blocks --------------------------------------------------------------------


def _gang_min(gang: dict, field_name: str, path: str) -> list[FieldError]:
    """``+k8s:required`` (0 reads as unset) and ``+k8s:minimum=1``."""
    count = gang.get(field_name)
    at = child(path, field_name)
    if not isinstance(count, int) or count == 0:
        return [required(at)]
    if count < 1:
        return [invalid(at, count, "must be greater than or equal to 1")]
    return []


def _scheduling_policy(policy: dict, path: str, gang_field: str = "minCount") -> list[FieldError]:
    errs = _union(policy, ("basic", "gang"), path)
    if isinstance(policy.get("gang"), dict):
        errs.extend(_gang_min(policy["gang"], gang_field, child(path, "gang")))
    return errs


def _constraints(constraints: object, path: str) -> list[FieldError]:
    if constraints is None:
        return []
    topology = as_list(as_dict(constraints).get("topology"))
    at = child(path, "topology")
    errs: list[FieldError] = []
    if len(topology) > MAX_TOPOLOGY_CONSTRAINTS:
        errs.append(too_many(at, len(topology), MAX_TOPOLOGY_CONSTRAINTS))
    for i, raw in enumerate(topology):
        key = as_str(as_dict(raw).get("key"))
        key_path = child(index(at, i), "key")
        if not key:
            errs.append(required(key_path))
        else:
            errs.extend(invalid(key_path, key, m) for m in is_qualified_name(key))
    return errs


def _disruption_mode(mode: object, path: str) -> list[FieldError]:
    return [] if mode is None else _union(as_dict(mode), ("single", "all"), path)


def _group_claim(claim: dict, path: str) -> list[FieldError]:
    """PodGroupResourceClaim: a DNS-label name, exactly one of the claim and the template."""
    errs = _union(claim, ("resourceClaimName", "resourceClaimTemplateName"), path)
    errs.extend(_short_name(claim.get("name"), child(path, "name")))
    for key in ("resourceClaimName", "resourceClaimTemplateName"):
        if claim.get(key) is not None:
            errs.extend(_long_name(claim.get(key), child(path, key), needed=True))
    return errs


def _group_claims(spec: dict, path: str) -> list[FieldError]:
    claims = as_list(spec.get("resourceClaims"))
    return _map_list(
        claims, child(path, "resourceClaims"), MAX_POD_GROUP_RESOURCE_CLAIMS, _group_claim
    )


def _pod_group_template(template: dict, path: str) -> list[FieldError]:
    errs = _short_name(template.get("name"), child(path, "name"))
    errs.extend(
        _scheduling_policy(
            as_dict(template.get("schedulingPolicy")), child(path, "schedulingPolicy")
        )
    )
    errs.extend(
        _constraints(template.get("schedulingConstraints"), child(path, "schedulingConstraints"))
    )
    errs.extend(_group_claims(template, path))
    errs.extend(_disruption_mode(template.get("disruptionMode"), child(path, "disruptionMode")))
    errs.extend(_priority(template, path))
    return errs


def _composite_template(template: dict, path: str) -> list[FieldError]:
    errs = _short_name(template.get("name"), child(path, "name"))
    policy = as_dict(template.get("schedulingPolicy"))
    errs.extend(_scheduling_policy(policy, child(path, "schedulingPolicy"), "minGroupCount"))
    errs.extend(
        _constraints(template.get("schedulingConstraints"), child(path, "schedulingConstraints"))
    )
    errs.extend(_disruption_mode(template.get("disruptionMode"), child(path, "disruptionMode")))
    errs.extend(_priority(template, path))
    errs.extend(_templates(template, path))
    return errs


def _templates(spec: dict, path: str) -> list[FieldError]:
    """``podGroupTemplates`` and ``compositePodGroupTemplates`` (at most 8 each, names unique)."""
    errs = _map_list(
        as_list(spec.get("podGroupTemplates")),
        child(path, "podGroupTemplates"),
        MAX_POD_GROUP_TEMPLATES,
        _pod_group_template,
    )
    errs.extend(
        _map_list(
            as_list(spec.get("compositePodGroupTemplates")),
            child(path, "compositePodGroupTemplates"),
            MAX_POD_GROUP_TEMPLATES,
            _composite_template,
        )
    )
    return errs


def _controller_ref(ref: object, path: str) -> list[FieldError]:
    if ref is None:
        return []
    ref = as_dict(ref)
    errs = _long_name(ref.get("apiGroup"), child(path, "apiGroup"))
    errs.extend(_path_segment_name(ref.get("kind"), child(path, "kind")))
    errs.extend(_path_segment_name(ref.get("name"), child(path, "name")))
    return errs


def _workload_ref(ref: object, path: str) -> list[FieldError]:
    if ref is None:
        return []
    ref = as_dict(ref)
    errs = _long_name(ref.get("workloadName"), child(path, "workloadName"), needed=True)
    errs.extend(_short_name(ref.get("templateName"), child(path, "templateName")))
    return errs


def _meta(obj: dict) -> list[FieldError]:
    return validate_object_meta(as_dict(obj.get("metadata")), True, name_is_dns_subdomain)


# --- v1beta1 / v1alpha3 kinds -------------------------------------------------------------------


def _validate_workload_v1beta1(obj: dict) -> list[FieldError]:
    errs = _meta(obj)
    spec = as_dict(obj.get("spec"))
    errs.extend(_union(spec, ("podGroupTemplates", "compositePodGroupTemplates"), "spec"))
    errs.extend(_controller_ref(spec.get("controllerRef"), "spec.controllerRef"))
    errs.extend(_templates(spec, "spec"))
    return errs


def _validate_pod_group_v1beta1(obj: dict) -> list[FieldError]:
    errs = _meta(obj)
    spec = as_dict(obj.get("spec"))
    path = "spec"
    errs.extend(
        _long_name(spec.get("parentCompositePodGroupName"), "spec.parentCompositePodGroupName")
    )
    errs.extend(_workload_ref(spec.get("workloadRef"), "spec.workloadRef"))
    errs.extend(_scheduling_policy(as_dict(spec.get("schedulingPolicy")), "spec.schedulingPolicy"))
    errs.extend(_constraints(spec.get("schedulingConstraints"), "spec.schedulingConstraints"))
    errs.extend(_group_claims(spec, path))
    errs.extend(_disruption_mode(spec.get("disruptionMode"), "spec.disruptionMode"))
    errs.extend(_priority(spec, path))
    statuses = as_list(as_dict(obj.get("status")).get("resourceClaimStatuses"))
    errs.extend(
        _map_list(
            statuses,
            "status.resourceClaimStatuses",
            MAX_POD_GROUP_RESOURCE_CLAIMS,
            lambda s, at: _long_name(s.get("resourceClaimName"), child(at, "resourceClaimName")),
        )
    )
    return errs


def validate_composite_pod_group(obj: dict) -> list[FieldError]:
    """``scheduling.k8s.io/v1alpha3`` CompositePodGroup (KEP-6012)."""
    errs = _meta(obj)
    spec = as_dict(obj.get("spec"))
    errs.extend(
        _long_name(spec.get("parentCompositePodGroupName"), "spec.parentCompositePodGroupName")
    )
    errs.extend(_workload_ref(spec.get("workloadRef"), "spec.workloadRef"))
    policy = as_dict(spec.get("schedulingPolicy"))
    errs.extend(_scheduling_policy(policy, "spec.schedulingPolicy", "minGroupCount"))
    errs.extend(_constraints(spec.get("schedulingConstraints"), "spec.schedulingConstraints"))
    errs.extend(_disruption_mode(spec.get("disruptionMode"), "spec.disruptionMode"))
    errs.extend(_priority(spec, "spec"))
    return errs


# --- v1alpha2 (1.36, hand-written validation) ---------------------------------------------------


def _policy_v1alpha2(policy: dict, path: str) -> list[FieldError]:
    """``validatePodGroupSchedulingPolicy`` of 1.36."""
    present = [f"`{m}`" for m in ("basic", "gang") if policy.get(m) is not None]
    if not present:
        return [invalid(path, "", "must specify one of: `basic`, `gang`")]
    if len(present) > 1:
        return [
            invalid(
                path,
                "{" + ", ".join(present) + "}",
                "exactly one of `basic`, `gang` is required, but multiple fields are set",
            )
        ]
    gang = policy.get("gang")
    if not isinstance(gang, dict):
        return []
    count = gang.get("minCount")
    at = child(path, "gang", "minCount")
    if not isinstance(count, int) or count == 0:
        return [required(at)]
    if count < 0:
        return [invalid(at, count, "must be greater than zero")]
    return []


def _validate_workload_v1alpha2(obj: dict) -> list[FieldError]:
    errs = _meta(obj)
    spec = as_dict(obj.get("spec"))
    errs.extend(_controller_ref(spec.get("controllerRef"), "spec.controllerRef"))
    path = "spec.podGroupTemplates"
    templates = as_list(spec.get("podGroupTemplates"))
    if not templates:
        return [*errs, required(path, "must have at least one item")]
    if len(templates) > MAX_POD_GROUP_TEMPLATES:
        return [*errs, too_many(path, len(templates), MAX_POD_GROUP_TEMPLATES)]
    seen: set[str] = set()
    for i, raw in enumerate(templates):
        template = as_dict(raw)
        at = index(path, i)
        name = as_str(template.get("name"))
        errs.extend(_short_name(name, child(at, "name")))
        if name in seen:
            errs.append(duplicate(at, name))
        seen.add(name)
        errs.extend(
            _policy_v1alpha2(
                as_dict(template.get("schedulingPolicy")), child(at, "schedulingPolicy")
            )
        )
    return errs


def _validate_pod_group_v1alpha2(obj: dict) -> list[FieldError]:
    errs = _meta(obj)
    spec = as_dict(obj.get("spec"))
    ref = spec.get("podGroupTemplateRef")
    if ref is not None:
        workload = as_dict(as_dict(ref).get("workload"))
        at = "spec.podGroupTemplateRef.workload"
        errs.extend(
            _long_name(workload.get("workloadName"), child(at, "workloadName"), needed=True)
        )
        errs.extend(
            _short_name(workload.get("podGroupTemplateName"), child(at, "podGroupTemplateName"))
        )
    errs.extend(_policy_v1alpha2(as_dict(spec.get("schedulingPolicy")), "spec.schedulingPolicy"))
    errs.extend(_group_claims(spec, "spec"))
    return errs


# --- entry points -------------------------------------------------------------------------------


def validate_workload(obj: dict) -> list[FieldError]:
    """A Workload in the version it is written in (v1alpha2 for 1.36, else v1beta1's rules)."""
    if obj.get("apiVersion") == V1ALPHA2:
        return _validate_workload_v1alpha2(obj)
    return _validate_workload_v1beta1(obj)


def validate_pod_group(obj: dict) -> list[FieldError]:
    """A PodGroup in the version it is written in (v1alpha2 for 1.36, else v1beta1's rules)."""
    if obj.get("apiVersion") == V1ALPHA2:
        return _validate_pod_group_v1alpha2(obj)
    return _validate_pod_group_v1beta1(obj)
