"""Kubernetes' CEL ``format`` library: named string formats and their validators.

``format.dns1123Label().validate(s)`` returns ``optional.none()`` for a valid string and the
apimachinery validation messages otherwise.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import math
import re
from collections.abc import Callable
from typing import Any

from kubedra.api import naming
from kubedra.cel.libs._common import REGEX_STRING_LENGTH_COST_FACTOR, STRING_TRAVERSAL_COST_FACTOR
from kubedra.cel.libs.goneturl import URLError, parse_request_uri
from kubedra.cel.registry import Overload, Registry
from kubedra.cel.types import STRING, list_of, opaque, optional_of
from kubedra.cel.values import Optional

FORMAT_TYPE = opaque("kubernetes.NamedFormat")

_UUID = re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\Z")
_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")
_TIME = re.compile(r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))\Z")


def _uri(value: str) -> list[str]:
    try:
        parse_request_uri(value)
    except URLError as err:
        return [str(err)]
    return []


def _is_date(value: str) -> bool:
    if not _DATE.match(value):
        return False
    try:
        datetime.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _datetime(value: str) -> list[str]:
    if len(value) >= 4:
        parts = value.lower().split("t")
        if len(parts) >= 2 and _is_date(parts[0]):
            m = _TIME.match(parts[1])
            if m and m.group(1) <= "23" and m.group(2) <= "59" and m.group(3) <= "59":
                return []
    return ["invalid datetime"]


def _byte(value: str) -> list[str]:
    try:
        base64.b64decode(value.replace("\r", "").replace("\n", ""), validate=True)
    except (binascii.Error, ValueError):
        return ["invalid base64"]
    return []


class NamedFormat:
    """A named validation; ``max_regex_size`` is what Kubernetes prices a validation at."""

    __slots__ = ("max_regex_size", "name", "validate")

    def __init__(
        self, name: str, validate: Callable[[str], list[str]], max_regex_size: int
    ) -> None:
        self.name = name
        self.validate = validate
        self.max_regex_size = max_regex_size

    def __repr__(self) -> str:
        return f"format.{self.name}"


def _checks(
    name_check: Callable[[str, bool], tuple[str, ...]], prefix: bool
) -> Callable[[str], list[str]]:
    """An apimachinery ``NameIs*`` check as the format library calls it (prefix or not)."""
    return lambda value: list(name_check(value, prefix))


FORMATS: dict[str, NamedFormat] = {
    "dns1123Label": NamedFormat("DNS1123Label", _checks(naming.name_is_dns_label, False), 30),
    "dns1123Subdomain": NamedFormat(
        "DNS1123Subdomain", _checks(naming.name_is_dns_subdomain, False), 60
    ),
    "dns1035Label": NamedFormat("DNS1035Label", _checks(naming.name_is_dns1035_label, False), 30),
    "qualifiedName": NamedFormat("QualifiedName", lambda s: list(naming.is_qualified_name(s)), 60),
    "dns1123LabelPrefix": NamedFormat(
        "DNS1123LabelPrefix", _checks(naming.name_is_dns_label, True), 30
    ),
    "dns1123SubdomainPrefix": NamedFormat(
        "DNS1123SubdomainPrefix", _checks(naming.name_is_dns_subdomain, True), 60
    ),
    "dns1035LabelPrefix": NamedFormat(
        "DNS1035LabelPrefix", _checks(naming.name_is_dns1035_label, True), 30
    ),
    "labelValue": NamedFormat("LabelValue", lambda s: list(naming.is_label_value(s)), 40),
    "uri": NamedFormat("URI", _uri, 1104),
    "uuid": NamedFormat(
        "uuid", lambda s: [] if _UUID.match(s) else ["does not match the UUID format"], 70
    ),
    "byte": NamedFormat("byte", _byte, 84),
    "date": NamedFormat("date", lambda s: [] if _is_date(s) else ["invalid date"], 71),
    "datetime": NamedFormat("datetime", _datetime, 71),
}


def validate(fmt: NamedFormat, value: str) -> Optional:
    errors = fmt.validate(value)
    return Optional(True, errors) if errors else Optional(False)


def named(name: str) -> Optional:
    fmt = FORMATS.get(name)
    return Optional(True, fmt) if fmt is not None else Optional(False)


def _validate_cost(args: Any, _result: Any) -> int:
    """Kubernetes prices a validation like a regex match of the format's pattern size."""
    fmt, text = args
    str_cost = math.ceil((1 + len(text)) * STRING_TRAVERSAL_COST_FACTOR)
    return str_cost * math.ceil(fmt.max_regex_size * REGEX_STRING_LENGTH_COST_FACTOR)


def _constant(fmt: NamedFormat) -> Callable[[], Any]:
    return lambda: fmt


def register(registry: Registry) -> None:
    registry.value_type(NamedFormat, FORMAT_TYPE)
    registry.add(
        "validate",
        Overload(
            "format-validate",
            (FORMAT_TYPE, STRING),
            optional_of(list_of(STRING)),
            validate,
            member=True,
            cost=_validate_cost,
        ),
    )
    registry.add(
        "format.named", Overload("format-named", (STRING,), optional_of(FORMAT_TYPE), named)
    )
    for key, fmt in FORMATS.items():
        name = "format." + key
        registry.add(name, Overload(name, (), FORMAT_TYPE, _constant(fmt)))
