"""The fast YAML writer round-trips through PyYAML for any JSON-like object."""

from __future__ import annotations

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kubedra.driver import yaml_emit

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


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(), values, max_size=5))
def test_round_trip(obj):
    assert yaml.safe_load(yaml_emit.dump(obj)) == obj


def test_keys_that_yaml_would_read_as_other_types_are_quoted():
    text = yaml_emit.dump({"on": 1, "null": 2, "10": 3, "apiVersion": "v1", "a b": []})
    assert text == '"on": 1\n"null": 2\n"10": 3\napiVersion: "v1"\n"a b": []\n'
