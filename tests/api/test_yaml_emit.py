"""The fast YAML writer round-trips through PyYAML for any JSON-like object."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kubedra.api.io import yaml_emit
from kubedra.api.io.reading import RawDocument, parse_yaml

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False)
    | st.text()
)
values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4)
    ),
    max_leaves=25,
)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.dictionaries(st.text(), values, max_size=5))
def test_round_trip(obj):
    assert yaml.safe_load(yaml_emit.dump(obj)) == obj


def test_keys_that_yaml_would_read_as_other_types_are_quoted():
    text = yaml_emit.dump({"on": 1, "null": 2, "10": 3, "apiVersion": "v1", "a b": []})
    assert text == '"on": 1\n"null": 2\n"10": 3\napiVersion: v1\n"a b": []\n'


WORD_LIST = [
    *("y", "Y", "n", "N", "yes", "On", "OFF", "NULL", "True", "~", "nan", ".inf", "1e3"),
    *("0x1F", "e5", "a.b", "x-1", "_a", "gpu.example.com/model", "16Gi", "1:20", "-1"),
    *("_2", "0o17", "017", "1_000", ".5", "+.inf", "09", "0b1", "1:1:1", "2026-01-01"),
]
WORDS = st.sampled_from(WORD_LIST) | st.from_regex(
    r"[A-Za-z_0-9.~-][A-Za-z0-9_./:~ -]{0,8}", fullmatch=True
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.dictionaries(WORDS, st.lists(WORDS, max_size=3) | WORDS, max_size=4))
def test_words_read_back_as_strings_in_both_yaml_readers(obj):
    """Plain scalars must stay strings for the YAML 1.1 reader and the fast YAML 1.2 one."""
    text = yaml_emit.dump(obj)
    assert yaml.safe_load(text) == obj
    [document] = list(parse_yaml(text, "test"))
    assert isinstance(document, RawDocument)
    assert document.content == obj


@pytest.mark.parametrize("word", WORD_LIST)
def test_each_word_reads_back_as_a_string_in_both_yaml_readers(word: str) -> None:
    """Every listed word, always (the property above samples them)."""
    obj = {word: [word], "k": word}
    text = yaml_emit.dump(obj)
    assert yaml.safe_load(text) == obj
    [document] = list(parse_yaml(text, "test"))
    assert isinstance(document, RawDocument)
    assert document.content == obj


@settings(max_examples=150, deadline=None, derandomize=True)
@given(values)
def test_flow_round_trip(value):
    """One flow line reads back as the value it was written from."""
    text = yaml_emit.flow(value)
    assert "\n" not in text
    assert yaml.safe_load(text) == value


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.dictionaries(WORDS, st.lists(WORDS, max_size=3) | WORDS, max_size=4)))
def test_flow_lines_read_back_as_strings_in_both_yaml_readers(records):
    """A list written one flow mapping per line (as traces are) means the same to both readers."""
    text = yaml_emit.flow_list(records)
    assert text.count("\n") == max(len(records), 1)
    assert yaml.safe_load(text) == records
    [document] = list(parse_yaml(text, "test"))
    assert isinstance(document, RawDocument)
    assert document.content == records
