"""Fuzzing the cost bound: well-typed expressions over nested, shared lists.

The untracked path (``CompiledSelector.matches`` without accounting) is only sound where
the static estimate bounds the actual cost, and every evaluation must stop at the limit
in bounded time whatever upstream leaves uncharged (issue 23 item 2: ``flatten`` of shared
lists, ``format``, ``replace``, list ``+``, deep equality). The generator builds
expressions that type-check (lists of ints, lists of such lists, shared through
``cel.bind``), so nearly every input reaches the evaluator. Checked for each: the tracked
and untracked answers agree, a cost-bounded program's actual cost is within its estimate,
and compile plus both evaluations take bounded time.

CI runs a fixed seed with a small budget; a long run, e.g.::

    KUBEDRA_COST_FUZZ_EXAMPLES=3000 python -m pytest tests/cel/test_cost_bound_fuzz.py -q -s

prints how many expressions it evaluated.
"""

from __future__ import annotations

import os
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubedra.cel import CelCompileError, CelEvaluationError, compile_selector
from kubedra.cel.device import CelDevice
from kubedra.cel.environment import FAST_PATH_MARGIN

EXAMPLES = int(os.environ.get("KUBEDRA_COST_FUZZ_EXAMPLES", "150"))
TIME_BOUND = 5.0  # seconds for compile and both evaluations: catches hangs, not load spikes
DEVICE = CelDevice.from_v1({"name": "d", "attributes": {}}, "gpu.example.com")
STATS = {"expressions": 0, "evaluated": 0, "bounded": 0, "limit": 0}

_NUMBERS = st.sampled_from(["0", "1", "2", "3", "10", "-1"])
Node = tuple[str, str]  # ("I", a list(int) expression) or ("N", a list(list(int)) one)


def _ints(node: Node) -> str:
    return node[1] if node[0] == "I" else f"{node[1]}.flatten()"


def _nested(node: Node) -> str:
    return node[1] if node[0] == "N" else f"[{node[1]}]"


def _extend(children: st.SearchStrategy[Node]) -> st.SearchStrategy[Node]:
    pairs = st.tuples(children, children)
    return st.one_of(
        pairs.map(lambda t: ("I", f"({_ints(t[0])} + {_ints(t[1])})")),
        children.map(lambda c: ("I", f"{_ints(c)}.reverse()")),
        children.map(lambda c: ("I", f"{_ints(c)}.distinct()")),
        children.map(lambda c: ("I", f"{_ints(c)}.map(i, i * 2)")),
        children.map(lambda c: ("I", f"{_ints(c)}.filter(i, i > 0)")),
        st.tuples(children, _NUMBERS).map(lambda t: ("I", f"{_ints(t[0])}.slice(0, {t[1]})")),
        children.map(lambda c: ("I", f"{_nested(c)}.flatten()")),
        pairs.map(lambda t: ("N", f"[{_ints(t[0])}, {_ints(t[1])}]")),
        pairs.map(lambda t: ("N", f"{_ints(t[0])}.map(i, {_ints(t[1])})")),
        pairs.map(lambda t: ("N", f"({_nested(t[0])} + {_nested(t[1])})")),
    )


def _lists(names: list[Node]) -> st.SearchStrategy[Node]:
    """list(int) and list(list(int)) expressions over literals and the given variables."""
    atoms: list[Node] = [
        ("I", "[1, 2, 3]"),
        ("I", "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0]"),
        ("I", "[]"),
        ("I", "lists.range(4)"),
        ("N", "[[1], [2, 3]]"),
        *names,
    ]
    return st.recursive(st.sampled_from(atoms), _extend, max_leaves=6)


_LITERAL = _lists([])
_BOUND = _lists([("I", "a"), ("I", "b"), ("N", "c"), ("N", "d")])
_TESTS = st.one_of(
    st.tuples(_BOUND, _NUMBERS).map(lambda t: f"{_ints(t[0])}.size() > {t[1]}"),
    st.tuples(_BOUND, _BOUND).map(lambda t: f"{_ints(t[0])} == {_ints(t[1])}"),
    st.tuples(_BOUND, _BOUND).map(lambda t: f"{_nested(t[0])} == {_nested(t[1])}"),
    st.tuples(_NUMBERS, _BOUND).map(lambda t: f"{t[0]} in {_ints(t[1])}"),
    _BOUND.map(lambda c: f"{_ints(c)}.all(i, i >= 0)"),
    _BOUND.map(lambda c: f"{_ints(c)}.exists(i, i == 3)"),
    _BOUND.map(lambda c: f'"%s".format([{c[1]}]).size() > 0'),
    _BOUND.map(lambda c: f"{_ints(c)}.map(i, string(i)).join(',').replace('', 'xyz').size() > 0"),
)


def _bound(fan: int, inner: Node, b: str, d: str, body: str) -> str:
    """Bind a (list(int)) and c (list(list(int))) to shared values, then b and d from
    them, ``fan`` references each: sharing is what makes nested values large."""
    return (
        f"cel.bind(a, {_ints(inner)}, cel.bind(b, {b}, "
        f"cel.bind(c, [{', '.join(['a'] * fan)}], "
        f"cel.bind(d, {d.replace('FAN', ', '.join(['c'] * fan))}, {body}))))"
    )


EXPRESSIONS = st.builds(
    _bound,
    st.integers(1, 12),
    _LITERAL,
    st.sampled_from(["a + a", "a.reverse()", "a.map(i, i + 1)"]),
    st.sampled_from(["[FAN].flatten()", "c.map(x, x)", "[FAN][0]"]),
    _TESTS,
)


def _outcome(call: object) -> tuple[str, object]:
    try:
        return "value", call()  # type: ignore[operator]
    except CelEvaluationError as error:
        return "error", str(error)


def _check(expression: str) -> None:
    STATS["expressions"] += 1
    started = time.perf_counter()
    try:
        selector = compile_selector(expression)
    except CelCompileError:
        return
    STATS["evaluated"] += 1
    tracked = _outcome(lambda: selector.evaluate(DEVICE))
    if tracked[0] == "value":
        value, cost = tracked[1]  # type: ignore[misc]
        if selector.cost_bounded:
            STATS["bounded"] += 1
            assert cost <= FAST_PATH_MARGIN * (selector.cost_bound or 0), expression
        tracked = ("value", value)
    elif "cost limit" in str(tracked[1]):
        STATS["limit"] += 1
    fast = _outcome(lambda: selector.matches(DEVICE))
    assert fast == tracked, expression
    assert time.perf_counter() - started < TIME_BOUND, expression


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(EXPRESSIONS, min_size=5, max_size=5))
def test_nested_list_expressions_stay_within_their_bounds(expressions: list[str]) -> None:
    for expression in expressions:
        _check(expression)


def test_zz_report_counts() -> None:
    """Runs last in this module: how many expressions were fed and evaluated (``-s``)."""
    print(
        f"\nCEL cost-bound fuzz: {STATS['expressions']} expressions, {STATS['evaluated']} "
        f"evaluated, {STATS['bounded']} cost-bounded, {STATS['limit']} at the cost limit"
    )
    assert STATS["evaluated"] >= min(EXAMPLES, 100)
