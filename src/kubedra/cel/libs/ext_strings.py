"""cel-go's ext strings library at version 2, the version Kubernetes' stored-expression
environment enables: charAt, indexOf, lastIndexOf, lowerAscii, upperAscii, replace, split,
substring, trim, join, format (the locale-aware version 1 formatter) and strings.quote.

Strings are indexed by code point, as cel-go indexes runes.
"""

from __future__ import annotations

import math
from typing import Any

from kubedra.cel.errors import CelEvaluationError
from kubedra.cel.libs._common import (
    STRING_TRAVERSAL_COST_FACTOR,
    first_arg_traversal,
    string_cost,
)
from kubedra.cel.libs.string_format import format_string, format_work, validate_format_call
from kubedra.cel.registry import Overload, Registry
from kubedra.cel.types import DYN, INT, STRING, list_of

_INT_MAX = (1 << 63) - 1

# Go's unicode.IsSpace for strings.TrimSpace
_GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def char_at(s: str, i: int) -> str:
    if i < 0 or i > len(s):
        raise CelEvaluationError(f"index out of range: {i}")
    return s[i] if i < len(s) else ""


def index_of(s: str, sub: str, offset: int = 0) -> int:
    if sub == "":
        return offset
    if offset < 0:
        raise CelEvaluationError(f"index out of range: {offset}")
    if offset >= len(s):
        return -1
    return s.find(sub, offset)


def last_index_of(s: str, sub: str, offset: int | None = None) -> int:
    if offset is None:
        if sub == "":
            return len(s)
        if len(s.encode()) < len(sub.encode()):
            return -1
        offset = len(s) - 1
    if sub == "":
        return offset
    if offset < 0:
        raise CelEvaluationError(f"index out of range: {offset}")
    if offset >= len(s):
        return -1
    offset = min(offset, len(s) - len(sub))
    if offset < 0:
        return -1
    return s.rfind(sub, 0, offset + len(sub))


def lower_ascii(s: str) -> str:
    return "".join(c.lower() if c < "\x80" else c for c in s)


def upper_ascii(s: str) -> str:
    return "".join(c.upper() if c < "\x80" else c for c in s)


def replace(s: str, old: str, new: str, n: int = -1) -> str:
    """Go's strings.Replace: an empty ``old`` matches before every rune and at the end."""
    if n < 0:
        n = _INT_MAX
    if old == "":
        if n == 0:
            return s
        out: list[str] = []
        count = 0
        for c in s:
            if count < n:
                out.append(new)
                count += 1
            out.append(c)
        if count < n:
            out.append(new)
        return "".join(out)
    return s.replace(old, new, n) if n < _INT_MAX else s.replace(old, new)


def replace_work(args: Any, _budget: int) -> int:
    """The length of ``replace``'s result: upstream charges a pass over the receiver, but
    an empty or short ``old`` with a long ``new`` multiplies the length."""
    text, old, new = args[0], args[1], args[2]
    if not (isinstance(text, str) and isinstance(old, str) and isinstance(new, str)):
        return 0
    count = len(text) + 1 if old == "" else text.count(old)
    if len(args) == 4 and type(args[3]) is int and args[3] >= 0:
        count = min(count, args[3])
    return max(len(text) + count * (len(new) - len(old)), 0)


def split(s: str, sep: str, n: int = -1) -> list[str]:
    """Go's strings.SplitN (n < 0: all parts; n == 0: none)."""
    if n == 0:
        return []
    if sep == "":
        chars = list(s)
        if 0 < n < len(chars):
            return [*chars[: n - 1], "".join(chars[n - 1 :])]
        return chars
    if n < 0:
        return s.split(sep)
    return s.split(sep, n - 1)


def substring(s: str, start: int, end: int | None = None) -> str:
    if end is None:
        if start < 0 or start > len(s):
            raise CelEvaluationError(f"index out of range: {start}")
        return s[start:]
    if start > end:
        raise CelEvaluationError(f"invalid substring range. start: {start}, end: {end}")
    if start < 0 or start > len(s):
        raise CelEvaluationError(f"index out of range: {start}")
    if end < 0 or end > len(s):
        raise CelEvaluationError(f"index out of range: {end}")
    return s[start:end]


def trim(s: str) -> str:
    return s.strip(_GO_SPACE)


def join(items: list[Any], sep: str = "") -> str:
    for item in items:
        if not isinstance(item, str):
            raise CelEvaluationError(f"join: invalid input: {item}")
    return sep.join(items)


_QUOTE_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    "\\": "\\\\",
    '"': '\\"',
}


def quote(s: str) -> str:
    return '"' + "".join(_QUOTE_ESCAPES.get(c, c) for c in s) + '"'


def _receiver_cost(args: Any, _result: Any) -> int:
    return string_cost(args[0])


def _double_receiver_cost(args: Any, _result: Any) -> int:
    return string_cost(args[0], 2 * STRING_TRAVERSAL_COST_FACTOR)


def _join_cost(args: Any, _result: Any) -> int:
    """Upstream prices the result (two passes): its length is known from the arguments, so
    it is charged before the join builds it. A failing join's result is an error (size 1)."""
    items = args[0]
    separator = args[1] if len(args) == 2 else ""
    if not all(type(item) is str for item in items):
        return string_cost(None, 2 * STRING_TRAVERSAL_COST_FACTOR)
    length = sum(len(item) for item in items) + len(separator) * max(len(items) - 1, 0)
    return math.ceil(length * 2 * STRING_TRAVERSAL_COST_FACTOR)


def _search_cost(args: Any, result: Any) -> int:
    """Kubernetes prices indexOf/lastIndexOf as a traversal of the receiver's bytes."""
    return first_arg_traversal(args, result)


def register(registry: Registry) -> None:
    add = registry.add
    s, i = STRING, INT
    add("charAt", Overload("string_char_at_int", (s, i), s, char_at, member=True))
    add(
        "indexOf",
        Overload("string_index_of_string", (s, s), i, index_of, member=True, cost=_search_cost),
    )
    add(
        "indexOf",
        Overload(
            "string_index_of_string_int", (s, s, i), i, index_of, member=True, cost=_search_cost
        ),
    )
    add(
        "lastIndexOf",
        Overload(
            "string_last_index_of_string",
            (s, s),
            i,
            last_index_of,
            member=True,
            cost=_search_cost,
        ),
    )
    add(
        "lastIndexOf",
        Overload(
            "string_last_index_of_string_int",
            (s, s, i),
            i,
            last_index_of,
            member=True,
            cost=_search_cost,
        ),
    )
    add(
        "lowerAscii",
        Overload("string_lower_ascii", (s,), s, lower_ascii, member=True, cost=_receiver_cost),
    )
    add(
        "upperAscii",
        Overload("string_upper_ascii", (s,), s, upper_ascii, member=True, cost=_receiver_cost),
    )
    add(
        "replace",
        Overload(
            "string_replace_string_string",
            (s, s, s),
            s,
            replace,
            member=True,
            cost=_double_receiver_cost,
            work=replace_work,
        ),
    )
    add(
        "replace",
        Overload(
            "string_replace_string_string_int",
            (s, s, s, i),
            s,
            replace,
            member=True,
            cost=_double_receiver_cost,
            work=replace_work,
        ),
    )
    add(
        "split",
        Overload(
            "string_split_string",
            (s, s),
            list_of(s),
            split,
            member=True,
            cost=_double_receiver_cost,
        ),
    )
    add(
        "split",
        Overload(
            "string_split_string_int",
            (s, s, i),
            list_of(s),
            split,
            member=True,
            cost=_double_receiver_cost,
        ),
    )
    add(
        "substring",
        Overload("string_substring_int", (s, i), s, substring, member=True, cost=_receiver_cost),
    )
    add(
        "substring",
        Overload(
            "string_substring_int_int", (s, i, i), s, substring, member=True, cost=_receiver_cost
        ),
    )
    add("trim", Overload("string_trim", (s,), s, trim, member=True, cost=_receiver_cost))
    add("join", Overload("list_join", (list_of(s),), s, join, member=True, cost=_join_cost))
    add(
        "join", Overload("list_join_string", (list_of(s), s), s, join, member=True, cost=_join_cost)
    )
    add(
        "format",
        Overload(
            "string_format",
            (s, list_of(DYN)),
            s,
            format_string,
            member=True,
            validate=validate_format_call,
            work=format_work,
        ),
    )
    add("strings.quote", Overload("strings_quote", (s,), s, quote))
