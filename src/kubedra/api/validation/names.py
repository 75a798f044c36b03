"""Name checks as ``field.Error`` lists; the checks themselves live in ``kubedra.api.naming``."""

from __future__ import annotations

from kubedra.api.naming import (
    DNS1123_LABEL_MAX_LENGTH,
    DNS1123_SUBDOMAIN_MAX_LENGTH,
    LABEL_KEY_NAME_MAX_LENGTH,
    LABEL_VALUE_MAX_LENGTH,
    byte_len,
    dns_max_len_error,
    is_c_identifier,
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_label_value,
    is_qualified_name,
    mask_trailing_dash,
    max_len_error,
    name_is_dns1035_label,
    name_is_dns_label,
    name_is_dns_subdomain,
    regex_error,
)
from kubedra.api.validation.errors import FieldError, invalid

__all__ = [
    "DNS1123_LABEL_MAX_LENGTH",
    "DNS1123_SUBDOMAIN_MAX_LENGTH",
    "LABEL_KEY_NAME_MAX_LENGTH",
    "LABEL_VALUE_MAX_LENGTH",
    "byte_len",
    "dns_max_len_error",
    "is_c_identifier",
    "is_dns1035_label",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_label_value",
    "is_qualified_name",
    "mask_trailing_dash",
    "max_len_error",
    "name_is_dns1035_label",
    "name_is_dns_label",
    "name_is_dns_subdomain",
    "regex_error",
    "validate_dns1123_label",
    "validate_dns1123_subdomain",
    "validate_label_name",
    "validate_label_value",
    "validate_labels",
]


def validate_dns1123_label(value: str, path: str) -> list[FieldError]:
    return [invalid(path, value, msg) for msg in is_dns1123_label(value)]


def validate_dns1123_subdomain(value: str, path: str) -> list[FieldError]:
    return [invalid(path, value, msg) for msg in is_dns1123_subdomain(value)]


def validate_label_name(value: str, path: str) -> list[FieldError]:
    """``metav1validation.ValidateLabelName``."""
    return [invalid(path, value, msg) for msg in is_qualified_name(value)]


def validate_label_value(value: str, path: str) -> list[FieldError]:
    return [invalid(path, value, msg) for msg in is_label_value(value)]


def validate_labels(labels: dict[str, str], path: str) -> list[FieldError]:
    """``metav1validation.ValidateLabels``: errors point at the map, not at the key."""
    errs: list[FieldError] = []
    for label_key, label_value in labels.items():
        errs.extend(validate_label_name(label_key, path))
        # A null value decodes to the empty string, as Go's decoder does.
        errs.extend(validate_label_value(label_value if isinstance(label_value, str) else "", path))
    return errs
