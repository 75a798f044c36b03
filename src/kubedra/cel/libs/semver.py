"""Kubernetes' CEL semver library (``kubernetes.Semver``), version 1 (with normalization)."""

from __future__ import annotations

from kubedra.api.semver import Semver, SemverParseError
from kubedra.cel.errors import CelEvaluationError
from kubedra.cel.libs._common import first_arg_string_cost, nominal
from kubedra.cel.registry import Overload, Registry
from kubedra.cel.types import BOOL, INT, STRING, opaque

SEMVER = opaque("kubernetes.Semver")


def semver(text: str, normalize: bool = False) -> Semver:
    try:
        return Semver.parse_normalized(text) if normalize else Semver.parse(text)
    except SemverParseError as err:
        raise CelEvaluationError(str(err)) from None
    except ValueError:  # a component with more digits than Python converts: out of range
        component = text.removeprefix("v").split(".")[0].split("-")[0].split("+")[0]
        message = f'strconv.ParseUint: parsing "{component}": value out of range'
        raise CelEvaluationError(message) from None


def is_semver(text: str, normalize: bool = False) -> bool:
    try:
        semver(text, normalize)
    except CelEvaluationError:
        return False
    return True


def _int64(value: int) -> int:
    """Go converts the uint64 component with int64(): values past 2^63 wrap."""
    return value - (1 << 64) if value >= 1 << 63 else value


def register(registry: Registry) -> None:
    registry.value_type(Semver, SEMVER)
    s2 = (SEMVER, SEMVER)
    add = registry.add
    sc = first_arg_string_cost  # parsing is priced as a traversal of the string
    add("semver", Overload("string_to_semver", (STRING,), SEMVER, semver, cost=sc))
    add("semver", Overload("string_bool_to_semver", (STRING, BOOL), SEMVER, semver, cost=sc))
    add("isSemver", Overload("is_semver_string", (STRING,), BOOL, is_semver, cost=sc))
    add("isSemver", Overload("is_semver_string_bool", (STRING, BOOL), BOOL, is_semver, cost=sc))
    add(
        "isGreaterThan",
        Overload(
            "semver_is_greater_than",
            s2,
            BOOL,
            lambda a, b: a.compare(b) == 1,
            member=True,
            cost=nominal,
        ),
    )
    add(
        "isLessThan",
        Overload(
            "semver_is_less_than",
            s2,
            BOOL,
            lambda a, b: a.compare(b) == -1,
            member=True,
            cost=nominal,
        ),
    )
    add(
        "compareTo",
        Overload("semver_compare_to", s2, INT, Semver.compare, member=True, cost=nominal),
    )
    add(
        "major",
        Overload(
            "semver_major", (SEMVER,), INT, lambda v: _int64(v.major), member=True, cost=nominal
        ),
    )
    add(
        "minor",
        Overload(
            "semver_minor", (SEMVER,), INT, lambda v: _int64(v.minor), member=True, cost=nominal
        ),
    )
    add(
        "patch",
        Overload(
            "semver_patch", (SEMVER,), INT, lambda v: _int64(v.patch), member=True, cost=nominal
        ),
    )
