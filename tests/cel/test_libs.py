"""Kubernetes and ext CEL library functions, checked against upstream behaviour and texts."""

from __future__ import annotations

import math

import pytest

from kubedra.api.quantity import Quantity
from kubedra.cel.errors import CelEvaluationError
from kubedra.cel.libs import (
    ext_lists,
    ext_strings,
    goneturl,
    lists,
    named_formats,
    net,
    regex,
    semver,
    sets,
    string_format,
    urls,
)
from kubedra.cel.libs import quantity as qlib
from kubedra.cel.registry import Registry, load_libraries
from kubedra.cel.values import Duration, Optional, UInt


def test_every_library_registers() -> None:
    registry = Registry()
    load_libraries(registry)
    for name in (
        "quantity",
        "semver",
        "isSorted",
        "find",
        "url",
        "cidr",
        "sets.contains",
        "lists.range",
        "format",
        "strings.quote",
        "format.named",
    ):
        assert registry.overloads(name), name  # fmt: skip


# --- quantity -----------------------------------------------------------------------------


def test_quantity_functions() -> None:
    assert qlib.is_quantity("1.3Gi")
    assert not qlib.is_quantity("200K")
    assert not qlib.is_quantity("1,3G")
    with pytest.raises(CelEvaluationError, match="quantities must match the regular expression"):
        qlib.quantity("Three")
    assert qlib.as_integer(qlib.quantity("50k")) == 50000
    with pytest.raises(CelEvaluationError, match=r"^cannot convert value to integer$"):
        qlib.as_integer(qlib.quantity("9999999999999999999999999999999999999G"))
    assert qlib.sub_int(qlib.quantity("50k"), 20000) == qlib.quantity("30k")
    assert qlib.add_int(qlib.quantity("50k"), 20) == qlib.quantity("50020")
    assert qlib.quantity("200M").cmp(qlib.quantity("0.2G")) == 0


def test_quantity_add_on_decimal_receiver_aliases_like_upstream() -> None:
    luts = Quantity.parse("1.5Gi")
    bigger = qlib.add_int(luts, 1)
    assert not luts.cmp(bigger) < 0  # luts.isLessThan(luts.add(1)) is false upstream


# --- semver -------------------------------------------------------------------------------


def test_semver_functions() -> None:
    assert semver.semver("v1.2", True) == semver.semver("1.2.0")
    assert semver.is_semver("1.2.3-0.beta", True)
    assert not semver.is_semver("v1.2.3")
    with pytest.raises(CelEvaluationError, match=r"^No Major.Minor.Patch elements found$"):
        semver.semver("1.2")
    assert semver._int64(2**64 - 1) == -1


# --- Kubernetes lists ---------------------------------------------------------------------


def test_kubernetes_lists() -> None:
    assert lists.is_sorted([1, 2, 2, 3])
    assert not lists.is_sorted(["b", "a"])
    assert lists._sum(0)([1, 2, 3]) == 6
    assert lists._sum(0.0)([]) == 0.0
    assert lists._sum(Duration(0))([Duration(1), Duration(2)]) == Duration(3)
    with pytest.raises(CelEvaluationError, match=r"^integer overflow$"):
        lists._sum(0)([2**62, 2**62])
    with pytest.raises(CelEvaluationError, match=r"^unsigned integer overflow$"):
        lists._sum(UInt(0))([UInt(2**63), UInt(2**63)])
    assert lists._extreme("min", 1)([3, 1, 2]) == 1
    assert lists._extreme("max", -1)(["a", "c", "b"]) == "c"
    with pytest.raises(CelEvaluationError, match=r"^max called on empty list$"):
        lists._extreme("max", -1)([])
    assert lists.index_of([1, 2, 1], 1) == 0
    assert lists.last_index_of([1, 2, 1], 1) == 2
    assert lists.index_of([1.0, 2.0], 2) == 1
    assert lists.index_of([1], 5) == -1


# --- ext lists and sets -------------------------------------------------------------------


def test_ext_lists() -> None:
    assert ext_lists.slice_list([1, 2, 3, 4], 1, 3) == [2, 3]
    with pytest.raises(CelEvaluationError, match=r"^cannot slice\(1, 5\), list is length 4$"):
        ext_lists.slice_list([1, 2, 3, 4], 1, 5)
    with pytest.raises(CelEvaluationError, match="start index must be less than or equal"):
        ext_lists.slice_list([1, 2], 2, 1)
    with pytest.raises(CelEvaluationError, match="negative indexes not supported"):
        ext_lists.slice_list([1, 2], -1, 1)
    assert ext_lists.flatten([[1], [2, [3]]]) == [1, 2, [3]]
    assert ext_lists.flatten([[1], [2, [3]]], 2) == [1, 2, 3]
    assert ext_lists.flatten([1, [2]], 0) == [1, [2]]
    with pytest.raises(CelEvaluationError, match=r"^level must be non-negative$"):
        ext_lists.flatten([1], -1)
    assert ext_lists.sort_list([3, 1, 2]) == [1, 2, 3]
    assert ext_lists.sort_list(["b", "a"]) == ["a", "b"]
    assert ext_lists.sort_by_associated_keys(["foo", "bar", "baz"], [3, 1, 2]) == [
        "bar", "baz", "foo"
    ]  # fmt: skip
    assert ext_lists.sort_by_associated_keys([1, 2, 3], [1, 0, 1]) == [2, 1, 3]  # stable
    with pytest.raises(CelEvaluationError, match=r"^list elements must have the same type$"):
        ext_lists.sort_list([1, "a"])
    assert ext_lists.lists_range(4) == [0, 1, 2, 3]
    assert ext_lists.lists_range(-1) == []
    assert ext_lists.distinct([1, 2.0, 2, "a", "a"]) == [1, 2.0, "a"]
    assert ext_lists.reverse([1, 2]) == [2, 1]
    assert ext_lists.first([]) == Optional(False)
    assert ext_lists.last([1, 2]) == Optional(True, 2)


def test_sets() -> None:
    assert sets.contains([1, 2, 3], [3, 1])
    assert sets.contains([1], [1.0])
    assert sets.contains([], [])
    assert not sets.contains([1], [2])
    assert sets.equivalent([1, 2, 1], [2, 1])
    assert sets.intersects([1, 2], [2, 3])
    assert not sets.intersects([], [1])


# --- regex --------------------------------------------------------------------------------


def test_find_and_find_all() -> None:
    assert regex.find("abc 123", "[0-9]+") == "123"
    assert regex.find("abc", "[0-9]+") == ""
    assert regex.find_all("123 abc 456", "[0-9]+") == ["123", "456"]
    assert regex.find_all("123 abc 456", "[0-9]+", 1) == ["123"]
    assert regex.find_all("123", "[0-9]+", 0) == []
    # Go: no empty match right after a previous match
    assert regex.find_all("baaab", "a*") == ["", "aaa", ""]
    with pytest.raises(CelEvaluationError) as info:
        regex.find("x", "(")
    assert str(info.value) == "Illegal regex: error parsing regexp: missing closing ): `(`"


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("(", "error parsing regexp: missing closing ): `(`"),
        ("a)", "error parsing regexp: unexpected ): `a)`"),
        ("[a", "error parsing regexp: missing closing ]: `[a`"),
        ("a**", "error parsing regexp: invalid nested repetition operator: `**`"),
        ("*", "error parsing regexp: missing argument to repetition operator: `*`"),
        ("\\8", "error parsing regexp: invalid escape sequence: `\\8`"),
    ],
)
def test_regex_errors_use_go_text(pattern: str, message: str) -> None:
    with pytest.raises(CelEvaluationError) as info:
        regex.find("x", pattern)
    assert str(info.value) == "Illegal regex: " + message


# --- ext strings --------------------------------------------------------------------------


def test_strings() -> None:
    s = ext_strings
    assert s.char_at("tacocat", 3) == "o"
    assert s.char_at("tacocat", 7) == ""
    with pytest.raises(CelEvaluationError, match=r"^index out of range: 8$"):
        s.char_at("tacocat", 8)
    assert s.index_of("tacocat", "ac") == 1
    assert s.index_of("tacocat", "none") == -1
    assert s.index_of("tacocat", "") == 0
    assert s.index_of("tacocat", "a", 3) == 5
    assert s.index_of("tacocat", "a", 30) == -1
    with pytest.raises(CelEvaluationError, match=r"^index out of range: -1$"):
        s.index_of("tacocat", "a", -1)
    assert s.index_of("ta©o©αT", "©") == 2
    assert s.last_index_of("tacocat", "at") == 5
    assert s.last_index_of("tacocat", "") == 7
    assert s.last_index_of("tacocat", "a", 3) == 1
    assert s.last_index_of("", "a") == -1
    assert s.lower_ascii("TacoCÆt") == "tacocÆt"
    assert s.upper_ascii("tacoCat ñ") == "TACOCAT ñ"
    assert s.replace("banana", "a", "o") == "bonono"
    assert s.replace("banana", "a", "o", 2) == "bonona"
    assert s.replace("ab", "", "-") == "-a-b-"
    assert s.replace("ab", "", "-", 2) == "-a-b"
    assert s.split("a,b,,c", ",") == ["a", "b", "", "c"]
    assert s.split("a,b,c", ",", 2) == ["a", "b,c"]
    assert s.split("a,b", ",", 0) == []
    assert s.split("abc", "") == ["a", "b", "c"]
    assert s.split("abc", "", 2) == ["a", "bc"]
    assert s.substring("tacocat", 4) == "cat"
    assert s.substring("tacocat", 0, 4) == "taco"
    with pytest.raises(CelEvaluationError, match=r"^invalid substring range\. start: 4, end: 3$"):
        s.substring("tacocat", 4, 3)
    with pytest.raises(CelEvaluationError, match=r"^index out of range: 40$"):
        s.substring("tacocat", 40)
    assert s.trim(" \t\u00a0 x \u3000\n") == "x"
    assert s.join(["a", "b"], "-") == "a-b"
    assert s.join([]) == ""
    assert s.quote('a\nb"\\') == '"a\\nb\\"\\\\"'


# --- string.format ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "args", "expected"),
    [
        ("no substitution", [], "no substitution"),
        ("%%%s%%", ["text"], "%text%"),
        ("%d %d %d, %s %s %s", [1, 2, 3, "A", "B", "C"], "1 2 3, A B C"),
        ("%.3f", [1.2345], "1.234"),
        ("this is 5 in binary: %b", [5], "this is 5 in binary: 101"),
        ("%o", [11], "13"),
        ("%o", [-11], "-13"),
        ("%x", ["Hello world!"], "48656c6c6f20776f726c6421"),
        ("%X", [b"byte string"], "6279746520737472696E67"),
        ("%x", [255], "ff"),
        ("%.6e", [1052.032911275], "1.052033\u202f\u00d7\u202f10\u2070\u00b3"),
        ("%e", [2.71828], "2.718280\u202f\u00d7\u202f10\u2070\u2070"),
        ("%f", [2.71828], "2.718280"),
        ("%s", [2.71], "2.71"),
        ("%s", [[2.71]], "[2.710000]"),
        ("%s", [0.000000002], "2e-09"),
        ("%f", ["NaN"], "NaN"),
        ("%f", ["-Infinity"], "-∞"),
        ("%s", [[math.nan, math.inf, -math.inf]], '["NaN", "+Inf", "-Inf"]'),
        ("%d", [UInt(64)], "64"),
        ("null: %s", [None], "null: null"),
        ("some bytes: %s", [b"xyz"], "some bytes: xyz"),
        ("%s", [Duration(6347 * 10**9)], "6347s"),
        ("%s", [Duration(2)], "0.000000002s"),
        ("%s", [["abc", 3.14, None, [9, 8]]], '["abc", 3.140000, null, [9, 8]]'),
        ("%s", [{"key1": b"xyz", "key5": None, "key3": 2.71828}],
         '{"key1":b"xyz", "key3":2.718280, "key5":null}'),
        ("%s", [{1: "value1", UInt(2): "value2", False: math.nan}],
         '{1:"value1", 2:"value2", false:"NaN"}'),
        ("true bool: %s", [True], "true bool: true"),
        ("%.2f", [1234567.891], "1,234,567.89"),
        ("%.0f", [-1234.5], "-1,234"),
    ],
)  # fmt: skip
def test_format(fmt: str, args: list[object], expected: str) -> None:
    assert string_format.format_string(fmt, args) == expected


@pytest.mark.parametrize(
    ("fmt", "args", "message"),
    [
        ("%s %s", ["a"], "index 1 out of range"),
        ("%", [1], "unexpected end of string"),
        ("%", [], "index 0 out of range"),
        ("%v", [1], 'could not parse formatting clause: unrecognized formatting clause "v"'),
        ("%d", ["x"],
         "error during formatting: decimal clause can only be used on integers, was given string"),
        ("%f", [1], "error during formatting: fixed-point clause can only be used on doubles, "
                    "was given int"),
        ("%.3", [1.0], "could not parse formatting clause: error while parsing precision: "
                       "could not find end of precision specifier"),
    ],
)  # fmt: skip
def test_format_errors(fmt: str, args: list[object], message: str) -> None:
    with pytest.raises(CelEvaluationError) as info:
        string_format.format_string(fmt, args)
    assert str(info.value) == message


def test_format_validator() -> None:
    from kubedra.cel.registry import NOT_CONSTANT

    v = string_format.validate_format_call
    assert v(("%d", ["x"])) == (
        "error during formatting: decimal clause can only be used on integers, was given string"
    )
    assert v(("%s %s", ["a"])) == "index 1 out of range"
    assert v(("%s", ["a", "b"])) == (
        "too many arguments supplied to string.format (expected 1, got 2)"
    )
    assert v(("%d", [NOT_CONSTANT])) is None
    assert v(("%v", [NOT_CONSTANT])) == (
        'could not parse formatting clause: unrecognized formatting clause "v"'
    )
    assert v((NOT_CONSTANT, [1])) is None


# --- URLs ---------------------------------------------------------------------------------


def test_url_parts() -> None:
    u = urls.to_url("https://user:pass@example.com:80/path%20x?query=val&query=val2&b#frag")
    assert u.url.scheme == "https"
    assert u.url.host == "example.com:80"
    assert u.url.hostname() == "example.com"
    assert u.url.port() == "80"
    assert u.url.escaped_path() == "/path%20x"
    assert u.url.query() == {"query": ["val", "val2"], "b": [""]}
    v6 = urls.to_url("https://[::1]:8080/")
    assert v6.url.hostname() == "::1"
    assert v6.url.port() == "8080"
    assert urls.to_url("https://example.com/a%2Fb").url.escaped_path() == "/a%2Fb"


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("https://example.com", True),
        ("/absolute-path", True),
        ("https://example.com:badport", False),
        ("example.com", False),
        ("", False),
        ("https://exa mple.com", False),
        ("http://[::1", False),
        ("mailto:someone@example.com", True),
    ],
)
def test_is_url(text: str, ok: bool) -> None:
    assert urls.is_url(text) is ok


def test_url_error_text() -> None:
    with pytest.raises(CelEvaluationError) as info:
        urls.to_url("example.com")
    assert str(info.value) == (
        'URL parse error during conversion from string: parse "example.com": '
        "invalid URI for request"
    )
    with pytest.raises(goneturl.URLError, match='invalid port ":x" after host'):
        goneturl.parse_request_uri("http://h:x/")


# --- IP and CIDR --------------------------------------------------------------------------


def test_ip() -> None:
    ip = net.parse_ip("192.168.0.1")
    assert net.family(ip) == 4
    assert net.family(net.parse_ip("::1")) == 6
    assert not net._succeeds(net.parse_ip, "192.168.0.1.0")
    assert not net._succeeds(net.parse_ip, "::ffff:1.2.3.4")
    assert not net._succeeds(net.parse_ip, "fe80::1%eth0")
    assert not net._succeeds(net.parse_ip, "010.0.0.1")
    assert net.is_canonical("2001:db8::abcd")
    assert not net.is_canonical("2001:DB8::ABCD")
    assert not net.is_canonical("2001:db8:0:0:0:0:0:abcd")
    assert net.is_loopback(net.parse_ip("127.0.0.2"))
    assert net.is_unspecified(net.parse_ip("::"))
    assert net.is_link_local_multicast(net.parse_ip("224.0.0.251"))
    assert net.is_link_local_multicast(net.parse_ip("ff02::1"))
    assert net.is_link_local_unicast(net.parse_ip("169.254.169.254"))
    assert net.is_link_local_unicast(net.parse_ip("fe80::1"))
    assert net.is_global_unicast(net.parse_ip("192.168.0.1"))
    assert not net.is_global_unicast(net.parse_ip("255.255.255.255"))
    assert not net.is_global_unicast(net.parse_ip("ff00::1"))
    with pytest.raises(CelEvaluationError, match=r"^IP address with zone value is not allowed$"):
        net.parse_ip("fe80::1%eth0")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("192.168.0.1.0", 'ParseAddr("192.168.0.1.0"): IPv4 address too long'),
        ("2001:db8:::68",
         'ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit '
         '(at ":68")'),
        ("1.2.3", 'ParseAddr("1.2.3"): IPv4 address too short'),
        ("1.2.3.256", 'ParseAddr("1.2.3.256"): IPv4 field has value >255'),
        ("01.2.3.4", 'ParseAddr("01.2.3.4"): IPv4 field has octet with leading zero'),
        ("x", 'ParseAddr("x"): unable to parse IP'),
        ("1:2:3:4:5:6:7:8:9", 'ParseAddr("1:2:3:4:5:6:7:8:9"): trailing garbage after address '
                              '(at "9")'),
    ],
)  # fmt: skip
def test_netip_parse_errors(text: str, message: str) -> None:
    with pytest.raises(CelEvaluationError) as info:
        net.parse_ip(text)
    assert str(info.value) == (
        f'IP Address "{text}" parse error during conversion from string: {message}'
    )


def test_netip_accepts_what_go_accepts() -> None:
    assert str(net.parse_ip("::")) == "::"
    assert str(net.parse_ip("1:2:3:4:5:6:7::")) == "1:2:3:4:5:6:7:0"
    assert str(net.parse_ip("::1.2.3.4")) == "::102:304"
    assert str(net.parse_ip("2001:DB8::1")) == "2001:db8::1"
    with pytest.raises(CelEvaluationError, match="at least one field of zeros"):
        net.parse_ip("1:2:3:4::5:6:7:8")


def test_cidr() -> None:
    c = net.parse_cidr("192.168.0.5/24")
    assert str(c) == "192.168.0.5/24"
    assert str(net.cidr_masked(c)) == "192.168.0.0/24"
    assert str(net.IP(c.addr)) == "192.168.0.5"
    assert net.cidr_contains_ip(c, "192.168.0.200")
    assert not net.cidr_contains_ip(c, "192.168.1.1")
    assert not net.cidr_contains_ip(c, "::1")
    assert net.cidr_contains_cidr(c, "192.168.0.0/25")
    assert net.cidr_contains_cidr(net.parse_cidr("10.0.0.0/8"), "10.1.2.3/24")
    assert not net.cidr_contains_cidr(c, "192.168.0.0/23")
    assert net.parse_cidr("::1/128").bits == 128
    for bad in ("192.168.0.0/33", "192.168.0.0", "192.168.0.0/024", "::ffff:1.2.3.4/96"):
        assert not net._succeeds(net.parse_cidr, bad), bad


# --- named formats ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value", "valid"),
    [
        ("dns1123Label", "abc", True),
        ("dns1123Label", "ABC", False),
        ("dns1123Label", "a" * 64, False),
        ("dns1123Subdomain", "example.com", True),
        ("dns1035Label", "1abc", False),
        ("dns1035Label", "abc-1", True),
        ("qualifiedName", "a/b", True),
        ("qualifiedName", "example.com/My.Name", True),
        ("qualifiedName", "/b", False),
        ("labelValue", "", True),
        ("labelValue", "-x", False),
        ("dns1123LabelPrefix", "my-prefix-", True),
        ("uri", "https://x", True),
        ("uri", "x", False),
        ("uuid", "123e4567-e89b-12d3-a456-426614174000", True),
        ("uuid", "x", False),
        ("byte", "YWJj", True),
        ("byte", "YWJ", False),
        ("date", "2024-02-29", True),
        ("date", "2024-02-30", False),
        ("datetime", "2024-01-01T00:00:00Z", True),
        ("datetime", "2024-01-01T25:00:00Z", False),
    ],
)
def test_named_formats(name: str, value: str, valid: bool) -> None:
    fmt = named_formats.FORMATS[name]
    assert named_formats.validate(fmt, value).has_value is (not valid)


@pytest.mark.parametrize(
    ("name", "value", "messages"),
    [
        # apimachinery's IsDNS1123Label reports a valid subdomain as "must not contain dots".
        ("dns1123Label", "a.b", ["must not contain dots"]),
        ("dns1123Label", "a" * 64, ["must be no more than 63 characters"]),
        ("qualifiedName", "a" * 64, ["name part must be no more than 63 bytes"]),
        # maskTrailingDash drops two characters: "a_-" is checked as "aa".
        ("dns1123LabelPrefix", "a_-", []),
    ],
)
def test_named_format_messages_match_apimachinery(
    name: str, value: str, messages: list[str]
) -> None:
    result = named_formats.validate(named_formats.FORMATS[name], value)
    assert (result.value if result.has_value else []) == messages


def test_format_named() -> None:
    assert named_formats.named("dns1123Label").has_value
    assert not named_formats.named("nope").has_value


# --- through the selector environment -----------------------------------------------------


@pytest.mark.parametrize(
    "expression",
    [
        'type(ip("192.168.0.1")) == net.IP',
        'type(cidr("10.0.0.0/8")) == net.CIDR',
        'type(quantity("1")) == kubernetes.Quantity',
        'type(semver("1.0.0")) == kubernetes.Semver',
        'type(url("https://x")) == kubernetes.URL',
        'string(ip("192.168.0.1")) == "192.168.0.1"',
        'sign(quantity("-1")) == -1',
        '"%s %d".format(["a", 1]) == "a 1"',
        "[3, 1, 2].sortBy(x, -x) == [3, 2, 1]",
        '[semver("1.0.0")].includes(semver("1.0.0+b"))',
        'device.attributes["d"].v != null',
    ],
)
def test_library_expressions(expression: str) -> None:
    from kubedra.cel import compile_selector
    from kubedra.cel.device import CelDevice

    device = CelDevice.from_v1({"name": "x", "attributes": {"v": {"version": "1.0.0"}}}, "d")
    assert compile_selector(expression).matches(device) is True


@pytest.mark.parametrize(
    "expression",
    [
        'quantity("1").sign() == 1',
        'isIP(cidr("192.168.0.0/24"))',
        '"%d".format(["x"]) == "x"',
        '"%s %s".format(["a"]) == "a"',
    ],
)
def test_library_compile_errors(expression: str) -> None:
    from kubedra.cel import CelCompileError, compile_selector

    with pytest.raises(CelCompileError):
        compile_selector(expression)


def test_literal_quantities_do_not_drift_between_evaluations() -> None:
    from kubedra.cel import compile_selector
    from kubedra.cel.device import CelDevice

    selector = compile_selector(
        'quantity("1.5Gi").add(device.capacity["d"].m) == quantity("1.5Gi").add(1)'
    )
    for _ in range(3):
        device = CelDevice.from_v1({"name": "x", "capacity": {"m": {"value": "1"}}}, "d")
        assert selector.matches(device) is True
    # a device's own decimal capacity is written through, as upstream's shared inf.Dec is
    aliased = compile_selector('device.capacity["d"].m.isLessThan(device.capacity["d"].m.add(1))')
    device = CelDevice.from_v1({"name": "x", "capacity": {"m": {"value": "1.5Gi"}}}, "d")
    assert aliased.matches(device) is False
