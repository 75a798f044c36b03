"""core/v1 building blocks also used by resource.k8s.io: node selectors, tolerations, taints."""

from __future__ import annotations

from kubedra.api.validation.errors import (
    FieldError,
    child,
    duplicate,
    forbidden,
    go_struct,
    index,
    invalid,
    not_supported,
    required,
)
from kubedra.api.validation.names import (
    is_label_value,
    name_is_dns_subdomain,
    validate_label_name,
)
from kubedra.api.validation.resource_common import as_dict, as_list, as_str

TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"]
TOLERATION_OPERATORS = ["Equal", "Exists"]


def validate_node_selector(selector: dict, path: str) -> list[FieldError]:
    """``ValidateNodeSelector`` (label values in match expressions are checked)."""
    terms_path = child(path, "nodeSelectorTerms")
    terms = as_list(selector.get("nodeSelectorTerms"))
    if not terms:
        return [required(terms_path, "must have at least one node selector term")]
    errs: list[FieldError] = []
    for i, term in enumerate(terms):
        errs.extend(validate_node_selector_term(as_dict(term), index(terms_path, i)))
    return errs


def validate_node_selector_term(term: dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for j, req in enumerate(as_list(term.get("matchExpressions"))):
        errs.extend(_validate_requirement(as_dict(req), index(child(path, "matchExpressions"), j)))
    for j, req in enumerate(as_list(term.get("matchFields"))):
        errs.extend(_validate_field_requirement(as_dict(req), index(child(path, "matchFields"), j)))
    return errs


def _validate_requirement(req: dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    operator = as_str(req.get("operator"))
    values = [as_str(v) for v in as_list(req.get("values"))]
    values_path = child(path, "values")
    if operator in ("In", "NotIn"):
        if not values:
            errs.append(
                required(values_path, "must be specified when `operator` is 'In' or 'NotIn'")
            )
    elif operator in ("Exists", "DoesNotExist"):
        if values:
            errs.append(
                forbidden(
                    values_path,
                    "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                )
            )
    elif operator in ("Gt", "Lt"):
        if len(values) != 1:
            errs.append(
                required(
                    values_path, "must be specified single value when `operator` is 'Lt' or 'Gt'"
                )
            )
    else:
        errs.append(invalid(child(path, "operator"), operator, "not a valid selector operator"))
    errs.extend(validate_label_name(as_str(req.get("key")), child(path, "key")))
    for i, value in enumerate(values):
        errs.extend(invalid(index(values_path, i), value, msg) for msg in is_label_value(value))
    return errs


def _validate_field_requirement(req: dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    operator = as_str(req.get("operator"))
    values = [as_str(v) for v in as_list(req.get("values"))]
    if operator in ("In", "NotIn"):
        if len(values) != 1:
            errs.append(
                required(
                    child(path, "values"),
                    "must be only one value when `operator` is 'In' or 'NotIn' "
                    "for node field selector",
                )
            )
    else:
        errs.append(invalid(child(path, "operator"), operator, "not a valid selector operator"))
    field_key = as_str(req.get("key"))
    if field_key != "metadata.name":
        errs.append(invalid(child(path, "key"), field_key, "not a valid field selector key"))
    else:
        for i, value in enumerate(values):
            errs.extend(
                invalid(index(child(path, "values"), i), value, msg)
                for msg in name_is_dns_subdomain(value, False)
            )
    return errs


def go_toleration(toleration: dict) -> object:
    """A core toleration as the apiserver prints the internal struct in error messages."""
    return go_struct(
        ("Key", as_str(toleration.get("key"))),
        ("Operator", as_str(toleration.get("operator"))),
        ("Value", as_str(toleration.get("value"))),
        ("Effect", as_str(toleration.get("effect"))),
        ("TolerationSeconds", toleration.get("tolerationSeconds")),
    )


def validate_tolerations(tolerations: list, path: str) -> list[FieldError]:
    """Pod tolerations (``ValidateTolerations``)."""
    errs: list[FieldError] = []
    for i, toleration in enumerate(tolerations):
        toleration = as_dict(toleration)
        item_path = index(path, i)
        tol_key = as_str(toleration.get("key"))
        operator = as_str(toleration.get("operator"))
        value = as_str(toleration.get("value"))
        effect = as_str(toleration.get("effect"))
        if tol_key:
            errs.extend(validate_label_name(tol_key, child(item_path, "key")))
        if not tol_key and operator != "Exists":
            errs.append(
                invalid(
                    child(item_path, "operator"),
                    operator,
                    'operator must be Exists when `key` is empty, which means "match all values '
                    'and all keys"',
                )
            )
        if toleration.get("tolerationSeconds") is not None and effect != "NoExecute":
            errs.append(
                invalid(
                    child(item_path, "effect"),
                    effect,
                    "effect must be 'NoExecute' when `tolerationSeconds` is set",
                )
            )
        if operator in ("Equal", ""):
            errs.extend(
                invalid(child(item_path, "operator"), value, msg) for msg in is_label_value(value)
            )
        elif operator == "Exists":
            if value:
                errs.append(
                    invalid(
                        child(item_path, "operator"),
                        go_toleration(toleration),
                        "value must be empty when `operator` is 'Exists'",
                    )
                )
        else:
            errs.append(not_supported(child(item_path, "operator"), operator, TOLERATION_OPERATORS))
        if effect:
            errs.extend(validate_taint_effect(effect, True, child(item_path, "effect")))
    return errs


def validate_taint_effect(effect: str, allow_empty: bool, path: str) -> list[FieldError]:
    if not allow_empty and not effect:
        return [required(path)]
    if effect not in TAINT_EFFECTS:
        return [not_supported(path, effect, TAINT_EFFECTS)]
    return []


def validate_node_taints(taints: list, path: str) -> list[FieldError]:
    """Node taints: label key, label value, effect, unique by (key, effect)."""
    errs: list[FieldError] = []
    seen: set[tuple[str, str]] = set()
    for i, taint in enumerate(taints):
        taint = as_dict(taint)
        item_path = index(path, i)
        taint_key = as_str(taint.get("key"))
        value = as_str(taint.get("value"))
        effect = as_str(taint.get("effect"))
        errs.extend(validate_label_name(taint_key, child(item_path, "key")))
        value_errs = is_label_value(value)
        if value_errs:
            errs.append(invalid(child(item_path, "value"), value, ";".join(value_errs)))
        errs.extend(validate_taint_effect(effect, False, child(item_path, "effect")))
        if (taint_key, effect) in seen:
            err = duplicate(
                item_path,
                go_struct(
                    ("Key", taint_key),
                    ("Value", value),
                    ("Effect", effect),
                    ("TimeAdded", taint.get("timeAdded")),
                ),
            )
            errs.append(
                FieldError(
                    err.type,
                    err.field,
                    err.bad_value,
                    "taints must be unique by key and effect pair",
                )
            )
            continue
        seen.add((taint_key, effect))
    return errs
