"""RE2 regular expressions with Go's error texts, compiled once per pattern.

CEL specifies RE2 syntax and google-re2 validates every pattern exactly as cel-go would.
Matching through google-re2's Python binding costs microseconds per call, though, so a
pattern from a simple, safe subset (literals, classes, ``.``, anchors, quantifiers on single
atoms, at most two unbounded ones) is also translated to Python's ``re``: for such patterns
both engines accept the same strings, and backtracking stays polynomial and small for
bounded inputs. Longer inputs and all other patterns use RE2.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import re2

from kubedra.cel.errors import CelEvaluationError

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False
# Inputs longer than this always go to RE2 (linear time whatever the pattern).
FAST_PATH_MAX_INPUT = 256

# RE2 error code -> Go regexp/syntax error code text
_GO_CODES = {
    "missing )": "missing closing )",
    "unexpected )": "unexpected )",
    "missing ]": "missing closing ]",
    "bad repetition operator": "invalid nested repetition operator",
    "invalid repetition size": "invalid repeat count",
    "invalid character class range": "invalid character class range",
    "invalid character class": "invalid character class",
    "invalid escape sequence": "invalid escape sequence",
    "invalid named capture group": "invalid named capture",
    "no argument for repetition operator": "missing argument to repetition operator",
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "invalid UTF-8": "invalid UTF-8",
    "pattern too large - compile failed": "expression too large",
}


def _go_error(pattern: str, err: Exception) -> str:
    raw = err.args[0] if err.args else str(err)
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    code, sep, expr = text.partition(": ")
    if code == "trailing \\":
        return "error parsing regexp: trailing backslash at end of expression: ``"
    go_code = _GO_CODES.get(code, code)
    if go_code in ("missing closing )", "unexpected )"):
        expr = pattern
    return f"error parsing regexp: {go_code}: `{expr if sep else pattern}`"


_SAFE_ESCAPES = set("dDwWbB.\\*+?()[]{}|^$-/nrtf ")
_CLASS_ESCAPES = set("dDw.\\*+?()[]{}|^$-/nrtf ")


def _translate(pattern: str) -> str | None:
    """The Python ``re`` equivalent of a pattern in the safe subset, else None."""
    out: list[str] = []
    i = 0
    n = len(pattern)
    unbounded = 0
    last_atom_is_group = False
    depth = 0
    while i < n:
        c = pattern[i]
        if c == "\\":
            if i + 1 >= n or pattern[i + 1] not in _SAFE_ESCAPES:
                return None
            out.append(pattern[i : i + 2])
            i += 2
            last_atom_is_group = False
            continue
        if c == "[":
            end = i + 1
            if end < n and pattern[end] == "^":
                end += 1
            if end < n and pattern[end] == "]":
                end += 1
            while end < n and pattern[end] != "]":
                if pattern[end] == "\\":
                    if end + 1 >= n or pattern[end + 1] not in _CLASS_ESCAPES:
                        return None
                    end += 2
                    continue
                if pattern[end] == "[":
                    return None
                end += 1
            if end >= n:
                return None
            out.append(pattern[i : end + 1])
            i = end + 1
            last_atom_is_group = False
            continue
        if c == "(":
            if pattern.startswith("(?", i):
                if not pattern.startswith("(?:", i):
                    return None
                out.append("(?:")
                i += 3
            else:
                out.append("(")
                i += 1
            depth += 1
            continue
        if c == ")":
            depth -= 1
            out.append(")")
            i += 1
            last_atom_is_group = True
            continue
        if c in "*+?{":
            if last_atom_is_group:
                return None
            if c == "{":
                m = re.match(r"\{(\d+)(,(\d*))?\}", pattern[i:])
                if m is None:
                    return None
                upper = m.group(3)
                if m.group(2) and (not upper or int(upper) > 10):
                    unbounded += 1
                out.append(m.group(0))
                i += len(m.group(0))
            else:
                if c in "*+":
                    unbounded += 1
                out.append(c)
                i += 1
            if i < n and pattern[i] == "?":
                out.append("?")
                i += 1
            continue
        if c == "$":
            out.append(r"\Z")
            i += 1
            continue
        out.append(re.escape(c) if c in "#&~" or c.isspace() else c)
        i += 1
        last_atom_is_group = False
    if depth != 0 or unbounded > 2:
        return None
    return "".join(out)


class Regex:
    """A validated pattern with a fast ``search``-style test."""

    __slots__ = ("_fast", "_re2", "pattern")

    def __init__(self, pattern: str, compiled: Any, fast: re.Pattern[str] | None) -> None:
        self.pattern = pattern
        self._re2 = compiled
        self._fast = fast

    def matches(self, text: str) -> bool:
        fast = self._fast
        if fast is not None and len(text) <= FAST_PATH_MAX_INPUT:
            return fast.search(text) is not None
        return self._re2.search(text) is not None

    def search(self, text: str, pos: int = 0) -> Any:
        """RE2's leftmost-first match starting at ``pos`` (None when there is none)."""
        return self._re2.search(text, pos)


@functools.lru_cache(maxsize=4096)
def compile_regex(pattern: str) -> Regex:
    """Compile like Go's ``regexp.Compile``; raises CelEvaluationError with Go's text."""
    try:
        compiled = re2.compile(pattern, _OPTIONS)
    except re2.error as err:
        raise CelEvaluationError(_go_error(pattern, err)) from None
    except (TypeError, ValueError) as err:
        raise CelEvaluationError(f"error parsing regexp: {err}: `{pattern}`") from None
    translated = _translate(pattern)
    fast: re.Pattern[str] | None = None
    if translated is not None:
        try:
            fast = re.compile(translated, re.ASCII)
        except re.error:
            fast = None
    return Regex(pattern, compiled, fast)


def regex_matches(text: str, pattern: str) -> bool:
    return compile_regex(pattern).matches(text)
