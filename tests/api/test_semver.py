"""Semantic versions: blang/semver's parser, Kubernetes' normalization, semver 2.0 precedence."""

from __future__ import annotations

import itertools

import pytest

from kubedra.api.semver import Semver, SemverParseError
from kubedra.gofmt import quote


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("1.2.3", (1, 2, 3, (), ())),
        ("0.0.1", (0, 0, 1, (), ())),
        ("10.20.30", (10, 20, 30, (), ())),
        ("1.2.3-0.beta", (1, 2, 3, (0, "beta"), ())),
        ("3.0.0-x.7.z.92", (3, 0, 0, ("x", 7, "z", 92), ())),
        ("2.0.0+build.7", (2, 0, 0, (), ("build", "7"))),
        ("1.0.0-rc.1+build.1-2", (1, 0, 0, ("rc", 1), ("build", "1-2"))),
        ("1.0.0-alpha-a.b-c", (1, 0, 0, ("alpha-a", "b-c"), ())),
        ("18446744073709551615.0.0", (2**64 - 1, 0, 0, (), ())),
    ],
)
def test_parse(text: str, parts: tuple[object, ...]) -> None:
    v = Semver.parse(text)
    assert (v.major, v.minor, v.patch, v.pre, v.build) == parts
    assert str(v) == text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Version string empty"),
        ("1.2", "No Major.Minor.Patch elements found"),
        ("latest", "No Major.Minor.Patch elements found"),
        ("v1.2.3", 'Invalid character(s) found in major number "v1"'),
        ("01.2.3", 'Major number must not contain leading zeroes "01"'),
        ("1.02.3", 'Minor number must not contain leading zeroes "02"'),
        ("1.2.03", 'Patch number must not contain leading zeroes "03"'),
        ("1.2.3.4", 'Invalid character(s) found in patch number "3.4"'),
        ("1.2.3-", "Prerelease is empty"),
        ("1.2.3-01", 'Numeric PreRelease version must not contain leading zeroes "01"'),
        ("1.2.3-a_b", 'Invalid character(s) found in prerelease "a_b"'),
        ("1.2.3+", "Build meta data is empty"),
        ("1.2.3+a..b", "Build meta data is empty"),
        ("1.2.3+a$", 'Invalid character(s) found in build meta data "a$"'),
        (".2.3", 'strconv.ParseUint: parsing "": invalid syntax'),
        (
            "18446744073709551616.0.0",
            'strconv.ParseUint: parsing "18446744073709551616": value out of range',
        ),
    ],
)
def test_parse_errors(text: str, message: str) -> None:
    with pytest.raises(SemverParseError) as info:
        Semver.parse(text)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("v1.2", "1.2.0"),
        ("v1", "1.0.0"),
        ("1.2", "1.2.0"),
        ("01.01.01", "1.1.1"),
        ("1.2.3-0.beta", "1.2.3-0.beta"),
        ("00.0.0", "0.0.0"),
    ],
)
def test_normalized(text: str, expected: str) -> None:
    assert str(Semver.parse_normalized(text)) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("latest", 'Invalid character(s) found in major number "0latest"'),
        ("1.2-rc", "short version cannot contain PreRelease/Build meta data"),
        ("1.2.3.4", 'Invalid character(s) found in patch number "3.4"'),
        ("1.2.3-", "Prerelease is empty"),
        ("", 'strconv.ParseUint: parsing "": invalid syntax'),
    ],
)
def test_normalized_errors(text: str, message: str) -> None:
    with pytest.raises(SemverParseError) as info:
        Semver.parse_normalized(text)
    assert str(info.value) == message


def test_precedence_chain_from_semver_spec() -> None:
    chain = [
        "1.0.0-alpha",
        "1.0.0-alpha.1",
        "1.0.0-alpha.beta",
        "1.0.0-beta",
        "1.0.0-beta.2",
        "1.0.0-beta.11",
        "1.0.0-rc.1",
        "1.0.0",
        "1.9.0",
        "1.10.0",
        "2.0.0",
    ]
    versions = [Semver.parse(t) for t in chain]
    for lower, higher in itertools.pairwise(versions):
        assert lower.compare(higher) == -1
        assert higher.compare(lower) == 1
        assert lower < higher


def test_build_metadata_is_ignored_by_comparison() -> None:
    assert Semver.parse("1.0.0+build.1") == Semver.parse("1.0.0+build.2")
    assert Semver.parse("1.0.0+build.1").compare(Semver.parse("1.0.0")) == 0
    assert hash(Semver.parse("1.0.0+a")) == hash(Semver.parse("1.0.0"))
    assert Semver.parse("1.2.3-0.beta") < Semver.parse("1.2.3-beta")


def test_go_quote() -> None:
    assert quote('a"b\\c\n\x01é\u200b') == '"a\\"b\\\\c\\n\\x01é\\u200b"'
