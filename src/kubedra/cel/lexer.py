"""Tokenizer for CEL source text, with the literal rules of the CEL grammar.

Literal values are decoded here (escapes, raw and triple-quoted strings, bytes, hex and
unsigned integers) so that the parser deals only in tokens with typed values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


class LexError(Exception):
    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message


@dataclass(slots=True)
class Token:
    kind: str  # INT UINT DOUBLE STRING BYTES IDENT EOF or the punctuation/keyword text
    text: str
    offset: int
    value: Any = None


_PUNCT = (
    "==",
    "!=",
    "<=",
    ">=",
    "&&",
    "||",
    "<",
    ">",
    "!",
    "+",
    "-",
    "*",
    "/",
    "%",
    "?",
    ":",
    ".",
    ",",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
)
KEYWORDS = {"true", "false", "null", "in"}

_WS = re.compile(r"(?:[ \t\r\n\f]+|//[^\n]*)+")
_IDENT = re.compile(r"[_a-zA-Z][_a-zA-Z0-9]*")
_NUMBER = re.compile(
    r"0[xX](?P<hex>[0-9a-fA-F]+)(?P<hexu>[uU])?"
    r"|(?P<float>(?:[0-9]*\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+))"
    r"|(?P<int>[0-9]+)(?P<intu>[uU])?"
)
_STRING_START = re.compile(r"(?P<prefix>[rRbB]{0,2})(?P<quote>'''|\"\"\"|'|\")")

_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "`": "`",
    "?": "?",
}


def _decode(body: str, offset: int, is_bytes: bool) -> str | bytes:
    """Process the escape sequences of a non-raw literal body."""
    out_text: list[str] = []
    out_bytes = bytearray()

    def emit_char(ch: str) -> None:
        if is_bytes:
            out_bytes.extend(ch.encode("utf-8"))
        else:
            out_text.append(ch)

    i = 0
    n = len(body)
    while i < n:
        ch = body[i]
        if ch != "\\":
            emit_char(ch)
            i += 1
            continue
        if i + 1 >= n:
            raise LexError(offset, "invalid escape sequence at end of string")
        esc = body[i + 1]
        if esc in _SIMPLE_ESCAPES:
            emit_char(_SIMPLE_ESCAPES[esc])
            i += 2
        elif esc in "xX":
            digits = body[i + 2 : i + 4]
            if len(digits) != 2 or not all(c in "0123456789abcdefABCDEF" for c in digits):
                raise LexError(offset, "invalid hex escape")
            code = int(digits, 16)
            if is_bytes:
                out_bytes.append(code)
            else:
                out_text.append(chr(code))
            i += 4
        elif esc in "uU":
            width = 4 if esc == "u" else 8
            digits = body[i + 2 : i + 2 + width]
            if len(digits) != width or not all(c in "0123456789abcdefABCDEF" for c in digits):
                raise LexError(offset, "invalid unicode escape")
            code = int(digits, 16)
            if is_bytes or 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
                raise LexError(offset, "invalid unicode code point")
            out_text.append(chr(code))
            i += 2 + width
        elif esc in "0123":
            digits = body[i + 1 : i + 4]
            if len(digits) != 3 or not all(c in "01234567" for c in digits):
                raise LexError(offset, "invalid octal escape")
            code = int(digits, 8)
            if is_bytes:
                out_bytes.append(code)
            else:
                out_text.append(chr(code))
            i += 4
        else:
            raise LexError(offset, f"invalid escape sequence '\\{esc}'")
    return bytes(out_bytes) if is_bytes else "".join(out_text)


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    pos = 0
    n = len(text)
    while True:
        m = _WS.match(text, pos)
        if m:
            pos = m.end()
        if pos >= n:
            tokens.append(Token("EOF", "<EOF>", pos))
            return tokens
        ch = text[pos]
        sm = _STRING_START.match(text, pos)
        if sm and (ch in "'\"" or sm.group("prefix")):
            tokens.append(_string(text, pos, sm))
            pos = tokens[-1].value[1]
            tokens[-1].value = tokens[-1].value[0]
            continue
        if "0" <= ch <= "9" or (ch == "." and pos + 1 < n and "0" <= text[pos + 1] <= "9"):
            tokens.append(_number(text, pos))
            pos += len(tokens[-1].text)
            continue
        im = _IDENT.match(text, pos)
        if im:
            word = im.group()
            kind = word if word in KEYWORDS else "IDENT"
            tokens.append(Token(kind, word, pos, word))
            pos = im.end()
            continue
        if ch == "`":
            end = text.find("`", pos + 1)
            if end < 0:
                raise LexError(pos, f"token recognition error at: '{text[pos:]}'")
            name = text[pos + 1 : end]
            if not name or not re.fullmatch(r"[_a-zA-Z0-9.\-/ ]+", name):
                raise LexError(pos, f"token recognition error at: '{text[pos : end + 1]}'")
            tokens.append(Token("QIDENT", text[pos : end + 1], pos, name))
            pos = end + 1
            continue
        for p in _PUNCT:
            if text.startswith(p, pos):
                tokens.append(Token(p, p, pos))
                pos += len(p)
                break
        else:
            raise LexError(pos, f"token recognition error at: '{ch}'")


def _number(text: str, pos: int) -> Token:
    m = _NUMBER.match(text, pos)
    assert m is not None
    lexeme = m.group()
    if m.group("hex") is not None:
        value = int(m.group("hex"), 16)
        if m.group("hexu"):
            return Token("UINT", lexeme, pos, value)
        return Token("INT", lexeme, pos, value)
    if m.group("float") is not None:
        return Token("DOUBLE", lexeme, pos, float(m.group("float")))
    digits = m.group("int").lstrip("0") or "0"
    # Past 20 digits a literal is out of range whatever its value (and Python refuses to
    # convert over 4300 digits): keep a value just past the largest uint so that the parser
    # reports cel-go's "invalid int literal" / "invalid uint literal".
    value = int(digits) if len(digits) <= 20 else 1 << 64
    if m.group("intu"):
        return Token("UINT", lexeme, pos, value)
    return Token("INT", lexeme, pos, value)


def _string(text: str, pos: int, sm: re.Match[str]) -> Token:
    prefix = sm.group("prefix").lower()
    if len(prefix) == 2 and prefix not in ("rb", "br"):
        raise LexError(pos, f"token recognition error at: '{text[pos : pos + 2]}'")
    quote = sm.group("quote")
    start = sm.end()
    is_raw = "r" in prefix
    is_bytes = "b" in prefix
    i = start
    n = len(text)
    while True:
        if i >= n:
            raise LexError(pos, f"token recognition error at: '{text[pos:]}'")
        c = text[i]
        if text.startswith(quote, i):
            break
        if len(quote) == 1 and c in "\r\n":
            raise LexError(pos, f"token recognition error at: '{text[pos:i]}'")
        if c == "\\" and not is_raw:
            i += 2
            continue
        if c == "\\" and is_raw and i + 1 < n and text[i + 1] == quote[0] and len(quote) == 1:
            i += 2
            continue
        i += 1
    body = text[start:i]
    end = i + len(quote)
    if is_raw:
        value: str | bytes = body.encode("utf-8") if is_bytes else body
    else:
        value = _decode(body, pos, is_bytes)
    kind = "BYTES" if is_bytes else "STRING"
    return Token(kind, text[pos:end], pos, (value, end))
