"""Node selection as the kube-scheduler's ``nodeaffinity`` package evaluates it.

ResourceSlices (and, with per-device node selection, devices) say which nodes can reach them:
one node by name, all nodes, or a ``NodeSelector``. A selector that cannot be parsed is an
error rather than a mismatch, as upstream reports it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class NodeSelectorError(ValueError):
    """A node selector that upstream refuses to parse."""


class NodeInfo:
    """What node selection looks at: the node's name and labels (treat as immutable), and
    the features its kubelet declares (``status.declaredFeatures``, KEP-5328), which decide
    whether devices that skip node operations may be allocated there (KEP-5945)."""

    __slots__ = ("declared_features", "key", "labels", "name")

    def __init__(
        self,
        name: str,
        labels: Mapping[str, str] | None = None,
        declared_features: frozenset[str] = frozenset(),
    ) -> None:
        self.name = name
        self.labels: Mapping[str, str] = dict(labels or {})
        self.declared_features = declared_features
        # Identifies what node selection can see of this node, for caching per node.
        self.key = (name, tuple(sorted(self.labels.items())))

    @classmethod
    def from_v1(cls, node: Mapping[str, Any]) -> NodeInfo:
        """From a v1 Node; a wrong-typed name or label is an InputError naming the field."""
        meta = node.get("metadata") if isinstance(node, Mapping) else None
        meta = meta or {}
        name = meta.get("name") if isinstance(meta, Mapping) else None
        labels = (meta.get("labels") if isinstance(meta, Mapping) else None) or {}
        if not (
            isinstance(meta, Mapping)
            and isinstance(name, (str, type(None)))
            and isinstance(labels, Mapping)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in labels.items())
        ):
            from kubedra.allocator import inputs

            inputs.check("Node", node, inputs.NODE)
        status = node.get("status")
        declared = status.get("declaredFeatures") if isinstance(status, Mapping) else None
        features = frozenset(
            f for f in (declared if isinstance(declared, list) else ()) if isinstance(f, str)
        )
        return cls(name=name or "", labels=dict(labels), declared_features=features)


_LABEL_OPERATORS = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"}


def _parse_int(text: str, operator: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise NodeSelectorError(
            f"for '{operator}' operator, the value must be an integer, got {text!r}"
        ) from None


def _check_expression(req: Mapping[str, Any]) -> None:
    operator = req.get("operator")
    values = req.get("values") or []
    if operator not in _LABEL_OPERATORS:
        raise NodeSelectorError(f'"{operator}" is not a valid label selector operator')
    if operator in ("In", "NotIn") and not values:
        raise NodeSelectorError(
            f"for 'in', 'notin' operators, values set can't be empty (key {req.get('key')!r})"
        )
    if operator in ("Exists", "DoesNotExist") and values:
        raise NodeSelectorError(
            f"values set must be empty for exists and does not exist (key {req.get('key')!r})"
        )
    if operator in ("Gt", "Lt"):
        if len(values) != 1:
            raise NodeSelectorError(
                f"for 'Gt', 'Lt' operators, exactly one value is required (key {req.get('key')!r})"
            )
        _parse_int(str(values[0]), operator)


def _check_field(req: Mapping[str, Any]) -> None:
    if req.get("key") != "metadata.name":
        raise NodeSelectorError(f'"{req.get("key")}" is not a valid field selector key')
    if req.get("operator") not in ("In", "NotIn"):
        raise NodeSelectorError(f'"{req.get("operator")}" is not a valid field selector operator')
    if len(req.get("values") or []) != 1:
        raise NodeSelectorError(
            f"unexpected number of value ({len(req.get('values') or [])}) "
            "for node field selector operator"
        )


def _expression_matches(req: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    key = req.get("key", "")
    operator = req["operator"]
    values = req.get("values") or []
    present = key in labels
    if operator == "In":
        return present and labels[key] in values
    if operator == "NotIn":
        return not present or labels[key] not in values
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if not present:
        return False
    try:
        actual = int(labels[key])
    except ValueError:
        return False
    wanted = int(str(values[0]).strip())
    return actual > wanted if operator == "Gt" else actual < wanted


def _field_matches(req: Mapping[str, Any], name: str) -> bool:
    equal = name == req["values"][0]
    return equal if req["operator"] == "In" else not equal


def check_selector(selector: Mapping[str, Any]) -> None:
    """Raise NodeSelectorError when upstream would fail to parse ``selector``."""
    for term in selector.get("nodeSelectorTerms") or []:
        for req in term.get("matchExpressions") or []:
            _check_expression(req)
        for req in term.get("matchFields") or []:
            _check_field(req)


def selector_matches(selector: Mapping[str, Any], node: NodeInfo) -> bool:
    """True when any term of the NodeSelector matches the node (terms are ORed)."""
    check_selector(selector)
    for term in selector.get("nodeSelectorTerms") or []:
        expressions = term.get("matchExpressions") or []
        fields_ = term.get("matchFields") or []
        if not expressions and not fields_:
            continue
        if all(_expression_matches(r, node.labels) for r in expressions) and all(
            _field_matches(r, node.name) for r in fields_
        ):
            return True
    return False


def node_matches(
    node: NodeInfo, node_name: str, all_nodes: bool, selector: Mapping[str, Any] | None
) -> bool:
    """Whether a slice or device with these node-access fields is reachable from ``node``."""
    if node_name:
        return node.name == node_name
    if all_nodes:
        return True
    if selector is not None:
        return selector_matches(selector, node)
    return False
