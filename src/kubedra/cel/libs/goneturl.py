"""Go's net/url parsing (Parse, ParseRequestURI, Hostname, Port, EscapedPath, Query).

Kubernetes' CEL URL library is a thin layer over net/url, so what it accepts, how it splits a
URL and its error texts all come from Go's parser; this is a faithful re-implementation of the
parts the library exposes.
"""

from __future__ import annotations

from dataclasses import dataclass

from kubedra.gofmt import quote

_HEX = "0123456789abcdefABCDEF"

# encoding modes
PATH = "path"
PATH_SEGMENT = "pathSegment"
HOST = "host"
ZONE = "zone"
USER_PASSWORD = "userPassword"
QUERY_COMPONENT = "queryComponent"
FRAGMENT = "fragment"


class URLError(ValueError):
    """A parse failure; the message is Go's ``*url.Error`` text (``parse "u": reason``)."""


class _Reason(ValueError):
    pass


def _should_escape(c: str, mode: str) -> bool:
    if c.isascii() and c.isalnum():
        return False
    if mode in (HOST, ZONE) and c in "!$&'()*+,;=:[]<>\"":
        return False
    if c in "-_.~":
        return False
    if c in "$&+,/:;=?@":
        if mode == USER_PASSWORD:
            return c in "@/?:"
        if mode == PATH_SEGMENT:
            return c in "/;,?"
        if mode == PATH:
            return c == "?"
        if mode == QUERY_COMPONENT:
            return True
        if mode == FRAGMENT:
            return False
    return not (mode == FRAGMENT and c in "!()*")


def unescape(s: str, mode: str) -> str:
    data = s.encode("utf-8", "surrogateescape")
    n = 0
    i = 0
    while i < len(data):
        b = data[i]
        if b == 0x25:  # '%'
            n += 1
            if i + 2 >= len(data) or chr(data[i + 1]) not in _HEX or chr(data[i + 2]) not in _HEX:
                bad = data[i : i + 3].decode("utf-8", "replace")
                raise _Reason(f"invalid URL escape {quote(bad)}")
            if mode == HOST and int(chr(data[i + 1]), 16) < 8 and data[i : i + 3] != b"%25":
                raise _Reason(f"invalid URL escape {quote(data[i : i + 3].decode())}")
            if mode == ZONE:
                v = int(data[i + 1 : i + 3].decode(), 16)
                if data[i : i + 3] != b"%25" and v != 0x20 and _should_escape(chr(v), HOST):
                    raise _Reason(f"invalid URL escape {quote(data[i : i + 3].decode())}")
            i += 3
        else:
            if mode in (HOST, ZONE) and b < 0x80 and _should_escape(chr(b), mode):
                raise _Reason(f"invalid character {quote(chr(b))} in host name")
            i += 1
    if n == 0 and (mode != QUERY_COMPONENT or b"+" not in data):
        return s
    out = bytearray()
    i = 0
    while i < len(data):
        b = data[i]
        if b == 0x25:
            out.append(int(data[i + 1 : i + 3].decode(), 16))
            i += 3
        elif b == 0x2B and mode == QUERY_COMPONENT:
            out.append(0x20)
            i += 1
        else:
            out.append(b)
            i += 1
    return out.decode("utf-8", "surrogateescape")


def escape(s: str, mode: str) -> str:
    out: list[str] = []
    for c in s:
        if c == " " and mode == QUERY_COMPONENT:
            out.append("+")
        elif c.isascii() and not _should_escape(c, mode):
            out.append(c)
        else:
            out.extend(f"%{b:02X}" for b in c.encode("utf-8", "surrogateescape"))
    return "".join(out)


def _valid_encoded(s: str, mode: str) -> bool:
    for c in s:
        if c in "!$&'()*+,;=:@[]%":
            continue
        if _should_escape(c, mode):
            return False
    return True


def _valid_optional_port(port: str) -> bool:
    if port == "":
        return True
    if port[0] != ":":
        return False
    return all("0" <= c <= "9" for c in port[1:])


@dataclass
class URL:
    scheme: str = ""
    opaque: str = ""
    user: str | None = None
    host: str = ""
    path: str = ""
    raw_path: str = ""
    raw_query: str = ""
    fragment: str = ""
    force_query: bool = False

    def hostname(self) -> str:
        return _split_host_port(self.host)[0]

    def port(self) -> str:
        return _split_host_port(self.host)[1]

    def escaped_path(self) -> str:
        if self.raw_path and _valid_encoded(self.raw_path, PATH):
            try:
                if unescape(self.raw_path, PATH) == self.path:
                    return self.raw_path
            except _Reason:
                pass
        if self.path == "*":
            return "*"
        return escape(self.path, PATH)

    def query(self) -> dict[str, list[str]]:
        values: dict[str, list[str]] = {}
        rest = self.raw_query
        while rest:
            key, _, rest = rest.partition("&")
            if ";" in key or not key:
                continue
            key, _, value = key.partition("=")
            try:
                key = unescape(key, QUERY_COMPONENT)
                value = unescape(value, QUERY_COMPONENT)
            except _Reason:
                continue
            values.setdefault(key, []).append(value)
        return values


def _split_host_port(host_port: str) -> tuple[str, str]:
    host, port = host_port, ""
    colon = host.rfind(":")
    if colon != -1 and _valid_optional_port(host[colon:]):
        host, port = host[:colon], host[colon + 1 :]
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, port


def _get_scheme(raw: str) -> tuple[str, str]:
    for i, c in enumerate(raw):
        if c.isascii() and c.isalpha():
            continue
        if c.isascii() and (c.isdigit() or c in "+-."):
            if i == 0:
                return "", raw
            continue
        if c == ":":
            if i == 0:
                raise _Reason("missing protocol scheme")
            return raw[:i], raw[i + 1 :]
        return "", raw
    return "", raw


def _parse_host(host: str) -> str:
    if host.startswith("["):
        i = host.rfind("]")
        if i < 0:
            raise _Reason("missing ']' in host")
        colon_port = host[i + 1 :]
        if not _valid_optional_port(colon_port):
            raise _Reason(f"invalid port {quote(colon_port)} after host")
        zone = host[:i].find("%25")
        if zone >= 0:
            host1 = unescape(host[:zone], HOST)
            host2 = unescape(host[zone:i], ZONE)
            host3 = unescape(host[i:], HOST)
            return host1 + host2 + host3
    else:
        i = host.rfind(":")
        if i != -1:
            colon_port = host[i:]
            if not _valid_optional_port(colon_port):
                raise _Reason(f"invalid port {quote(colon_port)} after host")
    return unescape(host, HOST)


def _valid_userinfo(s: str) -> bool:
    for c in s:
        if c.isascii() and c.isalnum():
            continue
        if c not in "-._:~!$&'()*+,;=%@":
            return False
    return True


def _parse_authority(authority: str) -> tuple[str | None, str]:
    i = authority.rfind("@")
    host = _parse_host(authority if i < 0 else authority[i + 1 :])
    if i < 0:
        return None, host
    userinfo = authority[:i]
    if not _valid_userinfo(userinfo):
        raise _Reason("net/url: invalid userinfo")
    return unescape(userinfo, USER_PASSWORD), host


def _parse(raw: str, via_request: bool) -> URL:
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in raw):
        raise _Reason("net/url: invalid control character in URL")
    if raw == "" and via_request:
        raise _Reason("empty url")
    url = URL()
    if raw == "*":
        url.path = "*"
        return url
    scheme, rest = _get_scheme(raw)
    url.scheme = scheme.lower()
    if rest.endswith("?") and rest.count("?") == 1:
        url.force_query = True
        rest = rest[:-1]
    else:
        rest, _, url.raw_query = rest.partition("?")
    if not rest.startswith("/"):
        if url.scheme:
            url.opaque = rest
            return url
        if via_request:
            raise _Reason("invalid URI for request")
        segment = rest.partition("/")[0]
        if ":" in segment:
            raise _Reason("first path segment in URL cannot contain colon")
    if (url.scheme or (not via_request and not rest.startswith("///"))) and rest.startswith("//"):
        authority, rest = rest[2:], ""
        slash = authority.find("/")
        if slash >= 0:
            authority, rest = authority[:slash], authority[slash:]
        url.user, url.host = _parse_authority(authority)
    path = unescape(rest, PATH)
    url.path = path
    url.raw_path = "" if escape(path, PATH) == rest else rest
    return url


def parse(raw: str) -> URL:
    """Go's ``url.Parse``."""
    u, _, frag = raw.partition("#")
    try:
        url = _parse(u, False)
    except _Reason as err:
        raise URLError(f"parse {quote(u)}: {err}") from None
    if frag:
        try:
            url.fragment = unescape(frag, FRAGMENT)
        except _Reason as err:
            raise URLError(f"parse {quote(raw)}: {err}") from None
    return url


def parse_request_uri(raw: str) -> URL:
    """Go's ``url.ParseRequestURI`` (absolute URLs only, no fragment handling)."""
    try:
        return _parse(raw, True)
    except _Reason as err:
        raise URLError(f"parse {quote(raw)}: {err}") from None
