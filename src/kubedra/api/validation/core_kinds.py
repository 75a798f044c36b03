"""Validators of the core/v1 kinds the scheduler reads: Pod, Node, Namespace, PriorityClass.

Only what matters for scheduling with DRA is checked: metadata, node selection, tolerations,
priority, resource claims and container claim references, resource quantities.
"""

from __future__ import annotations

from kubedra.api.quantity import Quantity
from kubedra.api.validation.core_common import (
    validate_node_selector,
    validate_node_selector_term,
    validate_node_taints,
    validate_tolerations,
)
from kubedra.api.validation.errors import (
    FieldError,
    child,
    duplicate,
    forbidden,
    go_struct,
    index,
    invalid,
    key,
    not_found,
    not_supported,
    required,
)
from kubedra.api.validation.meta import NEGATIVE_ERROR_MSG, validate_object_meta
from kubedra.api.validation.names import (
    is_qualified_name,
    name_is_dns_label,
    name_is_dns_subdomain,
    validate_dns1123_label,
    validate_dns1123_subdomain,
    validate_labels,
)
from kubedra.api.validation.quantities import parse_quantity
from kubedra.api.validation.resource_common import as_dict, as_list, as_str
from kubedra.api.validation.resource_kinds import is_extended_resource_name

PREEMPTION_POLICIES = ["PreemptLowerPriority", "Never"]
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_PRIORITY_CLASSES = {
    "system-node-critical": 2_000_001_000,
    "system-cluster-critical": 2_000_000_000,
}
_STANDARD_CONTAINER_RESOURCES = {"cpu", "memory", "ephemeral-storage"}


def validate_pod(obj: dict) -> list[FieldError]:
    errs = validate_object_meta(as_dict(obj.get("metadata")), True, name_is_dns_subdomain)
    errs.extend(_validate_pod_spec(as_dict(obj.get("spec")), "spec"))
    return errs


def _validate_pod_spec(spec: dict, path: str) -> list[FieldError]:
    """In upstream's order: claims, containers, init containers, node selection, tolerations."""
    claims = as_list(spec.get("resourceClaims"))
    claim_names = {as_str(as_dict(c).get("name")) for c in claims if as_str(as_dict(c).get("name"))}
    errs = _validate_pod_resource_claims(claims, child(path, "resourceClaims"))
    containers = as_list(spec.get("containers"))
    container_names: set[str] = set()
    if not containers:
        errs.append(required(child(path, "containers")))
    else:
        errs.extend(
            _validate_containers(
                containers, claim_names, child(path, "containers"), container_names
            )
        )
    errs.extend(
        _validate_containers(
            as_list(spec.get("initContainers")),
            claim_names,
            child(path, "initContainers"),
            container_names,
        )
    )
    errs.extend(validate_labels(as_dict(spec.get("nodeSelector")), child(path, "nodeSelector")))
    errs.extend(_validate_affinity(as_dict(spec.get("affinity")), child(path, "affinity")))
    node_name = as_str(spec.get("nodeName"))
    if node_name:
        errs.extend(
            invalid(child(path, "nodeName"), node_name, msg)
            for msg in name_is_dns_subdomain(node_name, False)
        )
    errs.extend(validate_tolerations(as_list(spec.get("tolerations")), child(path, "tolerations")))
    priority_class = as_str(spec.get("priorityClassName"))
    if priority_class:
        errs.extend(
            invalid(child(path, "priorityClassName"), priority_class, msg)
            for msg in name_is_dns_subdomain(priority_class, False)
        )
    if spec.get("preemptionPolicy") is not None:
        errs.extend(
            _validate_preemption_policy(
                as_str(spec["preemptionPolicy"]), child(path, "preemptionPolicy")
            )
        )
    scheduler = as_str(spec.get("schedulerName"))
    if scheduler:
        errs.extend(validate_dns1123_subdomain(scheduler, child(path, "schedulerName")))
    return errs


def _validate_affinity(affinity: dict, path: str) -> list[FieldError]:
    node_affinity = as_dict(affinity.get("nodeAffinity"))
    path = child(path, "nodeAffinity")
    errs: list[FieldError] = []
    required_selector = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if required_selector is not None:
        errs.extend(
            validate_node_selector(
                as_dict(required_selector),
                child(path, "requiredDuringSchedulingIgnoredDuringExecution"),
            )
        )
    preferred_path = child(path, "preferredDuringSchedulingIgnoredDuringExecution")
    for i, term in enumerate(
        as_list(node_affinity.get("preferredDuringSchedulingIgnoredDuringExecution"))
    ):
        term = as_dict(term)
        weight = term.get("weight")
        weight = weight if isinstance(weight, int) else 0
        if weight <= 0 or weight > 100:
            errs.append(
                invalid(
                    child(index(preferred_path, i), "weight"), weight, "must be in the range 1-100"
                )
            )
        errs.extend(
            validate_node_selector_term(
                as_dict(term.get("preference")), child(index(preferred_path, i), "preference")
            )
        )
    return errs


def _validate_preemption_policy(policy: str, path: str) -> list[FieldError]:
    if not policy:
        return [required(path)]
    if policy not in PREEMPTION_POLICIES:
        return [not_supported(path, policy, PREEMPTION_POLICIES)]
    return []


def _go_pod_resource_claim(claim: dict) -> object:
    return go_struct(
        ("Name", as_str(claim.get("name"))),
        ("ResourceClaimName", claim.get("resourceClaimName")),
        ("ResourceClaimTemplateName", claim.get("resourceClaimTemplateName")),
    )


def _validate_pod_resource_claims(claims: list, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, claim in enumerate(claims):
        claim = as_dict(claim)
        item_path = index(path, i)
        name = as_str(claim.get("name"))
        if not name:
            errs.append(required(child(item_path, "name")))
        elif name in seen:
            errs.append(duplicate(child(item_path, "name"), name))
        else:
            errs.extend(validate_dns1123_label(name, child(item_path, "name")))
            seen.add(name)
        claim_name = claim.get("resourceClaimName")
        template_name = claim.get("resourceClaimTemplateName")
        if claim_name is not None and template_name is not None:
            errs.append(
                invalid(
                    item_path,
                    _go_pod_resource_claim(claim),
                    "at most one of `resourceClaimName` or `resourceClaimTemplateName` "
                    "may be specified",
                )
            )
        if claim_name is None and template_name is None:
            errs.append(
                invalid(
                    item_path,
                    _go_pod_resource_claim(claim),
                    "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`",
                )
            )
        for field_name, value in (
            ("resourceClaimName", claim_name),
            ("resourceClaimTemplateName", template_name),
        ):
            if value is not None:
                errs.extend(
                    invalid(child(item_path, field_name), as_str(value), msg)
                    for msg in name_is_dns_subdomain(as_str(value), False)
                )
    return errs


def _validate_containers(
    containers: list, claim_names: set[str], path: str, names: set[str]
) -> list[FieldError]:
    """Containers or init containers; ``names`` collects names across both for uniqueness."""
    errs: list[FieldError] = []
    for i, container in enumerate(containers):
        container = as_dict(container)
        item_path = index(path, i)
        name = as_str(container.get("name"))
        name_path = child(item_path, "name")
        if not name:
            errs.append(required(name_path))
        else:
            errs.extend(validate_dns1123_label(name, name_path))
        if name in names:
            errs.append(duplicate(name_path, name))
        else:
            names.add(name)
        image = as_str(container.get("image"))
        if not image:
            errs.append(required(child(item_path, "image")))
        elif image.strip() != image:
            errs.append(
                invalid(
                    child(item_path, "image"), image, "must not have leading or trailing whitespace"
                )
            )
        errs.extend(
            _validate_resources(
                as_dict(container.get("resources")), claim_names, child(item_path, "resources")
            )
        )
    return errs


def _is_native(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def _overcommit_allowed(name: str) -> bool:
    return _is_native(name) and not name.startswith("hugepages-")


def _validate_resource_name(name: str, path: str) -> list[FieldError]:
    errs = [invalid(path, name, msg) for msg in is_qualified_name(name)]
    if "/" not in name:
        if name not in _STANDARD_CONTAINER_RESOURCES and not name.startswith("hugepages-"):
            errs.append(invalid(path, name, "must be a standard resource for containers"))
    elif not _is_native(name) and not is_extended_resource_name(name):
        errs.append(invalid(path, name, "doesn't follow extended resource name standard"))
    return errs


def _validate_quantity_value(name: str, quantity: Quantity, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if quantity.sign() < 0:
        errs.append(invalid(path, str(quantity), NEGATIVE_ERROR_MSG))
    if not _is_native(name) and quantity.milli_value() % 1000 != 0:
        errs.append(invalid(path, str(quantity), "must be an integer"))
    return errs


def _validate_resources(resources: dict, claim_names: set[str], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    limits_path = child(path, "limits")
    requests_path = child(path, "requests")
    limits = {k: parse_quantity(v) for k, v in as_dict(resources.get("limits")).items()}
    for name, quantity in limits.items():
        errs.extend(_validate_resource_name(name, key(limits_path, name)))
        if quantity is not None:
            errs.extend(_validate_quantity_value(name, quantity, key(limits_path, name)))
    for name, raw in as_dict(resources.get("requests")).items():
        quantity = parse_quantity(raw)
        errs.extend(_validate_resource_name(name, key(requests_path, name)))
        if quantity is None:
            continue
        errs.extend(_validate_quantity_value(name, quantity, key(requests_path, name)))
        limit = limits.get(name)
        if limit is not None:
            if quantity != limit and not _overcommit_allowed(name):
                errs.append(
                    invalid(
                        requests_path, str(quantity), f"must be equal to {name} limit of {limit}"
                    )
                )
            elif quantity > limit:
                errs.append(
                    invalid(
                        requests_path,
                        str(quantity),
                        f"must be less than or equal to {name} limit of {limit}",
                    )
                )
        elif name not in limits and not _overcommit_allowed(name):
            errs.append(required(limits_path, "Limit must be set for non overcommitable resources"))
    errs.extend(
        _validate_claim_references(
            as_list(resources.get("claims")), claim_names, child(path, "claims")
        )
    )
    return errs


def _validate_claim_references(claims: list, claim_names: set[str], path: str) -> list[FieldError]:
    """Container claims must name an entry of ``pod.spec.resourceClaims``."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, claim in enumerate(claims):
        claim = as_dict(claim)
        item_path = index(path, i)
        name = as_str(claim.get("name"))
        if not name:
            errs.append(required(item_path))
            continue
        ref = name
        request = as_str(claim.get("request"))
        if request:
            errs.extend(validate_dns1123_label(request, child(item_path, "request")))
            ref = f"{name}/{request}"
        if ref in seen:
            errs.append(duplicate(item_path, name))
        seen.add(ref)
        if name not in claim_names:
            detail = "must be one of the names in pod.spec.resourceClaims"
            detail += ": " + ", ".join(sorted(claim_names)) if claim_names else " which is empty"
            errs.append(not_found(item_path, name, detail))
    return errs


def validate_node(obj: dict) -> list[FieldError]:
    errs = validate_object_meta(as_dict(obj.get("metadata")), False, name_is_dns_subdomain)
    spec = as_dict(obj.get("spec"))
    errs.extend(validate_node_taints(as_list(spec.get("taints")), "spec.taints"))
    status = as_dict(obj.get("status"))
    for section in ("capacity", "allocatable"):
        for name, raw in as_dict(status.get(section)).items():
            quantity = parse_quantity(raw)
            if quantity is not None:
                errs.extend(
                    _validate_quantity_value(name, quantity, child("status", section, name))
                )
    return errs


def validate_namespace(obj: dict) -> list[FieldError]:
    return validate_object_meta(as_dict(obj.get("metadata")), False, name_is_dns_label)


def validate_priority_class(obj: dict) -> list[FieldError]:
    meta = as_dict(obj.get("metadata"))
    errs = validate_object_meta(meta, False, name_is_dns_subdomain)
    name = as_str(meta.get("name"))
    value = obj.get("value")
    value = value if isinstance(value, int) else 0
    if name.startswith("system-"):
        problem = _system_priority_class_problem(name, value, obj.get("globalDefault") is True)
        if problem:
            errs.append(
                forbidden(
                    "metadata.name",
                    "priority class names with 'system-' prefix are reserved for system use only. "
                    f"error: {problem}",
                )
            )
    elif value > HIGHEST_USER_DEFINABLE_PRIORITY:
        errs.append(
            forbidden(
                "value",
                "maximum allowed value of a user defined priority is "
                f"{HIGHEST_USER_DEFINABLE_PRIORITY}",
            )
        )
    if obj.get("preemptionPolicy") is not None:
        errs.extend(
            _validate_preemption_policy(as_str(obj["preemptionPolicy"]), "preemptionPolicy")
        )
    return errs


def _system_priority_class_problem(name: str, value: int, global_default: bool) -> str:
    expected = SYSTEM_PRIORITY_CLASSES.get(name)
    if expected is None:
        return f"{name} is not a known system priority class"
    if value != expected:
        return f"value of {name} PriorityClass must be {expected}"
    if global_default:
        return f"globalDefault of {name} PriorityClass must be false"
    return ""
