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


DEVICE_CLAIM_DERIVED_ATTRIBUTE_CEL_MAX_COST = 1_000_000
"""The combined estimated cost of a claim's derived attribute expressions (1.37)."""


def validate_derived_attribute_expression(
    expression: str, path: str, costs: list[int] | None = None
) -> list[FieldError]:
    """A derived attribute expression (KEP-6080): the selector's length limit, compiled in the
    same environment, its result a scalar or a list of scalars (upstream's
    ``validateOutputType`` with list types allowed, as kubedra's newest environment), and an
    estimated cost within 1,000,000. The cost is added to ``costs`` for the claim total."""
    if byte_len(expression) > CEL_SELECTOR_EXPRESSION_MAX_LENGTH:
        return [too_long(path, CEL_SELECTOR_EXPRESSION_MAX_LENGTH)]
    from kubedra.cel.derived import compile_derived_attribute, output_type_problem

    try:
        compiled = compile_derived_attribute(expression)
    except CelCompileError as error:
        return [invalid(path, expression, str(error))]
    except CelError as error:
        return [internal(path, str(error))]
    problem = output_type_problem(compiled.output_type)
    if problem is not None:
        return [invalid(path, expression, problem)]
    errs: list[FieldError] = []
    if compiled.estimated_max_cost > min(
        CEL_SELECTOR_EXPRESSION_MAX_COST, DEVICE_CLAIM_DERIVED_ATTRIBUTE_CEL_MAX_COST
    ):
        errs.append(forbidden(path, "too complex, exceeds cost limit"))
    if costs is not None:
        costs.append(compiled.estimated_max_cost)
    return errs
