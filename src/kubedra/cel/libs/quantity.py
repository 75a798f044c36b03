"""Kubernetes' CEL quantity library (``kubernetes.Quantity``).

Upstream declares ``sign`` as a global function, not a member (``sign(q)`` works,
``q.sign()`` does not), and ``add``/``sub`` on a decimal-backed quantity write through to the
receiver; both are reproduced.
"""

from __future__ import annotations

from kubedra.api.quantity import DECIMAL_EXPONENT, Quantity, QuantityParseError
from kubedra.cel.errors import CelEvaluationError
from kubedra.cel.libs._common import first_arg_string_cost, nominal
from kubedra.cel.registry import Overload, Registry
from kubedra.cel.types import BOOL, DOUBLE, INT, STRING, opaque

QUANTITY = opaque("kubernetes.Quantity")


# apimachinery's ErrNumeric: the parse failed on the number itself (here: more digits than
# the parser can convert).
_NUMERIC_ERROR = "unable to parse numeric part of quantity"


def quantity(text: str) -> Quantity:
    try:
        return Quantity.parse(text).unshared()
    except QuantityParseError as err:
        raise CelEvaluationError(str(err)) from None
    except ValueError:
        raise CelEvaluationError(_NUMERIC_ERROR) from None


def is_quantity(text: str) -> bool:
    try:
        Quantity.parse(text)
    except (QuantityParseError, ValueError):
        return False
    return True


def as_integer(q: Quantity) -> int:
    value = q.as_int64()
    if value is None:
        raise CelEvaluationError("cannot convert value to integer")
    return value


def add_int(q: Quantity, n: int) -> Quantity:
    return q.cel_add(Quantity.from_int(n, DECIMAL_EXPONENT))


def sub_int(q: Quantity, n: int) -> Quantity:
    return q.cel_sub(Quantity.from_int(n, DECIMAL_EXPONENT))


def register(registry: Registry) -> None:
    registry.value_type(Quantity, QUANTITY)
    q2 = (QUANTITY, QUANTITY)
    add = registry.add
    add(
        "quantity",
        Overload("string_to_quantity", (STRING,), QUANTITY, quantity, cost=first_arg_string_cost),
    )
    add(
        "isQuantity",
        Overload("is_quantity_string", (STRING,), BOOL, is_quantity, cost=first_arg_string_cost),
    )
    add("sign", Overload("quantity_sign", (QUANTITY,), INT, Quantity.sign, cost=nominal))
    add(
        "isGreaterThan",
        Overload(
            "quantity_is_greater_than",
            q2,
            BOOL,
            Quantity.__gt__,
            member=True,
            cost=nominal,
        ),
    )
    add(
        "isLessThan",
        Overload(
            "quantity_is_less_than",
            q2,
            BOOL,
            Quantity.__lt__,
            member=True,
            cost=nominal,
        ),
    )
    add(
        "compareTo",
        Overload("quantity_compare_to", q2, INT, Quantity.cmp, member=True, cost=nominal),
    )
    add(
        "asApproximateFloat",
        Overload(
            "quantity_get_float",
            (QUANTITY,),
            DOUBLE,
            Quantity.as_approximate_float,
            member=True,
            cost=nominal,
        ),
    )
    add(
        "asInteger",
        Overload("quantity_get_int", (QUANTITY,), INT, as_integer, member=True, cost=nominal),
    )
    add(
        "isInteger",
        Overload(
            "quantity_is_integer", (QUANTITY,), BOOL, Quantity.is_integer, member=True, cost=nominal
        ),
    )
    add("add", Overload("quantity_add", q2, QUANTITY, Quantity.cel_add, member=True, cost=nominal))
    add(
        "add",
        Overload("quantity_add_int", (QUANTITY, INT), QUANTITY, add_int, member=True, cost=nominal),
    )
    add("sub", Overload("quantity_sub", q2, QUANTITY, Quantity.cel_sub, member=True, cost=nominal))
    add(
        "sub",
        Overload("quantity_sub_int", (QUANTITY, INT), QUANTITY, sub_int, member=True, cost=nominal),
    )
