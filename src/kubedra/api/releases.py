"""The Kubernetes releases kubedra reproduces, and how a ``--kubernetes-version`` is read.

One table for every release-dependent behaviour (fields that decode, feature gates), so that all
commands agree on what "1.36" means. ``1.37`` follows upstream's development branch at the time
of writing (k8s.io/api after v0.37.0-beta.0).
"""

from __future__ import annotations

import re

SUPPORTED: tuple[str, ...] = ("1.34", "1.35", "1.36", "1.37")
"""Minor releases, oldest first."""

DEFAULT: str = SUPPORTED[-1]
"""The newest supported release, used when no version is given."""

_VERSION = re.compile(r"v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+][0-9A-Za-z.+-]*)?")


class UnsupportedVersionError(ValueError):
    """A ``--kubernetes-version`` that is malformed or outside :data:`SUPPORTED`."""


def parse_version(text: str) -> str:
    """``"1.36"``, ``"v1.36"``, ``"1.36.2"`` or ``"v1.36.0-rc.1"`` -> ``"1.36"``.

    Raises :class:`UnsupportedVersionError` (a ``ValueError``) with a one-line message naming
    the supported releases.
    """
    match = _VERSION.fullmatch(text.strip())
    supported = ", ".join(SUPPORTED)
    if match is None:
        raise UnsupportedVersionError(
            f"invalid Kubernetes version {text!r}: expected MAJOR.MINOR such as {DEFAULT}"
        )
    version = f"{int(match.group(1))}.{int(match.group(2))}"
    if version not in SUPPORTED:
        raise UnsupportedVersionError(
            f"Kubernetes {version} is not supported (supported: {supported})"
        )
    return version


def version_key(version: str) -> tuple[int, int]:
    """A sortable key: ``version_key("1.9") < version_key("1.10")``."""
    major, minor = parse_version(version).split(".")
    return int(major), int(minor)


def at_least(version: str, minimum: str) -> bool:
    """Whether ``version`` is ``minimum`` or newer (both supported releases)."""
    return version_key(version) >= version_key(minimum)


__all__ = [
    "DEFAULT",
    "SUPPORTED",
    "UnsupportedVersionError",
    "at_least",
    "parse_version",
    "version_key",
]
