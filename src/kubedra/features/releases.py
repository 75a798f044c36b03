"""The Kubernetes releases whose DRA feature gates kubedra knows: those of ``kubedra.api.releases``.

One table of releases serves every release-dependent behaviour (fields that decode, feature
gates); this module re-exports it under the names the gate code uses.
"""

from __future__ import annotations

from kubedra.api.releases import DEFAULT, SUPPORTED, parse_version
from kubedra.api.releases import UnsupportedVersionError as ReleaseError


def release_key(release: str) -> tuple[int, int]:
    """``"1.36"`` -> ``(1, 36)``, for ordering releases (also those before :data:`SUPPORTED`,
    such as the release a gate was introduced in)."""
    major, minor = release.split(".")
    return int(major), int(minor)


__all__ = ["DEFAULT", "SUPPORTED", "ReleaseError", "parse_version", "release_key"]
