"""Go formatting helpers: upstream error texts are built with Go's ``%q`` and must match."""

from __future__ import annotations

import re
import unicodedata

_ESCAPES = {
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


def _printable(c: str) -> bool:
    """Go's ``strconv.IsPrint``: letters, marks, numbers, punctuation, symbols and ASCII space."""
    if c == " ":
        return True
    return unicodedata.category(c)[0] in "LMNPS"


# Runs of characters that need no escape unless unprintable (checked per run, in C).
_PLAIN_RUN = re.compile(r'[^"\\\x00-\x1f\x7f]+')


def quote(text: str) -> str:
    """Go's ``strconv.Quote`` (what ``%q`` prints for a string).

    Runs of printable characters are copied whole (``str.isprintable`` is Go's IsPrint
    plus the ASCII space), so quoting a long text takes C speed, not a Python step per
    character."""
    out = ['"']
    pos = 0
    for run in _PLAIN_RUN.finditer(text):
        if run.start() > pos:
            _escape(text[pos : run.start()], out)
        chunk = run.group()
        if chunk.isprintable():
            out.append(chunk)
        else:
            _escape(chunk, out)
        pos = run.end()
    if pos < len(text):
        _escape(text[pos:], out)
    out.append('"')
    return "".join(out)


def _escape(text: str, out: list[str]) -> None:
    for c in text:
        escaped = _ESCAPES.get(c)
        if escaped is not None:
            out.append(escaped)
        elif _printable(c) or c == "\ufffd":
            out.append(c)
        else:
            code = ord(c)
            if code < 0x80:
                out.append(f"\\x{code:02x}")
            elif code <= 0xFFFF:
                out.append(f"\\u{code:04x}")
            else:
                out.append(f"\\U{code:08x}")
