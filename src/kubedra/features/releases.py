"""The Kubernetes releases whose DRA feature gates kubedra knows.

(Helper "api" adds ``kubedra.api.releases`` with the same three names; the two are to be
unified, this module then re-exporting that one.)
"""

from __future__ import annotations

import re

SUPPORTED: tuple[str, ...] = ("1.34", "1.35", "1.36", "1.37")
"""Releases with a verified feature-gate table, oldest first."""

DEFAULT = "1.37"
"""The release assumed without ``--kubernetes-version``: the newest one."""

_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+].*)?$")


class ReleaseError(ValueError):
    """A Kubernetes version kubedra cannot model."""


def parse_version(text: str) -> str:
    """``1.36``, ``v1.36`` or ``1.36.2`` (a patch or pre-release suffix is ignored) -> ``1.36``."""
    match = _VERSION.match(text.strip())
    if match is None:
        raise ReleaseError(f'invalid Kubernetes version "{text}": expected MAJOR.MINOR, e.g. 1.36')
    release = f"{int(match.group(1))}.{int(match.group(2))}"
    if release not in SUPPORTED:
        raise ReleaseError(
            f'unsupported Kubernetes version "{text}": kubedra models '
            f"{SUPPORTED[0]} to {SUPPORTED[-1]}"
        )
    return release


def release_key(release: str) -> tuple[int, int]:
    """``"1.36"`` -> ``(1, 36)``, for ordering releases."""
    major, minor = release.split(".")
    return int(major), int(minor)
