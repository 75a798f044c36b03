"""Conformance harness for the cases in shared/conformance (allocate, schedule, cel)."""
