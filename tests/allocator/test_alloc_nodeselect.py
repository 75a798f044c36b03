"""Node selectors as nodeaffinity evaluates them."""

from __future__ import annotations

import pytest

from kubedra.allocator.nodeselect import NodeInfo, NodeSelectorError, node_matches, selector_matches

NODE = NodeInfo("node-1", {"zone": "a", "gpus": "4"})


def _expr(key: str, operator: str, *values: str) -> dict[str, object]:
    req: dict[str, object] = {"key": key, "operator": operator}
    if values:
        req["values"] = list(values)
    return {"nodeSelectorTerms": [{"matchExpressions": [req]}]}


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        (_expr("zone", "In", "a", "b"), True),
        (_expr("zone", "NotIn", "a"), False),
        (_expr("rack", "NotIn", "x"), True),
        (_expr("zone", "Exists"), True),
        (_expr("rack", "DoesNotExist"), True),
        (_expr("gpus", "Gt", "3"), True),
        (_expr("gpus", "Lt", "3"), False),
        ({"nodeSelectorTerms": [{}]}, False),
        (
            {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["x"]}]},
                    {
                        "matchFields": [
                            {"key": "metadata.name", "operator": "In", "values": ["node-1"]}
                        ]
                    },
                ]
            },
            True,
        ),
    ],
)
def test_selector_semantics(selector: dict[str, object], expected: bool) -> None:
    assert selector_matches(selector, NODE) is expected


def test_unparsable_selector_is_an_error() -> None:
    with pytest.raises(NodeSelectorError):
        selector_matches(_expr("zone", "Like", "a"), NODE)
    with pytest.raises(NodeSelectorError):
        selector_matches(_expr("gpus", "Gt", "many"), NODE)


def test_node_name_all_nodes_and_nothing() -> None:
    assert node_matches(NODE, "node-1", False, None)
    assert not node_matches(NODE, "node-2", True, None)
    assert node_matches(NODE, "", True, None)
    assert not node_matches(NODE, "", False, None)
