"""Library calls on arguments of every kind fail with CEL errors, never a Python exception."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kubedra.cel import CelCompileError, CelEvaluationError, compile_selector
from kubedra.cel.device import CelDevice

DEVICE = CelDevice.from_v1(
    {
        "name": "x",
        "attributes": {
            "v": {"version": "1.2.3"},
            "s": {"string": "abc"},
            "n": {"int": 3},
            "l": {"ints": [3, 1, 2]},
        },
        "capacity": {"m": {"value": "1.5Gi"}, "c": {"value": "2"}},
    },
    "d",
)
ATOMS = [
    '""', '"abc"', '"a%sb"', '"%d"', '"%.2f"', '"%e"', '"%"', '"1.5Gi"', '"1.2.3"',
    '"10.0.0.1"', '"10.0.0.0/8"', '"https://x/y?z=1"', '"[a-z]+"', '"("', "0", "1", "-1",
    "100", "1u", "1.5", "true", "null", "[]", "[1, 2]", '["a", "b"]', "{}", '{"a": 1}',
    'device.attributes["d"].v', 'device.attributes["d"].s', 'device.attributes["d"].n',
    'device.attributes["d"].l', 'device.capacity["d"].m', 'quantity("1")', 'semver("1.0.0")',
    'ip("::1")', 'cidr("::/0")', 'url("https://a/")', "dyn(1)", 'dyn("x")', "dyn([1])",
]  # fmt: skip
FUNCTIONS = [
    "quantity", "isQuantity", "semver", "isSemver", "ip", "isIP", "cidr", "isCIDR", "url",
    "isURL", "sign", "ip.isCanonical", "lists.range", "strings.quote", "sets.contains",
    "sets.equivalent", "sets.intersects", "format.named",
]  # fmt: skip
METHODS = [
    "compareTo", "isLessThan", "isGreaterThan", "add", "sub", "isInteger", "asInteger",
    "asApproximateFloat", "major", "minor", "patch", "isSorted", "sum", "min", "max",
    "indexOf", "lastIndexOf", "find", "findAll", "getScheme", "getHost", "getHostname",
    "getPort", "getEscapedPath", "getQuery", "family", "isUnspecified", "isLoopback",
    "isGlobalUnicast", "containsIP", "containsCIDR", "masked", "prefixLength", "charAt",
    "lowerAscii", "upperAscii", "replace", "split", "substring", "trim", "join", "format",
    "sort", "distinct", "flatten", "slice", "reverse", "first", "last", "includes", "validate",
]  # fmt: skip

args = st.lists(st.sampled_from(ATOMS), max_size=3).map(", ".join)
calls = st.one_of(
    st.builds(lambda f, a: f"{f}({a})", st.sampled_from(FUNCTIONS), args),
    st.builds(
        lambda r, m, a: f"{r}.{m}({a})", st.sampled_from(ATOMS), st.sampled_from(METHODS), args
    ),
)


@settings(max_examples=1500, deadline=None)
@given(calls)
def test_library_calls_only_raise_cel_errors(call: str) -> None:
    expression = f"{call} == {call}"
    try:
        compile_selector(expression).evaluate(DEVICE)
    except CelCompileError:
        pass
    except CelEvaluationError as err:
        assert "internal error" not in str(err), expression
