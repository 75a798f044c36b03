"""RE2 regular expressions with Go's error texts, compiled once per pattern.

CEL specifies RE2 syntax; google-re2 gives the same engine as cel-go. Its error strings are
rephrased into Go's ``regexp`` wording because that is what upstream reports.
"""

from __future__ import annotations

import functools
from typing import Any

import re2

from kubedra.cel.errors import CelEvaluationError

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False

_GO_PHRASES = {
    "missing ): ": "missing closing ): ",
    "missing ]: ": "missing closing ]: ",
    "unexpected ): ": "unexpected ): ",
    "invalid escape sequence: ": "invalid escape sequence: ",
    "missing argument to repetition operator: ": "missing argument to repetition operator: ",
    "invalid character class range: ": "invalid character class range: ",
    "invalid nested repetition operator: ": "invalid nested repetition operator: ",
    "invalid repeat count: ": "invalid repeat count: ",
    "invalid named capture group: ": "invalid named capture group: ",
    "invalid or unsupported Perl syntax: ": "invalid or unsupported Perl syntax: ",
    "trailing \\: ": "trailing backslash at end of expression",
}


def _go_message(raw: str) -> str:
    for prefix, go in _GO_PHRASES.items():
        if raw.startswith(prefix):
            detail = raw[len(prefix) :]
            if go.endswith(": "):
                return f"error parsing regexp: {go}`{detail}`"
            return f"error parsing regexp: {go}"
    return f"error parsing regexp: {raw}"


@functools.lru_cache(maxsize=4096)
def compile_regex(pattern: str) -> Any:
    """The compiled pattern; raises ``CelEvaluationError`` with Go's message when invalid."""
    try:
        return re2.compile(pattern, _OPTIONS)
    except re2.error as e:
        raw = e.args[0] if e.args else ""
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        raise CelEvaluationError(_go_message(text)) from None
    except (TypeError, ValueError) as e:
        raise CelEvaluationError(f"error parsing regexp: {e}") from None


def regex_matches(text: str, pattern: str) -> bool:
    return compile_regex(pattern).search(text) is not None
