"""Semantic versions exactly as Kubernetes parses them (github.com/blang/semver/v4).

DRA ``version`` attributes and CEL's ``semver()`` use blang/semver's strict parser, whose error
texts reach users as CEL runtime errors, so the texts and the accept/reject decisions here are
the library's. Comparison follows semver 2.0 precedence; build metadata is ignored.
"""

from __future__ import annotations

from functools import total_ordering
from typing import Final

from kubedra.gofmt import quote

__all__ = ["Semver", "SemverParseError"]

_NUMBERS: Final = frozenset("0123456789")
_ALPHANUM: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789")
_UINT64_MAX: Final = (1 << 64) - 1


class SemverParseError(ValueError):
    """Not a semantic version; the message is blang/semver's error text."""


def _contains_only(text: str, allowed: frozenset[str]) -> bool:
    return all(c in allowed for c in text)


def _has_leading_zeroes(text: str) -> bool:
    return len(text) > 1 and text[0] == "0"


def _parse_uint(text: str) -> int:
    """Go's ``strconv.ParseUint(text, 10, 64)`` on a string of ASCII digits."""
    if not text:
        raise SemverParseError(f"strconv.ParseUint: parsing {quote(text)}: invalid syntax")
    value = int(text)
    if value > _UINT64_MAX:
        raise SemverParseError(f"strconv.ParseUint: parsing {quote(text)}: value out of range")
    return value


def _number(text: str, what: str) -> int:
    if not _contains_only(text, _NUMBERS):
        raise SemverParseError(f"Invalid character(s) found in {what} number {quote(text)}")
    if _has_leading_zeroes(text):
        raise SemverParseError(
            f"{what.capitalize()} number must not contain leading zeroes {quote(text)}"
        )
    return _parse_uint(text)


def _prerelease(text: str) -> int | str:
    if not text:
        raise SemverParseError("Prerelease is empty")
    if _contains_only(text, _NUMBERS):
        if _has_leading_zeroes(text):
            raise SemverParseError(
                f"Numeric PreRelease version must not contain leading zeroes {quote(text)}"
            )
        return _parse_uint(text)
    if _contains_only(text, _ALPHANUM):
        return text
    raise SemverParseError(f"Invalid character(s) found in prerelease {quote(text)}")


@total_ordering
class Semver:
    """An immutable semantic version: major.minor.patch, pre-release and build parts."""

    __slots__ = ("build", "major", "minor", "patch", "pre")

    major: int
    minor: int
    patch: int
    pre: tuple[int | str, ...]
    build: tuple[str, ...]

    def __init__(
        self,
        major: int,
        minor: int,
        patch: int,
        pre: tuple[int | str, ...] = (),
        build: tuple[str, ...] = (),
    ) -> None:
        set_ = object.__setattr__
        set_(self, "major", major)
        set_(self, "minor", minor)
        set_(self, "patch", patch)
        set_(self, "pre", pre)
        set_(self, "build", build)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Semver is immutable")

    @classmethod
    def parse(cls, text: str) -> Semver:
        """blang/semver's ``Parse``: strict semver 2.0 (no "v" prefix, all three numbers)."""
        cached = _CACHE.get(text)
        if cached is None:
            cached = _parse(text)
            if len(_CACHE) < 65536:
                _CACHE[text] = cached
        return cached

    @classmethod
    def parse_normalized(cls, text: str) -> Semver:
        """Kubernetes' ``normalizeAndParse``: drop a "v", leading zeros, fill minor/patch."""
        if text.startswith("v"):
            text = text[1:]
        parts = text.split(".", 2)
        for i, part in enumerate(parts):
            if len(part) > 1:
                part = part.lstrip("0")
                if not part or part[0] not in _NUMBERS:
                    part = "0" + part
                parts[i] = part
        if len(parts) < 3:
            if any(c in "+-" for c in parts[-1]):
                raise SemverParseError("short version cannot contain PreRelease/Build meta data")
            parts.extend(["0"] * (3 - len(parts)))
        return cls.parse(".".join(parts))

    def compare(self, other: Semver) -> int:
        """blang/semver's ``Compare``: -1, 0 or 1 by semver precedence."""
        a = (self.major, self.minor, self.patch)
        b = (other.major, other.minor, other.patch)
        if a != b:
            return 1 if a > b else -1
        if not self.pre or not other.pre:
            return (not self.pre) - (not other.pre)
        for x, y in zip(self.pre, other.pre, strict=False):
            c = _compare_pre(x, y)
            if c:
                return c
        return (len(self.pre) > len(other.pre)) - (len(self.pre) < len(other.pre))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Semver):
            return NotImplemented
        return self.compare(other) == 0

    def __lt__(self, other: Semver) -> bool:
        return self.compare(other) < 0

    def __hash__(self) -> int:
        return hash((self.major, self.minor, self.patch, self.pre))

    def __str__(self) -> str:
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            text += "-" + ".".join(str(p) for p in self.pre)
        if self.build:
            text += "+" + ".".join(self.build)
        return text

    def __repr__(self) -> str:
        return f"Semver({str(self)!r})"


def _compare_pre(x: int | str, y: int | str) -> int:
    x_num = isinstance(x, int)
    y_num = isinstance(y, int)
    if x_num != y_num:
        return -1 if x_num else 1
    if x == y:
        return 0
    return 1 if x > y else -1  # type: ignore[operator]


_CACHE: dict[str, Semver] = {}


def _parse(text: str) -> Semver:
    if not text:
        raise SemverParseError("Version string empty")
    parts = text.split(".", 2)
    if len(parts) != 3:
        raise SemverParseError("No Major.Minor.Patch elements found")
    major = _number(parts[0], "major")
    minor = _number(parts[1], "minor")
    rest = parts[2]
    build: list[str] = []
    pre_parts: list[str] = []
    plus = rest.find("+")
    if plus != -1:
        build = rest[plus + 1 :].split(".")
        rest = rest[:plus]
    dash = rest.find("-")
    if dash != -1:
        pre_parts = rest[dash + 1 :].split(".")
        rest = rest[:dash]
    patch = _number(rest, "patch")
    pre = tuple(_prerelease(p) for p in pre_parts)
    for item in build:
        if not item:
            raise SemverParseError("Build meta data is empty")
        if not _contains_only(item, _ALPHANUM):
            raise SemverParseError(f"Invalid character(s) found in build meta data {quote(item)}")
    return Semver(major, minor, patch, pre, tuple(build))
