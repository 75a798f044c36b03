"""Validation of a claim's device requests (``ResourceClaimSpec.devices``)."""

from __future__ import annotations

from kubedra.api.validation.cel_checks import (
    DEVICE_CLAIM_DERIVED_ATTRIBUTE_CEL_MAX_COST,
    validate_derived_attribute_expression,
)
from kubedra.api.validation.errors import (
    FieldError,
    child,
    forbidden,
    invalid,
    not_supported,
    required,
)
from kubedra.api.validation.resource_common import (
    DEVICE_CONFIG_MAX_SIZE,
    as_dict,
    as_list,
    as_str,
    validate_device_class_name,
    validate_device_configuration,
    validate_fully_qualified_name,
    validate_list,
    validate_request_name,
    validate_selectors,
    validate_set,
    validate_tolerations,
)

DEVICE_REQUESTS_MAX_SIZE = 32
DEVICE_CONSTRAINTS_MAX_SIZE = 32
FIRST_AVAILABLE_MAX_SIZE = 8
ALLOCATION_MODES = ["All", "ExactCount"]
REQUEST_REF_DETAIL = (
    "must be the name of a request in the claim or the name of a request and a subrequest "
    "separated by '/'"
)


class RequestNames:
    """Names a constraint, config or allocation result may refer to: "req" or "req/sub"."""

    def __init__(self, device_claim: dict) -> None:
        self._subrequests: dict[str, set[str]] = {}
        for request in as_list(device_claim.get("requests")):
            request = as_dict(request)
            subs = as_list(request.get("firstAvailable"))
            self._subrequests[as_str(request.get("name"))] = {
                as_str(as_dict(sub).get("name")) for sub in subs
            }

    def has(self, ref: str) -> bool:
        segments = ref.split("/")
        if len(segments) > 2 or segments[0] not in self._subrequests:
            return False
        return len(segments) == 1 or segments[1] in self._subrequests[segments[0]]


def validate_request_name_ref(ref: str, path: str, names: RequestNames) -> list[FieldError]:
    segments = ref.split("/")
    if len(segments) > 2:
        return [invalid(path, ref, REQUEST_REF_DETAIL)]
    errs: list[FieldError] = []
    for segment in segments:
        errs.extend(validate_request_name(segment, path))
    if not names.has(ref):
        errs.append(invalid(path, ref, REQUEST_REF_DETAIL))
    return errs


def validate_request_refs(refs: list, path: str, names: RequestNames) -> list[FieldError]:
    return validate_set(
        refs,
        DEVICE_REQUESTS_MAX_SIZE,
        lambda ref, p: validate_request_name_ref(as_str(ref), p, names),
        lambda ref: as_str(ref),
        path,
    )


class _Derived:
    """What derived attribute validation needs from the whole claim: the attributes each
    request's constraints use, and the estimated costs of the expressions seen so far."""

    __slots__ = ("attrs", "costs")

    def __init__(self, constraints: list) -> None:
        self.attrs = _constraint_attributes(constraints)
        self.costs: list[int] = []


def validate_device_claim(device_claim: dict, path: str) -> list[FieldError]:
    """Requests, constraints and config of a claim, with all references between them."""
    names = RequestNames(device_claim)
    constraint_attrs = _Derived(as_list(device_claim.get("constraints")))
    errs = validate_set(
        as_list(device_claim.get("requests")),
        DEVICE_REQUESTS_MAX_SIZE,
        lambda request, p: _validate_request(as_dict(request), p, constraint_attrs),
        lambda request: as_str(as_dict(request).get("name")),
        child(path, "requests"),
    )
    errs.extend(
        validate_list(
            as_list(device_claim.get("constraints")),
            DEVICE_CONSTRAINTS_MAX_SIZE,
            lambda constraint, p: _validate_constraint(as_dict(constraint), p, names),
            child(path, "constraints"),
        )
    )
    errs.extend(
        validate_list(
            as_list(device_claim.get("config")),
            DEVICE_CONFIG_MAX_SIZE,
            lambda config, p: _validate_claim_config(as_dict(config), p, names),
            child(path, "config"),
        )
    )
    if sum(constraint_attrs.costs) > DEVICE_CLAIM_DERIVED_ATTRIBUTE_CEL_MAX_COST:
        errs.append(
            forbidden(
                path,
                "too complex, total cost of derived attribute CEL expressions in the claim "
                "exceeds cost limit",
            )
        )
    return errs


def _validate_request(request: dict, path: str, constraint_attrs: _Derived) -> list[FieldError]:
    name = as_str(request.get("name"))
    errs = validate_request_name(name, child(path, "name"))
    first_available = as_list(request.get("firstAvailable"))
    exactly = request.get("exactly")
    if not first_available and exactly is None:
        errs.append(required(path, "exactly one of `exactly` or `firstAvailable` is required"))
    elif first_available and exactly is not None:
        errs.append(
            invalid(
                path,
                None,
                "exactly one of `exactly` or `firstAvailable` is required, "
                "but multiple fields are set",
            )
        )
    elif first_available:
        errs.extend(
            validate_set(
                first_available,
                FIRST_AVAILABLE_MAX_SIZE,
                lambda sub, p: _validate_subrequest(as_dict(sub), p, name, constraint_attrs),
                lambda sub: as_str(as_dict(sub).get("name")),
                child(path, "firstAvailable"),
            )
        )
    else:
        errs.extend(
            _validate_exact(as_dict(exactly), child(path, "exactly"), name, constraint_attrs)
        )
    return errs


def _validate_exact(exact: dict, path: str, request_name: str, attrs: _Derived) -> list[FieldError]:
    errs = validate_device_class_name(
        as_str(exact.get("deviceClassName")), child(path, "deviceClassName")
    )
    errs.extend(_validate_request_body(exact, path, request_name, attrs))
    return errs


def _validate_subrequest(sub: dict, path: str, parent: str, attrs: _Derived) -> list[FieldError]:
    errs = validate_request_name(as_str(sub.get("name")), child(path, "name"))
    errs.extend(
        validate_device_class_name(
            as_str(sub.get("deviceClassName")), child(path, "deviceClassName")
        )
    )
    errs.extend(_validate_request_body(sub, path, f"{parent}/{as_str(sub.get('name'))}", attrs))
    return errs


def _validate_request_body(body: dict, path: str, request_name: str, attrs: _Derived) -> list:
    """Selectors, derived attributes, allocation mode and tolerations (exact and sub-requests)."""
    errs = validate_selectors(as_list(body.get("selectors")), child(path, "selectors"))
    errs.extend(
        _validate_derived_attributes(
            as_list(body.get("derivedAttributes")),
            child(path, "derivedAttributes"),
            request_name,
            attrs,
        )
    )
    errs.extend(
        validate_allocation_mode(
            as_str(body.get("allocationMode")),
            body.get("count"),
            child(path, "allocationMode"),
            child(path, "count"),
        )
    )
    errs.extend(validate_tolerations(as_list(body.get("tolerations")), child(path, "tolerations")))
    return errs


def validate_allocation_mode(mode: str, count: object, mode_path: str, count_path: str) -> list:
    count_value = count if isinstance(count, int) else 0
    if mode == "All":
        if count_value != 0:
            return [
                invalid(
                    count_path, count_value, "must not be specified when allocationMode is 'All'"
                )
            ]
        return []
    if mode == "ExactCount":
        if count_value <= 0:
            return [invalid(count_path, count_value, "must be greater than zero")]
        return []
    return [not_supported(mode_path, mode, ALLOCATION_MODES)]


def _constraint_attributes(constraints: list) -> dict[str, set[str]]:
    """Attribute names used by constraints, keyed by the request they target ("" = all)."""
    attrs: dict[str, set[str]] = {}
    for constraint in constraints:
        constraint = as_dict(constraint)
        name = constraint.get("matchAttribute")
        if name is None:
            name = constraint.get("distinctAttribute")
        if name is None:
            continue
        targets = [as_str(r) for r in as_list(constraint.get("requests"))] or [""]
        for target in targets:
            attrs.setdefault(target, set()).add(as_str(name))
    return attrs


def _used_by_constraint(attr: str, request_name: str, attrs: dict[str, set[str]]) -> bool:
    if attr in attrs.get("", set()) or attr in attrs.get(request_name, set()):
        return True
    parent, sep, _ = request_name.partition("/")
    return bool(sep) and attr in attrs.get(parent, set())


DEVICE_DERIVED_ATTRIBUTES_MAX_SIZE = 32
"""``derivedAttributes``: ``+k8s:maxItems=32`` (1.37)."""


def _validate_derived_attributes(
    items: list, path: str, request_name: str, derived: _Derived
) -> list:
    """KEP-6080: each name required, fully qualified and used by a constraint on this request;
    each expression required and valid; at most 32, names unique."""

    def validate_item(item: object, item_path: str) -> list[FieldError]:
        item = as_dict(item)
        errs: list[FieldError] = []
        name = as_str(item.get("name"))
        name_path = child(item_path, "name")
        if not name:
            errs.append(required(name_path))
        else:
            errs.extend(validate_fully_qualified_name(name, name_path))
            if not _used_by_constraint(name, request_name, derived.attrs):
                errs.append(
                    invalid(
                        name_path,
                        name,
                        "must be referenced by at least one matchAttribute or "
                        "distinctAttribute constraint targeting this request",
                    )
                )
        expression = as_str(item.get("expression"))
        if not expression:
            errs.append(required(child(item_path, "expression")))
        else:
            errs.extend(
                validate_derived_attribute_expression(
                    expression, child(item_path, "expression"), derived.costs
                )
            )
        return errs

    return validate_set(
        items,
        DEVICE_DERIVED_ATTRIBUTES_MAX_SIZE,
        validate_item,
        lambda item: as_str(as_dict(item).get("name")),
        path,
    )


def _validate_constraint(constraint: dict, path: str, names: RequestNames) -> list[FieldError]:
    errs = validate_request_refs(
        as_list(constraint.get("requests")), child(path, "requests"), names
    )
    match_attribute = constraint.get("matchAttribute")
    distinct_attribute = constraint.get("distinctAttribute")
    if match_attribute is not None:
        errs.extend(
            validate_fully_qualified_name(as_str(match_attribute), child(path, "matchAttribute"))
        )
    elif distinct_attribute is not None:
        errs.extend(
            validate_fully_qualified_name(
                as_str(distinct_attribute), child(path, "distinctAttribute")
            )
        )
    else:
        errs.append(
            required(
                path,
                'exactly one of "matchAttribute" or "distinctAttribute" is required, but multiple '
                "fields are set",
            )
        )
    return errs


def _validate_claim_config(config: dict, path: str, names: RequestNames) -> list[FieldError]:
    errs = validate_request_refs(as_list(config.get("requests")), child(path, "requests"), names)
    errs.extend(validate_device_configuration(config, path))
    return errs
