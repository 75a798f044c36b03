"""``conversion_error`` reports what ``CelDevice.from_v1`` does, for any device."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kubedra.cel.device import CelDevice, conversion_error

DRIVER = "gpu.example.com"

_VALUES = st.one_of(
    st.integers(-(2**40), 2**40),
    st.booleans(),
    st.text(max_size=6),
    st.sampled_from(["1.2.3", "1.2", "v1.0.0", "01.2.3", "1.2.3-rc.1+b", "x", "7", "40Gi", "1k"]),
    st.none(),
    st.floats(allow_nan=False, allow_infinity=False),
)
_FIELDS = st.sampled_from(
    ["int", "bool", "string", "version", "ints", "bools", "strings", "versions", "other"]
)
_ATTRIBUTE = st.one_of(
    st.dictionaries(_FIELDS, st.one_of(_VALUES, st.lists(_VALUES, max_size=3)), max_size=2),
    st.none(),
)
_CAPACITY = st.one_of(
    st.fixed_dictionaries({"value": _VALUES}), st.just({}), st.none(), st.just({"x": 1})
)
_NAMES = st.sampled_from(["a", "b", "other.example.com/c", "d/e/f"])
DEVICES = st.fixed_dictionaries(
    {"name": st.just("dev")},
    optional={
        "attributes": st.dictionaries(_NAMES, _ATTRIBUTE, max_size=4),
        "capacity": st.dictionaries(_NAMES, _CAPACITY, max_size=3),
    },
)


@settings(max_examples=1500, derandomize=True, deadline=None, database=None)
@given(DEVICES)
def test_conversion_error_is_the_full_views_error(device: dict[str, Any]) -> None:
    assert conversion_error(device) == CelDevice.from_v1(device, DRIVER).error
    assert CelDevice.driver_only(device, DRIVER).error == CelDevice.from_v1(device, DRIVER).error


def test_known_errors() -> None:
    bad_version = {"attributes": {"v": {"version": "1.2"}}}
    assert conversion_error(bad_version) is not None
    assert conversion_error(bad_version) == CelDevice.from_v1(bad_version, DRIVER).error
    bad_capacity = {"capacity": {"m": {"value": "lots"}}, "attributes": {"a": {"int": 1}}}
    assert (conversion_error(bad_capacity) or "").startswith("capacity m: ")
    plain = {"attributes": {"a": {"string": "x"}, "b": {"int": 3}, "c": {"bool": True}}}
    assert conversion_error(plain) is None
