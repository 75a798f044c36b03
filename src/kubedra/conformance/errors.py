"""Errors of the conformance harness."""

from __future__ import annotations


class CaseError(ValueError):
    """The case file does not have the documented shape."""
