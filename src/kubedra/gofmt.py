"""Go formatting helpers: upstream error texts are built with Go's ``%q`` and must match."""

from __future__ import annotations

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


def quote(text: str) -> str:
    """Go's ``strconv.Quote`` (what ``%q`` prints for a string)."""
    out = ['"']
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
    out.append('"')
    return "".join(out)
