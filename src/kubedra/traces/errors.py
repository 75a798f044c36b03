"""The one error the trace builders raise for bad input."""

from __future__ import annotations


class TraceInputError(ValueError):
    """Input that cannot become a trace: the message names the file, the line and the column
    (or the flag) and says why, on one line."""
