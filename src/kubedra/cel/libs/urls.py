"""Kubernetes' CEL URL library (``kubernetes.URL``): url, isURL and the URL accessors."""

from __future__ import annotations

from typing import Any

from kubedra.cel.errors import CelEvaluationError
from kubedra.cel.libs._common import first_arg_string_cost
from kubedra.cel.libs.goneturl import URL, URLError, parse, parse_request_uri
from kubedra.cel.registry import Overload, Registry
from kubedra.cel.types import BOOL, STRING, list_of, map_of, opaque

URL_TYPE = opaque("kubernetes.URL")


class CelURL:
    """A parsed URL value; equal when the original texts are equal."""

    __slots__ = ("text", "url")

    def __init__(self, text: str, url: URL) -> None:
        self.text = text
        self.url = url

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CelURL) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return f"url({self.text!r})"


def to_url(text: str) -> CelURL:
    try:
        parse_request_uri(text)
        return CelURL(text, parse(text))
    except URLError as err:
        raise CelEvaluationError(f"URL parse error during conversion from string: {err}") from None


def is_url(text: str) -> bool:
    try:
        parse_request_uri(text)
    except URLError:
        return False
    return True


def _query(u: CelURL) -> dict[str, Any]:
    return dict(u.url.query())


def register(registry: Registry) -> None:
    registry.value_type(CelURL, URL_TYPE)
    add = registry.add
    add("url", Overload("string_to_url", (STRING,), URL_TYPE, to_url, cost=first_arg_string_cost))
    add("isURL", Overload("is_url_string", (STRING,), BOOL, is_url))
    add(
        "getScheme",
        Overload("url_get_scheme", (URL_TYPE,), STRING, lambda u: u.url.scheme, member=True),
    )
    add("getHost", Overload("url_get_host", (URL_TYPE,), STRING, lambda u: u.url.host, member=True))
    add(
        "getHostname",
        Overload("url_get_hostname", (URL_TYPE,), STRING, lambda u: u.url.hostname(), member=True),
    )
    add(
        "getPort",
        Overload("url_get_port", (URL_TYPE,), STRING, lambda u: u.url.port(), member=True),
    )
    add(
        "getEscapedPath",
        Overload(
            "url_get_escaped_path", (URL_TYPE,), STRING, lambda u: u.url.escaped_path(), member=True
        ),
    )
    add(
        "getQuery",
        Overload(
            "url_get_query", (URL_TYPE,), map_of(STRING, list_of(STRING)), _query, member=True
        ),
    )
