"""Label and field selectors as ``?labelSelector=`` and ``?fieldSelector=`` carry them.

Label selectors take apimachinery's syntax: ``a=b``, ``a==b``, ``a!=b``, ``a in (x,y)``,
``a notin (x)``, ``a`` and ``!a``, comma separated. Field selectors take ``=``, ``==`` and
``!=`` on the fields the apiserver indexes for the kind (``metadata.name`` and
``metadata.namespace`` everywhere); any other field is a 400, as upstream.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kubedra.apiserver.status import bad_request

Matcher = Callable[[dict[str, Any]], bool]

_SET_RE = re.compile(r"^\s*(!?)\s*([^\s!=<>(),]+)\s*(?:(in|notin)\s*\(([^)]*)\))?\s*$")
_OP_RE = re.compile(r"^\s*([^\s!=<>(),]+)\s*(==|=|!=)\s*([^\s!=<>(),]*)\s*$")

FIELDS: dict[str, tuple[str, ...]] = {
    "Pod": (
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.schedulerName",
        "spec.serviceAccountName",
        "spec.hostNetwork",
        "status.phase",
        "status.podIP",
        "status.nominatedNodeName",
    ),
    "Node": ("spec.unschedulable",),
    "Namespace": ("status.phase",),
    "ResourceSlice": ("spec.nodeName", "spec.driver"),
    "Event": (
        "involvedObject.kind",
        "involvedObject.namespace",
        "involvedObject.name",
        "involvedObject.uid",
        "involvedObject.apiVersion",
        "involvedObject.resourceVersion",
        "involvedObject.fieldPath",
        "reason",
        "reportingComponent",
        "source",
        "type",
    ),
}
"""Fields each kind can be selected by besides metadata.name/namespace (upstream's lists)."""


@dataclass(frozen=True)
class _Requirement:
    key: str
    op: str
    values: tuple[str, ...]

    def matches(self, labels: dict[str, Any]) -> bool:
        present = self.key in labels
        value = str(labels.get(self.key, ""))
        if self.op == "exists":
            return present
        if self.op == "!":
            return not present
        if self.op in ("=", "==", "in"):
            return present and value in self.values
        return not present or value not in self.values  # "!=", "notin"


def _split_top_level(text: str) -> list[str]:
    """Split at commas that are not inside parentheses."""
    parts: list[str] = []
    depth = 0
    current = ""
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return [part for part in parts if part.strip()]


def label_matcher(selector: str | None) -> Matcher:
    """A predicate over objects for ``selector`` (everything when empty)."""
    if not selector or not selector.strip():
        return lambda obj: True
    requirements: list[_Requirement] = []
    for part in _split_top_level(selector):
        op_match = _OP_RE.match(part)
        if op_match:
            key, op, value = op_match.groups()
            requirements.append(_Requirement(key, op, (value,)))
            continue
        set_match = _SET_RE.match(part)
        if set_match is None:
            raise bad_request(f"unable to parse requirement: found {part.strip()!r}")
        bang, key, set_op, values = set_match.groups()
        if set_op:
            if bang:
                raise bad_request(f"unable to parse requirement: found {part.strip()!r}")
            items = tuple(value.strip() for value in values.split(",") if value.strip())
            requirements.append(_Requirement(key, set_op, items))
        else:
            requirements.append(_Requirement(key, "!" if bang else "exists", ()))

    def matches(obj: dict[str, Any]) -> bool:
        labels = (obj.get("metadata") or {}).get("labels") or {}
        return all(requirement.matches(labels) for requirement in requirements)

    return matches


def field_value(obj: dict[str, Any], path: str) -> str:
    """The field's value as a selector compares it ("" when unset; booleans lower case)."""
    value: Any = obj
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    if path == "source" and isinstance(value, dict):
        value = value.get("component")
    if value is None:
        return "false" if path in ("spec.unschedulable", "spec.hostNetwork") else ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def field_matcher(selector: str | None, kind: str) -> Matcher:
    """A predicate for a field selector on ``kind``; unknown fields are a 400 ApiError."""
    if not selector or not selector.strip():
        return lambda obj: True
    allowed = {"metadata.name", "metadata.namespace", *FIELDS.get(kind, ())}
    terms: list[tuple[str, bool, str]] = []
    for part in selector.split(","):
        if not part.strip():
            continue
        for op in ("!=", "==", "="):
            if op in part:
                field, _, value = part.partition(op)
                break
        else:
            raise bad_request(f"invalid selector: {selector!r}; can't understand {part!r}")
        field = field.strip()
        if field not in allowed:
            raise bad_request(f"field label not supported: {field}")
        terms.append((field, op == "!=", value.strip()))

    def matches(obj: dict[str, Any]) -> bool:
        return all((field_value(obj, field) == value) != negate for field, negate, value in terms)

    return matches
