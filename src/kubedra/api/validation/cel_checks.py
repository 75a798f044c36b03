"""The seam between validation and the CEL engine: checks on a device selector expression.

Upstream rejects a selector that is longer than 10 Ki, does not compile, does not return a
bool, or whose estimated cost exceeds 1,000,000 (``validateCELExpression``).
"""

from __future__ import annotations

from kubedra.api.validation.errors import FieldError, forbidden, internal, invalid, too_long
from kubedra.api.validation.names import byte_len
from kubedra.cel import CelCompileError, CelError, compile_selector

CEL_SELECTOR_EXPRESSION_MAX_LENGTH = 10 * 1024
CEL_SELECTOR_EXPRESSION_MAX_COST = 1_000_000


def validate_selector_expression(expression: str, path: str) -> list[FieldError]:
    """All problems of one CEL selector expression at ``path`` (``...cel.expression``)."""
    if byte_len(expression) > CEL_SELECTOR_EXPRESSION_MAX_LENGTH:
        # Upstream does not bother compiling an expression that is too long.
        return [too_long(path, CEL_SELECTOR_EXPRESSION_MAX_LENGTH)]
    try:
        compiled = compile_selector(expression)
    except CelCompileError as error:
        # The engine words compile errors like upstream: "compilation failed: ERROR: <input>..."
        # or "must evaluate to bool or the unknown type, not int".
        return [invalid(path, expression, str(error))]
    except CelError as error:
        return [internal(path, str(error))]
    if compiled.estimated_max_cost > CEL_SELECTOR_EXPRESSION_MAX_COST:
        return [forbidden(path, "too complex, exceeds cost limit")]
    return []


def validate_derived_attribute_expression(expression: str, path: str) -> list[FieldError]:
    """A derived attribute expression: same length limit; its result need not be a bool, which
    the selector compiler cannot check, so only the length is validated."""
    if byte_len(expression) > CEL_SELECTOR_EXPRESSION_MAX_LENGTH:
        return [too_long(path, CEL_SELECTOR_EXPRESSION_MAX_LENGTH)]
    return []
