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

from kubedra.cel.libs._common import REGEX_STRING_LENGTH_COST_FACTOR, STRING_TRAVERSAL_COST_FACTOR
from kubedra.cel.libs.goneturl import URLError, parse_request_uri
from kubedra.cel.registry import Overload, Registry
from kubedra.cel.types import STRING, list_of, opaque, optional_of
from kubedra.cel.values import Optional

FORMAT_TYPE = opaque("kubernetes.NamedFormat")

_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE_FMT = "(" + _QUALIFIED_NAME_FMT + ")?"


def _full(pattern: str) -> re.Pattern[str]:
    return re.compile("^" + pattern + "$")


_DNS1123_LABEL = _full(_DNS1123_LABEL_FMT)
_DNS1123_SUBDOMAIN = _full(_DNS1123_SUBDOMAIN_FMT)
_DNS1035_LABEL = _full(_DNS1035_LABEL_FMT)
_QUALIFIED_NAME = _full(_QUALIFIED_NAME_FMT)
_LABEL_VALUE = _full(_LABEL_VALUE_FMT)
_UUID = re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\Z")
_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")
_TIME = re.compile(r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))\Z")


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = ",  or ".join(f"'{e}'" for e in examples)
    return f"{msg} (e.g. {shown}, regex used for validation is '{fmt}')"


def _max_len(n: int) -> str:
    return f"must be no more than {n} characters"


def is_dns1123_label(value: str) -> list[str]:
    errs = []
    if len(value) > 63:
        errs.append(_max_len(63))
    if not _DNS1123_LABEL.match(value):
        errs.append(
            _regex_error(
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
                "'-', and must start and end with an alphanumeric character",
                _DNS1123_LABEL_FMT,
                "my-name",
                "123-abc",
            )
        )
    return errs


def is_dns1123_subdomain(value: str) -> list[str]:
    errs = []
    if len(value) > 253:
        errs.append(_max_len(253))
    if not _DNS1123_SUBDOMAIN.match(value):
        errs.append(
            _regex_error(
                "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                "characters, '-' or '.', and must start and end with an alphanumeric character",
                _DNS1123_SUBDOMAIN_FMT,
                "example.com",
            )
        )
    return errs


def is_dns1035_label(value: str) -> list[str]:
    errs = []
    if len(value) > 63:
        errs.append(_max_len(63))
    if not _DNS1035_LABEL.match(value):
        errs.append(
            _regex_error(
                "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start "
                "with an alphabetic character, and end with an alphanumeric character",
                _DNS1035_LABEL_FMT,
                "my-name",
                "abc-123",
            )
        )
    return errs


def is_qualified_name(value: str) -> list[str]:
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + e for e in is_dns1123_subdomain(prefix))
    else:
        return [
            _regex_error(
                "a qualified name must consist of alphanumeric characters, '-', '_' or '.', "
                "and must start and end with an alphanumeric character",
                _QUALIFIED_NAME_FMT,
                "MyName",
                "my.name",
                "123-abc",
            )
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > 63:
        errs.append("name part " + _max_len(63))
    if not _QUALIFIED_NAME.match(name):
        errs.append(
            "name part "
            + _regex_error(
                "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and "
                "must start and end with an alphanumeric character",
                _QUALIFIED_NAME_FMT,
                "MyName",
                "my.name",
                "123-abc",
            )
        )
    return errs


def is_label_value(value: str) -> list[str]:
    errs = []
    if len(value) > 63:
        errs.append(_max_len(63))
    if not _LABEL_VALUE.match(value):
        errs.append(
            _regex_error(
                "a valid label must be an empty string or consist of alphanumeric characters, '-', "
                "'_' or '.', and must start and end with an alphanumeric character",
                _LABEL_VALUE_FMT,
                "MyValue",
                "my_value",
                "12345",
            )
        )
    return errs


def _mask_trailing_dash(name: str) -> str:
    if len(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"
    return name


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


FORMATS: dict[str, NamedFormat] = {
    "dns1123Label": NamedFormat("DNS1123Label", is_dns1123_label, 30),
    "dns1123Subdomain": NamedFormat("DNS1123Subdomain", is_dns1123_subdomain, 60),
    "dns1035Label": NamedFormat("DNS1035Label", is_dns1035_label, 30),
    "qualifiedName": NamedFormat("QualifiedName", is_qualified_name, 60),
    "dns1123LabelPrefix": NamedFormat(
        "DNS1123LabelPrefix", lambda s: is_dns1123_label(_mask_trailing_dash(s)), 30
    ),
    "dns1123SubdomainPrefix": NamedFormat(
        "DNS1123SubdomainPrefix", lambda s: is_dns1123_subdomain(_mask_trailing_dash(s)), 60
    ),
    "dns1035LabelPrefix": NamedFormat(
        "DNS1035LabelPrefix", lambda s: is_dns1035_label(_mask_trailing_dash(s)), 30
    ),
    "labelValue": NamedFormat("LabelValue", is_label_value, 40),
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
