"""RE2 regular expressions with Go's error texts, compiled once per pattern.

CEL specifies RE2 syntax and google-re2 validates every pattern exactly as cel-go would.
Matching through google-re2's Python binding costs microseconds per call, though, so a
pattern from a simple subset (literals, classes, ``.``, anchors, quantifiers on single
atoms, groups without quantifiers) is also translated to Python's ``re``, for which both
engines accept the same strings. Python's engine backtracks, so the fast path is only taken
for inputs short enough that backtracking is provably cheap: without quantified groups or
backreferences, a match attempt explores at most one path per combination of repetition
counts and alternatives, each at most (input + pattern) steps long, once per start
position. ``_Shape.max_fast_input`` finds the longest input whose bound stays under
``FAST_PATH_BUDGET`` steps; longer inputs and all other patterns use RE2 (linear time).
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
# Longest input ever sent to Python's engine, and the most backtracking steps allowed.
FAST_PATH_MAX_INPUT = 256
FAST_PATH_BUDGET = 200_000
_REPEAT = re.compile(r"\{(\d+)(,(\d*))?\}")


class _Shape:
    """The structure that bounds backtracking: alternatives of sequences of items, an item
    being a quantified atom ``(min, max or None)`` or an unquantified group."""

    __slots__ = ("alternatives",)

    def __init__(self) -> None:
        self.alternatives: list[list[tuple[int, int | None] | _Shape]] = [[]]

    def paths(self, n: int) -> int:
        """Most distinct ways through the pattern for an input of length n."""
        total = 0
        for sequence in self.alternatives:
            product = 1
            for item in sequence:
                if isinstance(item, _Shape):
                    product *= item.paths(n)
                else:
                    low, high = item
                    top = n if high is None else min(high, n)
                    product *= max(top - low + 1, 1)
                if product > FAST_PATH_BUDGET:
                    return product
            total += product
        return total


def _max_fast_input(shape: _Shape, anchored: bool, pattern_length: int) -> int:
    """The longest input (at most FAST_PATH_MAX_INPUT) whose worst-case backtracking work,
    starts x paths x path length, stays within FAST_PATH_BUDGET; -1 when none does."""

    def work(n: int) -> int:
        starts = 1 if anchored else n + 1
        return starts * shape.paths(n) * (n + pattern_length + 1)

    if work(0) > FAST_PATH_BUDGET:
        return -1
    low, high = 0, FAST_PATH_MAX_INPUT  # work grows with n: bisect the largest good n
    while low < high:
        mid = (low + high + 1) // 2
        if work(mid) <= FAST_PATH_BUDGET:
            low = mid
        else:
            high = mid - 1
    return low


def _translate(pattern: str) -> tuple[str, int] | None:
    """The Python ``re`` equivalent of a pattern in the safe subset and the longest input it
    may be used for, else None."""
    out: list[str] = []
    i = 0
    n = len(pattern)
    stack = [_Shape()]
    last_atom: bool = False  # whether the previous token is an atom a quantifier may follow
    while i < n:
        c = pattern[i]
        current = stack[-1].alternatives[-1]
        if c == "\\":
            if i + 1 >= n or pattern[i + 1] not in _SAFE_ESCAPES:
                return None
            out.append(pattern[i : i + 2])
            zero_width = pattern[i + 1] in "bB"
            i += 2
            if not zero_width:
                current.append((1, 1))
            last_atom = not zero_width
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
            current.append((1, 1))
            last_atom = True
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
            group = _Shape()
            current.append(group)
            stack.append(group)
            last_atom = False
            continue
        if c == ")":
            if len(stack) == 1:
                return None
            stack.pop()
            out.append(")")
            i += 1
            last_atom = False  # a quantified group is left to RE2
            continue
        if c == "|":
            stack[-1].alternatives.append([])
            out.append("|")
            i += 1
            last_atom = False
            continue
        if c in "*+?{":
            if not last_atom or not current or isinstance(current[-1], _Shape):
                return None
            if c == "{":
                m = _REPEAT.match(pattern, i)
                if m is None:
                    return None
                low = int(m.group(1))
                high = low if not m.group(2) else (int(m.group(3)) if m.group(3) else None)
                out.append(m.group(0))
                i = m.end()
            else:
                low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
                out.append(c)
                i += 1
            current[-1] = (low, high)
            if i < n and pattern[i] == "?":
                out.append("?")
                i += 1
            last_atom = False
            continue
        if c in "^$":
            out.append(r"\Z" if c == "$" else c)
            i += 1
            last_atom = False
            continue
        out.append(re.escape(c) if c in "#&~" or c.isspace() else c)
        current.append((1, 1))
        i += 1
        last_atom = True
    if len(stack) != 1:
        return None
    top = stack[0]
    anchored = pattern.startswith("^") and len(top.alternatives) == 1
    limit = _max_fast_input(top, anchored, n)
    if limit < 0:
        return None
    return "".join(out), limit


class Regex:
    """A validated pattern with a fast ``search``-style test."""

    __slots__ = ("_fast", "_fast_max", "_re2", "pattern")

    def __init__(
        self, pattern: str, compiled: Any, fast: re.Pattern[str] | None, fast_max: int = -1
    ) -> None:
        self.pattern = pattern
        self._re2 = compiled
        self._fast = fast
        self._fast_max = fast_max if fast is not None else -1

    def matches(self, text: str) -> bool:
        if len(text) <= self._fast_max:
            return self._fast.search(text) is not None  # type: ignore[union-attr]
        return self._re2.search(text) is not None

    def search(self, text: str, pos: int = 0) -> Any:
        """RE2's leftmost-first match starting at ``pos`` (None when there is none)."""
        return self._re2.search(text, pos)

    def find_all(self, text: str, n: int) -> list[str]:
        """Go's ``FindAllString(text, n)``: successive matches, each searched from the end
        of the previous one (one rune further after an empty match), an empty match right
        after the previous match left out. The text is encoded once and searched by byte
        offset, as Go does: ``search`` on a str re-encodes the whole text on every call,
        which made a findAll over 10**5 characters take minutes."""
        data = text.encode("utf-8", "surrogatepass")
        end = len(data)
        search = self._re2.search
        out: list[str] = []
        pos = 0
        prev_end = -1
        while len(out) < n and pos <= end:
            match = search(data, pos)
            if match is None:
                break
            start, stop = match.span()
            if start == stop and start < end and 0x80 <= data[start] < 0xC0:
                # RE2 tries empty-width assertions (\B) between the bytes of a rune; Go
                # steps rune by rune: look again from the next rune.
                pos = start + 1
                while pos < end and 0x80 <= data[pos] < 0xC0:
                    pos += 1
                continue
            accept = True
            if stop == pos:  # an empty match at pos
                accept = start != prev_end
                pos += _rune_width(data[pos]) if pos < end else 1
            else:
                pos = stop
            prev_end = stop
            if accept:
                out.append(data[start:stop].decode("utf-8", "surrogatepass"))
        return out


def _rune_width(lead: int) -> int:
    """Bytes of the UTF-8 sequence that starts with this byte."""
    return 1 if lead < 0x80 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4


@functools.lru_cache(maxsize=4096)
def compile_regex(pattern: str) -> Regex:
    """Compile like Go's ``regexp.Compile``; raises CelEvaluationError with Go's text."""
    bad = _bad_repeat(pattern)
    if bad is not None:
        raise CelEvaluationError(f"error parsing regexp: invalid repeat count: `{bad}`")
    try:
        compiled = re2.compile(pattern, _OPTIONS)
    except re2.error as err:
        raise CelEvaluationError(_go_error(pattern, err)) from None
    except OverflowError:
        # A repetition count past what the binding converts: Go reports the repeat operator.
        raise CelEvaluationError(_repeat_error(pattern)) from None
    except (TypeError, ValueError) as err:
        raise CelEvaluationError(f"error parsing regexp: {err}: `{pattern}`") from None
    translated = _translate(pattern)
    if translated is None:
        return Regex(pattern, compiled, None)
    text, limit = translated
    try:
        fast = re.compile(text, re.ASCII)
    except (re.error, OverflowError, ValueError):
        return Regex(pattern, compiled, None)
    return Regex(pattern, compiled, fast, limit)


def _repeat_error(pattern: str) -> str:
    """Go's message for a repetition count over 1000: it quotes the operator."""
    return f"error parsing regexp: invalid repeat count: `{_bad_repeat(pattern) or pattern}`"


def _bad_repeat(pattern: str) -> str | None:
    """The first repetition operator outside classes with a count over 1000 (Go refuses
    those; the RE2 binding may overflow on them instead)."""
    i, n, in_class = 0, len(pattern), False
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern.startswith("[^]", i) or pattern.startswith("[]", i):
                i += 2
        elif c == "{":
            m = _REPEAT.match(pattern, i)
            if m is not None:
                counts = [g for g in (m.group(1), m.group(3)) if g]
                if any(len(g) > 4 or int(g) > 1000 for g in counts):
                    return m.group(0)
        i += 1
    return None


def regex_matches(text: str, pattern: str) -> bool:
    return compile_regex(pattern).matches(text)
