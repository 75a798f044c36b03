"""Validator of ``policy/v1`` PodDisruptionBudget (the apiserver's rules that matter here):
``minAvailable`` and ``maxUnavailable`` are exclusive, each a non-negative integer or a
percentage."""

from __future__ import annotations

import re

from kubedra.api.validation.errors import FieldError, invalid
from kubedra.api.validation.meta import validate_object_meta
from kubedra.api.validation.names import name_is_dns_subdomain
from kubedra.api.validation.resource_common import as_dict

_PERCENT = re.compile(r"^[0-9]+%$")


def _int_or_percent(value: object, path: str) -> list[FieldError]:
    if isinstance(value, bool):
        return [invalid(path, value, "must be an integer or percentage (e.g '5%')")]
    if isinstance(value, int):
        if value < 0:
            return [invalid(path, value, "must be greater than or equal to 0")]
        return []
    if isinstance(value, str) and _PERCENT.match(value):
        if int(value[:-1]) > 100:
            return [invalid(path, value, "must not be greater than 100%")]
        return []
    return [invalid(path, value, "must be an integer or percentage (e.g '5%')")]


def validate_pod_disruption_budget(obj: dict) -> list[FieldError]:
    meta = as_dict(obj.get("metadata"))
    errs = validate_object_meta(meta, True, name_is_dns_subdomain)
    spec = as_dict(obj.get("spec"))
    for field in ("minAvailable", "maxUnavailable"):
        if spec.get(field) is not None:
            errs.extend(_int_or_percent(spec[field], f"spec.{field}"))
    if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        errs.append(
            invalid(
                "spec",
                spec,
                "minAvailable and maxUnavailable cannot be both set",
            )
        )
    return errs
