"""Kubernetes' CEL IP and CIDR libraries (``net.IP``, ``net.CIDR``).

Kubernetes parses with Go's net/netip and additionally refuses zones and IPv4-mapped IPv6
addresses; Python's ipaddress accepts the same textual forms once those are excluded.
"""

from __future__ import annotations

import ipaddress
import math
import re
from typing import Any

from kubedra.cel.errors import CelEvaluationError
from kubedra.cel.libs._common import (
    STRING_TRAVERSAL_COST_FACTOR,
    actual_size,
    first_arg_string_cost,
    nominal,
)
from kubedra.cel.registry import Overload, Registry
from kubedra.cel.types import BOOL, INT, STRING, opaque
from kubedra.gofmt import quote

IP_TYPE = opaque("net.IP")
CIDR_TYPE = opaque("net.CIDR")

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class IP:
    __slots__ = ("addr",)

    def __init__(self, addr: Address) -> None:
        self.addr = addr

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IP) and other.addr == self.addr

    def __hash__(self) -> int:
        return hash(self.addr)

    def __str__(self) -> str:
        return str(self.addr)

    def __repr__(self) -> str:
        return f"ip({str(self)!r})"


class CIDR:
    """A prefix as written: the address keeps its host bits (``masked()`` clears them)."""

    __slots__ = ("addr", "bits")

    def __init__(self, addr: Address, bits: int) -> None:
        self.addr = addr
        self.bits = bits

    def network(self) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
        return ipaddress.ip_network((self.addr, self.bits), strict=False)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CIDR) and (other.addr, other.bits) == (self.addr, self.bits)

    def __hash__(self) -> int:
        return hash((self.addr, self.bits))

    def __str__(self) -> str:
        return f"{self.addr}/{self.bits}"

    def __repr__(self) -> str:
        return f"cidr({str(self)!r})"


class _AddrError(ValueError):
    """A netip parse failure, rendered like Go's parseAddrError."""

    def __init__(self, text: str, msg: str, at: str = "") -> None:
        detail = f"ParseAddr({quote(text)}): {msg}"
        super().__init__(f"{detail} (at {quote(at)})" if at else detail)


def _ipv4_fields(text: str, start: int, end: int) -> bytes:
    """Go's parseIPv4Fields over ``text[start:end]``: decimal, no leading zeros."""
    s = text[start:end]
    fields: list[int] = []
    val = 0
    digits = 0
    for i, c in enumerate(s):
        if "0" <= c <= "9":
            if digits == 1 and val == 0:
                raise _AddrError(text, "IPv4 field has octet with leading zero")
            val = val * 10 + ord(c) - 48
            digits += 1
            if val > 255:
                raise _AddrError(text, "IPv4 field has value >255")
        elif c == ".":
            if i == 0 or i == len(s) - 1 or s[i - 1] == ".":
                raise _AddrError(text, "IPv4 field must have at least one digit", s[i:])
            if len(fields) == 3:
                raise _AddrError(text, "IPv4 address too long")
            fields.append(val)
            val = 0
            digits = 0
        else:
            raise _AddrError(text, "unexpected character", s[i:])
    if len(fields) < 3:
        raise _AddrError(text, "IPv4 address too short")
    fields.append(val)
    return bytes(fields)


_HEX_DIGITS = "0123456789abcdefABCDEF"


def _parse_ipv6(text: str) -> tuple[bytes, str]:
    """Go's netip parseIPv6: (16 address bytes, zone)."""
    s = text
    zone = ""
    if "%" in s:
        s, zone = s.split("%", 1)
        if not zone:
            raise _AddrError(text, "zone must be a non-empty string")
    ip = bytearray(16)
    ellipsis = -1
    if s.startswith("::"):
        ellipsis = 0
        s = s[2:]
        if not s:
            return bytes(ip), zone
    i = 0
    while i < 16:
        off = 0
        acc = 0
        while off < len(s) and s[off] in _HEX_DIGITS:
            acc = (acc << 4) + int(s[off], 16)
            if off > 3:
                raise _AddrError(text, "each group must have 4 or less digits", s)
            if acc > 0xFFFF:
                raise _AddrError(text, "IPv6 field has value >=2^16", s)
            off += 1
        if off == 0:
            raise _AddrError(text, "each colon-separated field must have at least one digit", s)
        if off < len(s) and s[off] == ".":
            if ellipsis < 0 and i != 12:
                raise _AddrError(
                    text, "embedded IPv4 address must replace the final 2 fields of the address", s
                )
            if i + 4 > 16:
                raise _AddrError(
                    text,
                    "too many hex fields to fit an embedded IPv4 at the end of the address",
                    s,
                )
            end = len(text) - (len(zone) + 1 if zone else 0)
            ip[i : i + 4] = _ipv4_fields(text, end - len(s), end)
            s = ""
            i += 4
            break
        ip[i] = acc >> 8
        ip[i + 1] = acc & 0xFF
        i += 2
        s = s[off:]
        if not s:
            break
        if s[0] != ":":
            raise _AddrError(text, "unexpected character, want colon", s)
        if len(s) == 1:
            raise _AddrError(text, "colon must be followed by more characters", s)
        s = s[1:]
        if s[0] == ":":
            if ellipsis >= 0:
                raise _AddrError(text, "multiple :: in address", s)
            ellipsis = i
            s = s[1:]
            if not s:
                break
    if s:
        raise _AddrError(text, "trailing garbage after address", s)
    if i < 16:
        if ellipsis < 0:
            raise _AddrError(text, "address string too short")
        n = 16 - i
        ip[ellipsis + n : 16] = ip[ellipsis:i]
        ip[ellipsis : ellipsis + n] = bytes(n)
    elif ellipsis >= 0:
        raise _AddrError(text, "the :: must expand to at least one field of zeros", s)
    return bytes(ip), zone


def _parse_addr(raw: str) -> Address:
    """Go's ``netip.ParseAddr`` (zones are refused by the callers before this)."""
    first = _ADDR_KIND.search(raw)  # the first of these decides, as in Go (at C speed)
    if first is None:
        raise _AddrError(raw, "unable to parse IP")
    if first.group() == ".":
        return ipaddress.IPv4Address(_ipv4_fields(raw, 0, len(raw)))
    if first.group() == ":":
        return ipaddress.IPv6Address(_parse_ipv6(raw)[0])
    raise _AddrError(raw, "missing IPv6 address")


_ADDR_KIND = re.compile(r"[.:%]")


def parse_ip(raw: str) -> IP:
    if "%" in raw:
        raise CelEvaluationError("IP address with zone value is not allowed")
    try:
        addr = _parse_addr(raw)
    except ValueError as err:
        raise CelEvaluationError(
            f"IP Address {quote(raw)} parse error during conversion from string: {err}"
        ) from None
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        raise CelEvaluationError(f"IPv4-mapped IPv6 address {quote(raw)} is not allowed")
    return IP(addr)


def parse_cidr(raw: str) -> CIDR:
    if "%" in raw:
        raise CelEvaluationError("CIDR with zone value is not allowed")
    try:
        addr, bits = _parse_prefix(raw)
    except ValueError as err:
        raise CelEvaluationError(
            f"network address parse error during conversion from string: {err}"
        ) from None
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        raise CelEvaluationError(f"IPv4-mapped IPv6 address {quote(raw)} is not allowed")
    return CIDR(addr, bits)


def _parse_prefix(raw: str) -> tuple[Address, int]:
    """Go's ``netip.ParsePrefix``: decimal bits without sign or leading zeros."""

    def fail(msg: str) -> ValueError:
        return ValueError(f"netip.ParsePrefix({quote(raw)}): {msg}")

    slash = raw.rfind("/")
    if slash < 0:
        raise fail("no '/'")
    try:
        addr = _parse_addr(raw[:slash])
    except ValueError as err:
        raise fail(str(err)) from None
    bits_text = raw[slash + 1 :]
    if len(bits_text) > 1 and not ("1" <= bits_text[0] <= "9"):
        raise fail(f"bad bits after slash: {quote(bits_text)}")
    if not bits_text or not bits_text.isascii() or not bits_text.isdigit():
        raise fail(f"bad bits after slash: {quote(bits_text)}")
    bits = int(bits_text)
    if bits > addr.max_prefixlen:
        raise fail("prefix length out of range")
    return addr, bits


def _succeeds(parse: Any, raw: str) -> bool:
    try:
        parse(raw)
    except CelEvaluationError:
        return False
    return True


def is_canonical(raw: str) -> bool:
    return str(parse_ip(raw)) == raw


def family(ip: IP) -> int:
    return ip.addr.version


def is_unspecified(ip: IP) -> bool:
    return ip.addr.is_unspecified


def is_loopback(ip: IP) -> bool:
    a = ip.addr
    if isinstance(a, ipaddress.IPv4Address):
        return a.packed[0] == 127
    return a == ipaddress.IPv6Address("::1")


def is_link_local_multicast(ip: IP) -> bool:
    p = ip.addr.packed
    if len(p) == 4:
        return p[0] == 224 and p[1] == 0 and p[2] == 0
    return p[0] == 0xFF and p[1] & 0x0F == 0x02


def is_link_local_unicast(ip: IP) -> bool:
    p = ip.addr.packed
    if len(p) == 4:
        return p[0] == 169 and p[1] == 254
    return p[0] == 0xFE and p[1] & 0xC0 == 0x80


def is_global_unicast(ip: IP) -> bool:
    a = ip.addr
    p = a.packed
    if len(p) == 4 and p == b"\xff\xff\xff\xff":
        return False
    multicast = p[0] >= 224 and p[0] < 240 if len(p) == 4 else p[0] == 0xFF
    return not (a.is_unspecified or is_loopback(ip) or multicast or is_link_local_unicast(ip))


def cidr_contains_ip(cidr: CIDR, ip: IP | str) -> bool:
    addr = parse_ip(ip).addr if isinstance(ip, str) else ip.addr
    if addr.version != cidr.addr.version:
        return False
    return addr in cidr.network()


def cidr_contains_cidr(cidr: CIDR, other: CIDR | str) -> bool:
    inner = parse_cidr(other) if isinstance(other, str) else other
    if inner.addr.version != cidr.addr.version or cidr.bits > inner.bits:
        return False
    masked = ipaddress.ip_network((inner.addr, cidr.bits), strict=False)
    return masked == cidr.network()


def cidr_masked(cidr: CIDR) -> CIDR:
    return CIDR(cidr.network().network_address, cidr.bits)


def _contains_ip_cost(args: Any, _result: Any) -> int:
    """Kubernetes' containsIP cost: compare the byte lists, plus parsing a string argument."""
    cost = math.ceil(2 * actual_size(args[0]) * STRING_TRAVERSAL_COST_FACTOR)
    if isinstance(args[1], str):
        cost += math.ceil(len(args[1]) * STRING_TRAVERSAL_COST_FACTOR)
    return cost


def _contains_cidr_cost(args: Any, result: Any) -> int:
    size = actual_size(args[0])
    return _contains_ip_cost(args, result) + math.ceil(size * STRING_TRAVERSAL_COST_FACTOR) + 1


def register(registry: Registry) -> None:
    registry.value_type(IP, IP_TYPE)
    registry.value_type(CIDR, CIDR_TYPE)
    add = registry.add
    sc = first_arg_string_cost
    add("ip", Overload("string_to_ip", (STRING,), IP_TYPE, parse_ip, cost=sc))
    add("isIP", Overload("is_ip", (STRING,), BOOL, lambda s: _succeeds(parse_ip, s), cost=sc))
    add(
        "ip.isCanonical",
        Overload("ip_is_canonical", (STRING,), BOOL, is_canonical, cost=lambda a, r: 2 * sc(a, r)),
    )
    add("family", Overload("ip_family", (IP_TYPE,), INT, family, member=True, cost=nominal))
    for name, oid, impl in (
        ("isUnspecified", "ip_is_unspecified", is_unspecified),
        ("isLoopback", "ip_is_loopback", is_loopback),
        ("isLinkLocalMulticast", "ip_is_link_local_multicast", is_link_local_multicast),
        ("isLinkLocalUnicast", "ip_is_link_local_unicast", is_link_local_unicast),
        ("isGlobalUnicast", "ip_is_global_unicast", is_global_unicast),
    ):
        add(name, Overload(oid, (IP_TYPE,), BOOL, impl, member=True, cost=nominal))
    add("string", Overload("ip_to_string", (IP_TYPE,), STRING, str))
    add("cidr", Overload("string_to_cidr", (STRING,), CIDR_TYPE, parse_cidr, cost=sc))
    add("isCIDR", Overload("is_cidr", (STRING,), BOOL, lambda s: _succeeds(parse_cidr, s), cost=sc))
    add(
        "containsIP",
        Overload(
            "cidr_contains_ip_string",
            (CIDR_TYPE, STRING),
            BOOL,
            cidr_contains_ip,
            member=True,
            cost=_contains_ip_cost,
        ),
    )
    add(
        "containsIP",
        Overload(
            "cidr_contains_ip_ip",
            (CIDR_TYPE, IP_TYPE),
            BOOL,
            cidr_contains_ip,
            member=True,
            cost=_contains_ip_cost,
        ),
    )
    add(
        "containsCIDR",
        Overload(
            "cidr_contains_cidr_string",
            (CIDR_TYPE, STRING),
            BOOL,
            cidr_contains_cidr,
            member=True,
            cost=_contains_cidr_cost,
        ),
    )
    add(
        "containsCIDR",
        Overload(
            "cidr_contains_cidr",
            (CIDR_TYPE, CIDR_TYPE),
            BOOL,
            cidr_contains_cidr,
            member=True,
            cost=_contains_cidr_cost,
        ),
    )
    add(
        "ip",
        Overload("cidr_ip", (CIDR_TYPE,), IP_TYPE, lambda c: IP(c.addr), member=True, cost=nominal),
    )
    add(
        "masked",
        Overload("cidr_masked", (CIDR_TYPE,), CIDR_TYPE, cidr_masked, member=True, cost=nominal),
    )
    add(
        "prefixLength",
        Overload(
            "cidr_prefix_length", (CIDR_TYPE,), INT, lambda c: c.bits, member=True, cost=nominal
        ),
    )
    add("string", Overload("cidr_to_string", (CIDR_TYPE,), STRING, str))
