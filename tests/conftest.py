"""Shared test fixtures and the hypothesis profiles.

Profiles: ``ci`` (loaded when the ``CI`` environment variable is set) derandomizes every
property test, so CI never depends on luck; ``dev`` (the default) explores random examples;
``fuzz`` (``HYPOTHESIS_PROFILE=fuzz``) is derandomized too and runs ten times the examples of
each fuzz test that scales its budget with ``settings.default.max_examples``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED = REPO_ROOT.parent / "shared"

settings.register_profile("ci", derandomize=True, max_examples=100, deadline=None)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.register_profile(
    "fuzz",
    derandomize=True,
    max_examples=1_000,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The read-only ``../shared`` beside the checkout; tests needing it skip when absent."""
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent: shared conformance data is not available here")
    return SHARED
