"""The untracked fast path (``matches``) and the tracked one (``evaluate``) agree.

Expressions come from a small typed grammar over device attributes of every kind, library
values hidden behind ``dyn`` (cidr, ip, quantity, semver, url), literals and containers,
compared with every comparison operator and combined with logical operators, so nearly all
of them compile. Both paths must give the same value or the same error. A fixed seed in CI;
a larger budget with ``KUBEDRA_CEL_FUZZ_EXAMPLES``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubedra.cel import CelCompileError, CelEvaluationError, compile_selector
from kubedra.cel.device import CelDevice

A = 'device.attributes["gpu.example.com"]'
DEVICE = CelDevice.from_v1(
    {
        "name": "d",
        "attributes": {
            "model": {"string": "10.0.0.0/8"},
            "addr": {"string": "10.0.0.1"},
            "numa": {"int": 1},
            "ecc": {"bool": True},
            "ver": {"version": "1.0.0"},
            "links": {"ints": [1, 2]},
            "names": {"strings": ["1.0.0", "a"]},
        },
        "capacity": {"memory": {"value": "1"}},
    },
    "gpu.example.com",
)
EXAMPLES = int(os.environ.get("KUBEDRA_CEL_FUZZ_EXAMPLES", "300"))

_VALUES = st.sampled_from(
    [
        f"{A}.model",
        f"{A}.addr",
        f"{A}.numa",
        f"{A}.ecc",
        f"{A}.ver",
        f"{A}.links",
        f"{A}.names",
        f"{A}.missing",
        'device.capacity["gpu.example.com"].memory',
        "device.driver",
        'dyn(cidr("10.0.0.0/8"))',
        'dyn(ip("10.0.0.1"))',
        'dyn(quantity("1"))',
        'dyn(semver("1.0.0"))',
        'dyn(url("https://example.com"))',
        'cidr("10.0.0.0/8")',
        'semver("1.0.0")',
        "dyn(1)",
        "dyn(1u)",
        "dyn(1.0)",
        'dyn("10.0.0.0/8")',
        "dyn(true)",
        "dyn(null)",
        "dyn([1, 2])",
        'dyn(["1.0.0", "a"])',
        'dyn({"a": 1})',
        "1",
        "1.0",
        '"a"',
        "[1, 2]",
        f"[{A}.numa]",
        '[dyn(cidr("10.0.0.0/8"))]',
        f"[{A}.model]",
    ]
)
_COMPARE = st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "in"])


def _comparison(t: tuple[str, str, str]) -> str:
    return f"{t[0]} {t[1]} {t[2]}"


_ATOMS = st.tuples(_VALUES, _COMPARE, _VALUES).map(_comparison) | st.sampled_from(
    [f"{A}.ecc", f"has({A}.missing)", f"{A}.links.exists(x, x == 2)", f"{A}.names.includes(1)"]
)


def _extend(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(children, st.sampled_from(["&&", "||"]), children).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"
        ),
        children.map(lambda c: f"!({c})"),
        st.tuples(children, children, children).map(lambda t: f"({t[0]} ? {t[1]} : {t[2]})"),
    )


EXPRESSIONS = st.recursive(_ATOMS, _extend, max_leaves=4)


def _outcome(call: object) -> tuple[str, object]:
    try:
        return "value", call()  # type: ignore[operator]
    except CelEvaluationError as error:
        return "error", str(error)


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(EXPRESSIONS)
def test_fast_and_tracked_paths_agree(expression: str) -> None:
    try:
        selector = compile_selector(expression)
    except CelCompileError:
        return
    assert _outcome(lambda: selector.matches(DEVICE)) == _outcome(
        lambda: selector.evaluate(DEVICE)[0]
    ), expression


def test_library_value_against_another_type_is_upstreams_answer() -> None:
    """cel-go asks the left operand: Kubernetes' types refuse other types (no such
    overload), built-in types compare unequal; lists stop only at a false element."""
    cases = {
        f'dyn(cidr("10.0.0.0/8")) == {A}.model': "no such overload",
        f'dyn(ip("10.0.0.1")) == {A}.addr': "no such overload",
        f'dyn(quantity("1")) == {A}.numa': "no such overload",
        f'dyn(semver("1.0.0")) != {A}.model': "no such overload",
        f'{A}.model == dyn(cidr("10.0.0.0/8"))': False,
        f"dyn(1) == {A}.ver": False,
        f'[dyn(cidr("10.0.0.0/8"))] == [{A}.model]': True,
    }
    for expression, want in cases.items():
        selector = compile_selector(expression)
        for call in (selector.matches, lambda d, s=selector: s.evaluate(d)[0]):
            kind, got = _outcome(lambda c=call: c(DEVICE))
            if isinstance(want, bool):
                assert (kind, got) == ("value", want), expression
            else:
                assert kind == "error" and want in str(got), expression
