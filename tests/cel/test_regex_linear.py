"""Regular expressions run in linear time (issue 15 item 3).

Python's ``re`` backtracks; kubedra only uses it for inputs short enough that the number of
backtracking paths is provably small, RE2 otherwise. These tests would have caught the
474-second match: they time the exact expression and check the fast path still agrees with
RE2 wherever it is used.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubedra.cel import CelCompileError, CelEvaluationError, compile_selector
from kubedra.cel.device import CelDevice
from kubedra.cel.regex import FAST_PATH_BUDGET, compile_regex

EXPONENTIAL = "^" + "a{0,10}" * 11 + "b$"


def _device(value: str) -> CelDevice:
    return CelDevice.from_v1(
        {"name": "d", "attributes": {"attr": {"string": value}}}, "gpu.example.com"
    )


def test_exponential_pattern_on_an_attribute_is_fast() -> None:
    selector = compile_selector(
        f'device.attributes["gpu.example.com"].attr.matches("{EXPONENTIAL}")'
    )
    device = _device("a" * 64)
    started = time.perf_counter()
    assert selector.matches(device) is False
    assert selector.evaluate(device)[0] is False
    assert time.perf_counter() - started < 0.5
    # The estimate stays upstream's: 4 + ceil(65 * 0.1) * ceil(80 * 0.25) = 4 + 7 * 20.
    assert selector.estimated_max_cost == 144


def test_exponential_constant_pattern_folds_quickly() -> None:
    started = time.perf_counter()
    selector = compile_selector(f'"{"a" * 64}".matches("{EXPONENTIAL}")')
    assert selector.matches(_device("")) is False
    assert time.perf_counter() - started < 0.5


@pytest.mark.parametrize(
    "pattern",
    ["^.*a.*a.*a.*a.*b$", "a*a*a*a*a*a*a*b", "(a|aa|aaa)(a|aa|aaa)(a|aa|aaa)x", "^(.*)(.*)(.*)z$"],
)
def test_polynomial_blowups_are_bounded(pattern: str) -> None:
    regex = compile_regex(pattern)
    started = time.perf_counter()
    for n in (8, 64, 256, 4096):
        regex.matches("a" * n)
    assert time.perf_counter() - started < 0.5


@pytest.mark.parametrize(
    ("pattern", "operator"),
    [("a{9223372036854775807,10}", "{9223372036854775807,10}"), ("a{1001}", "{1001}")],
)
def test_huge_repeat_counts_get_gos_error(pattern: str, operator: str) -> None:
    message = f"error parsing regexp: invalid repeat count: `{operator}`"
    # A literal pattern is refused at compile time by cel-go's regex literal validator.
    with pytest.raises(CelCompileError, match="invalid matches argument"):
        compile_selector(f'"x".matches("{pattern}")')
    with pytest.raises(CelEvaluationError) as info:
        compile_regex(pattern)
    assert str(info.value) == message


@settings(derandomize=True, max_examples=300, deadline=None)
@given(
    pattern=st.lists(
        st.sampled_from(
            ["a", "b", ".", "[ab]", "a*", "b+", "a?", "a{0,3}", "(a|b)", "^", "$", "|"]
        ),
        max_size=8,
    ).map("".join),
    text=st.text(alphabet="ab\n", max_size=40),
)
def test_fast_path_agrees_with_re2(pattern: str, text: str) -> None:
    try:
        regex = compile_regex(pattern)
    except CelEvaluationError:
        return
    assert regex.matches(text) == (regex.search(text) is not None)


def test_budget_is_small() -> None:
    """The bound is on backtracking steps of Python's engine: well under a millisecond's
    worth of work per step budget keeps a worst case within milliseconds."""
    assert FAST_PATH_BUDGET <= 1_000_000
