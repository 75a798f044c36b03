"""The CEL language core: parsing, type checking, evaluation semantics, cost, devices, regex."""

from __future__ import annotations

import pytest

from kubedra.cel import CelCompileError, CelCostLimitError, CelEvaluationError, compile_selector
from kubedra.cel.ast import Const
from kubedra.cel.device import CelDevice
from kubedra.cel.environment import Environment, standard_registry
from kubedra.cel.parser import ParseError, parse
from kubedra.cel.regex import _translate, compile_regex
from kubedra.cel.types import DYN, INT
from kubedra.cel.values import Duration, UInt

ENV = Environment(standard_registry(), {"x": DYN, "n": INT})


def run(expression: str, **bindings: object) -> object:
    value, _cost = ENV.compile(expression).evaluate({"x": None, "n": 0, **bindings})
    return value


# parsing --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "value"),
    [
        ('"\\x41\\u00e9\\101\\n"', "A\u00e9A\n"),
        ("r'\\d+'", "\\d+"),
        ("'''a\nb'''", "a\nb"),
        ('b"\\xff\\000"', b"\xff\x00"),
        ("0x1F", 31),
        ("18446744073709551615u", UInt(18446744073709551615)),
        (".5", 0.5),
        ("1e3", 1000.0),
    ],
)
def test_literals_decode_like_cel_go(source: str, value: object) -> None:
    node = parse(source)
    assert isinstance(node, Const)
    assert node.value == value
    assert type(node.value) is type(value)


def test_negative_literal_and_operator_runs() -> None:
    assert run("-9223372036854775808 < 0") is True
    assert run("--1 == 1 && !!true") is True  # even runs cancel, as in cel-go's parser
    with pytest.raises(CelCompileError, match="invalid int literal"):
        ENV.compile("9223372036854775808")


def test_syntax_errors_carry_positions() -> None:
    with pytest.raises(CelCompileError) as err:
        ENV.compile("(n == 1")
    assert "ERROR: <input>:1:8: Syntax error: missing ')' at '<EOF>'" in str(err.value)
    with pytest.raises(ParseError) as perr:
        parse("(" * 300 + "1" + ")" * 300)
    assert "recursion limit exceeded: 250" in perr.value.message


def test_reserved_words_only_rejected_as_identifiers() -> None:
    assert run("{'if': 1}.if == 1") is True
    with pytest.raises(CelCompileError, match="reserved identifier: if"):
        ENV.compile("if")


# type checking --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("1 == 1u", "found no matching overload for '_==_' applied to '(int, uint)'"),
        ('"a".size(1)', "found no matching overload for 'size' applied to 'string.(int)'"),
        ("[1, 'a']", "expected type 'int' but found 'string'"),
        ("nope", "undeclared reference to 'nope' (in container '')"),
        ("1.all(x, x)", "cannot be range of a comprehension"),
        ('duration("1y")', "invalid duration argument"),
        ('"a".matches("(")', "invalid matches argument"),
        ("int('x')", "program instantiation failed: type conversion error"),
    ],
)
def test_compile_errors(expression: str, message: str) -> None:
    with pytest.raises(CelCompileError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ENV.compile(expression)


def test_result_types() -> None:
    assert str(ENV.compile("[1.5].map(v, v * 2.0)").output_type) == "list(double)"
    assert str(ENV.compile("{'a': [1u]}").output_type) == "map(string, list(uint))"
    assert str(ENV.compile("optional.of(1).orValue(2)").output_type) == "int"


# evaluation -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("n + 9223372036854775807 + 1 > 0", "integer overflow"),
        ("1u - 2u == 0u", "unsigned integer overflow"),
        ("n / 0 == 0", "division by zero"),
        ("n % 0 == 0", "modulus by zero"),
        ("[1][n + 1] == 1", "index out of bounds: 1"),
        ("{'a': 1}['b'] == 1", "no such key: b"),
        ("optional.none().value() == 1", "optional.none() dereference"),
        ("dyn('a') < dyn(1)", "no such overload"),
        ('timestamp("9999-12-31T23:59:59Z") + duration("1s") > timestamp(0)', "timestamp overflow"),
    ],
)
def test_runtime_errors(expression: str, message: str) -> None:
    with pytest.raises(CelEvaluationError, match=message.replace("(", r"\(").replace(")", r"\)")):
        run(expression)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("(1 / 0 == 0) || true", True),
        ("true || (1 / 0 == 0)", True),
        ("(1 / 0 == 0) && false", False),
        ("[0, 1].exists(v, 1 / v == 1)", True),
        ("[0, 1].all(v, v > 0 && 1 / v == 1)", False),
        ("cel.bind(unused, 1 / 0, true)", True),
        ("-7 / 2 == -3 && -7 % 2 == -1", True),
        ("dyn(1) == 1.0 && dyn(1u) == 1", True),
        ("dyn(9223372036854775807) < 9223372036854775808.0", False),
        ("{'a': {'b': 1}}.?a.?b.orValue(0) == 1", True),
        ("{'a': {}}.?a.b.hasValue()", False),
        ("[1, ?optional.none(), ?optional.of(3)] == [1, 3]", True),
        ("[1, 2, 3].exists_one(v, v > 2)", True),
        ("[1, 2].transformMap(i, v, v * 10) == {0: 10, 1: 20}", True),
        ("{'a': 1}.transformList(k, v, k + string(v)) == ['a1']", True),
        ("'ab'.matches('^a') && !'ab'.matches('b$\\n')", True),
        ('timestamp("2024-03-10T12:00:00Z").getHours("America/New_York") == 8', True),
        ('timestamp("2024-01-01T00:00:00Z").getDayOfWeek("+01:00") == 1', True),
        ('duration("1h30m").getMinutes() == 90', True),
        ("string(1e6) == '1e+06' && string(123456.0) == '123456'", True),
        ("type(1u) == uint && type([]) == list", True),
    ],
)
def test_semantics(expression: str, expected: object) -> None:
    assert run(expression) == expected


def test_duration_values() -> None:
    assert run('duration("-1.5s")') == Duration(-1_500_000_000)


# cost -----------------------------------------------------------------------------------


def test_runtime_cost_and_limit() -> None:
    program = ENV.compile("[1, 2, 3].all(v, v > 0)")
    # per element: loop condition 2, accumulator 1, predicate 2; then the result 1
    assert program.evaluate({"x": None, "n": 0}) == (True, 16)
    looping = ENV.compile("[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, "
                          "[1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, "
                          "[1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, "
                          "a + b + c + d + e + f > 0))))))")  # fmt: skip
    with pytest.raises(CelCostLimitError, match="actual cost limit exceeded"):
        looping.evaluate({"x": None, "n": 0})


def test_estimated_cost_bounds_actual_cost() -> None:
    device = CelDevice.from_v1(
        {"name": "d", "attributes": {"links": {"ints": list(range(48))}}}, "gpu.example.com"
    )
    selector = compile_selector('device.attributes["gpu.example.com"].links.all(l, l >= 0)')
    _, actual = selector.evaluate(device)
    assert actual <= selector.estimated_max_cost < 1_000_000


# devices --------------------------------------------------------------------------------


def test_device_domains_and_bad_versions() -> None:
    device = CelDevice.from_v1(
        {
            "name": "d",
            "attributes": {"a": {"int": 1}, "other.io/b": {"bool": True}},
            "capacity": {"mem": {"value": "1Gi"}},
        },
        "drv.io",
    )
    value = device.variables["device"]
    assert value["attributes"]["drv.io"] == {"a": 1}
    assert value["attributes"]["other.io"] == {"b": True}
    assert value["attributes"]["unknown.io"] == {}
    broken = CelDevice.from_v1({"name": "d", "attributes": {"v": {"version": "x"}}}, "drv.io")
    with pytest.raises(CelEvaluationError, match="attribute v: parse semantic version"):
        compile_selector("true").matches(broken)


# regex ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pattern",
    ["^A[0-9]+$", "a|b$", "x{2,3}", "[^a-c]\\d", "(?:ab)c?", "\\bword\\b", "^$", "a.b"],
)
@pytest.mark.parametrize("text", ["A100", "ab", "xxx", "zz9", "abc", "a word!", "", "a\nb", "b\n"])
def test_fast_regex_agrees_with_re2(pattern: str, text: str) -> None:
    regex = compile_regex(pattern)
    assert _translate(pattern) is not None
    assert regex.matches(text) == (regex._re2.search(text) is not None)


@pytest.mark.parametrize("pattern", ["(a+)+b", "\\pL", "[[:alpha:]]", "(?i)a"])
def test_risky_patterns_stay_on_re2(pattern: str) -> None:
    assert _translate(pattern) is None


def test_matches_enforces_the_cost_limit_like_evaluate() -> None:
    """A straight-line selector whose library call is expensive is not put on the
    untracked fast path: both entry points stop at the limit."""
    selector = compile_selector("lists.range(1100000).size() > 0")
    device = CelDevice.from_v1({"name": "d"}, "drv.io")
    with pytest.raises(CelCostLimitError):
        selector.evaluate(device)
    with pytest.raises(CelCostLimitError):
        selector.matches(device)


def test_double_conversion_rejects_overflowing_text() -> None:
    assert run("double('-inf') < 0.0 && double('1e308') > 0.0") is True
    with pytest.raises(CelEvaluationError, match="type conversion error from 'string' to 'double'"):
        run("double(x)", x="1e400")
