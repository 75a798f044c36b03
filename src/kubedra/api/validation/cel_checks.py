"""The seam between validation and the CEL engine: checks on a device selector expression.

Upstream rejects a selector that is longer than 10 Ki, does not compile, does not return a
bool, or whose estimated cost exceeds 1,000,000. Only the length check lives here until the CEL
compiler (``kubedra.cel.compile_selector``) is available.
"""

from __future__ import annotations

from kubedra.api.validation.errors import FieldError, too_long
from kubedra.api.validation.names import byte_len

CEL_SELECTOR_EXPRESSION_MAX_LENGTH = 10 * 1024
CEL_SELECTOR_EXPRESSION_MAX_COST = 1_000_000


def validate_selector_expression(expression: str, path: str) -> list[FieldError]:
    """All problems of one CEL selector expression at ``path`` (``...cel.expression``)."""
    if byte_len(expression) > CEL_SELECTOR_EXPRESSION_MAX_LENGTH:
        # Upstream does not bother compiling an expression that is too long.
        return [too_long(path, CEL_SELECTOR_EXPRESSION_MAX_LENGTH)]
    return []


def validate_derived_attribute_expression(expression: str, path: str) -> list[FieldError]:
    """A derived attribute expression: same limits, but its result need not be a bool."""
    if byte_len(expression) > CEL_SELECTOR_EXPRESSION_MAX_LENGTH:
        return [too_long(path, CEL_SELECTOR_EXPRESSION_MAX_LENGTH)]
    return []
