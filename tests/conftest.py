"""Shared test fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED = REPO_ROOT.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The read-only ``../shared`` beside the checkout; tests needing it skip when absent."""
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent: shared conformance data is not available here")
    return SHARED
