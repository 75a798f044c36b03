"""A small reader for protobuf text format, enough for cel-spec's simple test files.

Messages become dicts mapping a field name to the list of its values (every field may repeat);
scalars stay as parsed: strings as bytes (text format strings are byte sequences), numbers as
int or float, identifiers (enum values, true/false) as str.
"""

from __future__ import annotations

import re
from typing import Any

Message = dict[str, list[Any]]

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+|\#[^\n]*)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<number>[-+]?(?:inf(?:inity)?|nan
                   |(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)[fFuU]?)(?![\w.]))
  | (?P<ident>[A-Za-z_][\w.]*)
  | (?P<punct>[{}\[\]:,;<>/])
    """,
    re.VERBOSE | re.IGNORECASE,
)

_SIMPLE_ESCAPES = {
    "a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11,
    "\\": 92, "'": 39, '"': 34, "?": 63,
}  # fmt: skip


def _unescape(body: str) -> bytes:
    out = bytearray()
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.extend(c.encode())
            i += 1
            continue
        e = body[i + 1]
        if e in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[e])
            i += 2
        elif e in "xX":
            m = re.match(r"[0-9a-fA-F]{1,2}", body[i + 2 :])
            assert m, body
            out.append(int(m.group(0), 16))
            i += 2 + len(m.group(0))
        elif e in "01234567":
            m = re.match(r"[0-7]{1,3}", body[i + 1 :])
            assert m
            out.append(int(m.group(0), 8) & 0xFF)
            i += 1 + len(m.group(0))
        elif e == "u":
            out.extend(chr(int(body[i + 2 : i + 6], 16)).encode("utf-8", "surrogatepass"))
            i += 6
        elif e == "U":
            out.extend(chr(int(body[i + 2 : i + 10], 16)).encode())
            i += 10
        else:
            raise ValueError(f"unknown escape \\{e}")
    return bytes(out)


def _tokens(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise ValueError(f"textproto: cannot read {text[pos : pos + 30]!r}")
        pos = m.end()
        kind = m.lastgroup
        assert kind is not None
        if kind != "ws":
            tokens.append((kind, m.group(0)))
    return tokens


def _number(text: str) -> int | float:
    t = text.lower()
    if t.lstrip("+-") in ("inf", "infinity", "nan"):
        return float(t.replace("infinity", "inf"))
    if t.lstrip("+-").startswith("0x"):
        return int(t, 16)
    t = t.rstrip("fu")
    if re.fullmatch(r"[-+]?\d+", t):
        return int(t)
    return float(t)


class _Reader:
    def __init__(self, text: str) -> None:
        self.toks = _tokens(text)
        self.i = 0

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def next(self) -> tuple[str, str]:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def message(self, close: str | None) -> Message:
        msg: Message = {}
        while True:
            tok = self.peek()
            if tok is None:
                if close is None:
                    return msg
                raise ValueError("textproto: unexpected end")
            if tok[1] == close:
                self.i += 1
                return msg
            if tok[1] in ",;":
                self.i += 1
                continue
            kind, name = self.next()
            if name == "[":  # extension or Any type URL: [type.googleapis.com/x]
                parts = []
                while self.peek() and self.peek()[1] != "]":  # type: ignore[index]
                    parts.append(self.next()[1])
                self.i += 1
                name = "[" + "".join(parts) + "]"
            elif kind != "ident":
                raise ValueError(f"textproto: expected a field name, got {name!r}")
            if self.peek() and self.peek()[1] == ":":  # type: ignore[index]
                self.i += 1
            msg.setdefault(name, []).extend(self.values())

    def values(self) -> list[Any]:
        tok = self.peek()
        assert tok is not None
        if tok[1] == "[":
            self.i += 1
            out: list[Any] = []
            while self.peek()[1] != "]":  # type: ignore[index]
                if self.peek()[1] == ",":  # type: ignore[index]
                    self.i += 1
                    continue
                out.extend(self.values())
            self.i += 1
            return out
        return [self.value()]

    def value(self) -> Any:
        kind, text = self.next()
        if text in ("{", "<"):
            return self.message("}" if text == "{" else ">")
        if kind == "string":
            data = _unescape(text[1:-1])
            while self.peek() and self.peek()[0] == "string":  # type: ignore[index]
                data += _unescape(self.next()[1][1:-1])
            return data
        if kind == "number":
            return _number(text)
        if kind == "ident":
            low = text.lower()
            if low in ("inf", "infinity", "nan"):
                return float(low.replace("infinity", "inf"))
            if text == "-":
                return -_number(self.next()[1])
            return text
        if text == "-":
            return -_number(self.next()[1])
        raise ValueError(f"textproto: unexpected {text!r}")


def parse(text: str) -> Message:
    return _Reader(text).message(None)


def first(msg: Message, field: str, default: Any = None) -> Any:
    values = msg.get(field)
    return values[0] if values else default


def text_of(msg: Message, field: str, default: str = "") -> str:
    value = first(msg, field)
    return default if value is None else value.decode("utf-8")
