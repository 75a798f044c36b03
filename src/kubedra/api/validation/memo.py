"""Validation answered once per shape: the pods and claims of a workload differ in names only.

A simulation creates thousands of pods and ResourceClaims that are copies of a few shapes,
differing in ``metadata.name`` and, for a pod, the ``resourceClaimName`` of its claims. For
these two kinds validation reads those names in one way only: each is a string checked with
``name_is_dns_subdomain`` (the "both or neither of resourceClaimName and
resourceClaimTemplateName" rules look at whether it is set, not at its value). So an object
that equals one found valid, up to those names, is valid when each of its own names passes
that check. Anything else, and every object that has errors, goes through
``validate_object`` in full (errors keep upstream's order and messages).
"""

from __future__ import annotations

from typing import Any

from kubedra.api.validation.api import validate_object
from kubedra.api.validation.errors import FieldError
from kubedra.api.validation.names import name_is_dns_subdomain

MAX_SHAPES = 4096
"""Remembered valid shapes; the memory is emptied when a run makes more (a trace of many
distinct shapes pays plain validation, never unbounded memory)."""

_PLACEHOLDER = "name"


class ValidationMemo:
    """``validate_object`` with the valid shapes of pods and claims remembered."""

    def __init__(self) -> None:
        self._valid: set[str] = set()

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        """The errors of ``validate_object(obj)`` (an empty list when it is valid)."""
        shaped = _shape(obj)
        if shaped is None:
            return validate_object(obj)
        key, names = shaped
        if key in self._valid and not any(name_is_dns_subdomain(n, False) for n in names):
            return []
        errors = validate_object(obj)
        if not errors:
            if len(self._valid) >= MAX_SHAPES:
                self._valid.clear()
            self._valid.add(key)
        return errors


def _shape(obj: dict[str, Any]) -> tuple[str, list[str]] | None:
    """The object with its names replaced, as a key, and the names; None where the kind or
    the object's form is not one whose validity is known per shape."""
    kind = obj.get("kind")
    if kind != "Pod" and kind != "ResourceClaim":
        return None
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return None
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        return None
    names = [name]
    shaped = {**obj, "metadata": {**meta, "name": _PLACEHOLDER}}
    if kind == "Pod":
        spec = obj.get("spec")
        if isinstance(spec, dict) and "resourceClaims" in spec:
            claims = spec["resourceClaims"]
            if not isinstance(claims, list):
                return None
            placed: list[Any] = []
            for claim in claims:
                if isinstance(claim, dict) and "resourceClaimName" in claim:
                    claim_name = claim["resourceClaimName"]
                    if not isinstance(claim_name, str):
                        return None
                    names.append(claim_name)
                    claim = {**claim, "resourceClaimName": _PLACEHOLDER}
                placed.append(claim)
            shaped["spec"] = {**spec, "resourceClaims": placed}
    # repr, not JSON: it keeps 1 apart from "1" and True (a dict key or value of the wrong
    # type must not borrow the validity of the right one).
    return repr(shaped), names
