"""Validators of ``scheduling.k8s.io/v1alpha2`` Workload and PodGroup (KEP-4671).

What the scheduler depends on: DNS-label template names, unique within a Workload, and a
gang ``minCount`` of at least 1 (the API's ``+k8s:minimum=1``); a PodGroup's policy likewise,
and its ``resourceClaims`` (KEP-5729).
"""

from __future__ import annotations

from kubedra.api.validation.errors import FieldError, child, duplicate, index, invalid, required
from kubedra.api.validation.meta import validate_object_meta
from kubedra.api.validation.names import name_is_dns_label, name_is_dns_subdomain
from kubedra.api.validation.resource_common import as_dict, as_list, as_str


def _validate_policy(policy: dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    gang = policy.get("gang")
    if gang is None and policy.get("basic") is None:
        errs.append(required(path, "must specify one of: `basic`, `gang`"))
    if isinstance(gang, dict):
        count = gang.get("minCount")
        if not isinstance(count, int) or count < 1:
            at = child(path, "gang", "minCount")
            errs.append(invalid(at, count, "must be greater than or equal to 1"))
    return errs


def validate_workload(obj: dict) -> list[FieldError]:
    meta = as_dict(obj.get("metadata"))
    errs = validate_object_meta(meta, True, name_is_dns_subdomain)
    path = "spec.podGroupTemplates"
    seen: set[str] = set()
    templates = as_list(as_dict(obj.get("spec")).get("podGroupTemplates"))
    if not templates:
        errs.append(required(path, ""))
    for i, raw in enumerate(templates):
        template = as_dict(raw)
        at = index(path, i)
        name = as_str(template.get("name"))
        if not name:
            errs.append(required(child(at, "name"), ""))
        else:
            errs.extend(invalid(child(at, "name"), name, m) for m in name_is_dns_label(name, False))
            if name in seen:
                errs.append(duplicate(child(at, "name"), name))
            seen.add(name)
        policy = as_dict(template.get("schedulingPolicy"))
        errs.extend(_validate_policy(policy, child(at, "schedulingPolicy")))
    return errs


def validate_pod_group(obj: dict) -> list[FieldError]:
    meta = as_dict(obj.get("metadata"))
    errs = validate_object_meta(meta, True, name_is_dns_subdomain)
    spec = as_dict(obj.get("spec"))
    errs.extend(_validate_policy(as_dict(spec.get("schedulingPolicy")), "spec.schedulingPolicy"))
    errs.extend(_validate_group_claims(as_list(spec.get("resourceClaims"))))
    return errs


def _validate_group_claims(claims: list) -> list[FieldError]:
    """PodGroupResourceClaim (KEP-5729): a unique DNS-label name and exactly one of
    resourceClaimName and resourceClaimTemplateName."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, raw in enumerate(claims):
        entry = as_dict(raw)
        at = index("spec.resourceClaims", i)
        name = as_str(entry.get("name"))
        if not name:
            errs.append(required(child(at, "name"), ""))
        else:
            errs.extend(invalid(child(at, "name"), name, m) for m in name_is_dns_label(name, False))
            if name in seen:
                errs.append(duplicate(child(at, "name"), name))
            seen.add(name)
        given = [k for k in ("resourceClaimName", "resourceClaimTemplateName") if entry.get(k)]
        if len(given) != 1:
            errs.append(
                invalid(
                    at,
                    "",
                    "must specify exactly one of: `resourceClaimName`, `resourceClaimTemplateName`",
                )
            )
    return errs
