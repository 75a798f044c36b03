"""``"...".format([args])`` as cel-go's ext strings library formats at versions below 4.

That formatter prints %f and %e through golang.org/x/text with the en_US locale, so fixed-point
output has thousands separators and scientific output reads ``1.234500 × 10⁰³`` (and because of
an upstream slip the precision of %e is used as a field width: the precision is always 6).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from kubedra.cel.errors import CelEvaluationError
from kubedra.cel.registry import NOT_CONSTANT
from kubedra.cel.values import (
    Duration,
    Optional,
    Timestamp,
    TypeValue,
    UInt,
    format_double,
    type_name,
)
from kubedra.gofmt import quote as go_quote

DEFAULT_PRECISION = 6
_SUPERSCRIPTS = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
_NNBSP = "\u202f"


class _FormatError(Exception):
    """A clause rejected its argument (message as cel-go's, without the wrapping prefix)."""


# --- runtime formatting of values ---------------------------------------------------------


def _duration_text(d: Duration) -> str:
    seconds = d.ns / 1e9
    text = repr(seconds) if d.ns % 1_000_000_000 else str(d.ns // 1_000_000_000)
    if "e" in text or "E" in text:
        text = f"{d.ns // 1_000_000_000}.{abs(d.ns) % 1_000_000_000:09d}".rstrip("0")
    return text + "s"


def _timestamp_text(t: Timestamp) -> str:
    import datetime

    seconds, nanos = divmod(t.ns, 1_000_000_000)
    moment = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC) + datetime.timedelta(
        seconds=seconds
    )
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if nanos:
        text += "." + f"{nanos:09d}".rstrip("0")
    return text + "Z"


def _string_clause(value: Any) -> str:
    """cel-go's FormatString (%s)."""
    if isinstance(value, list):
        return _format_list(value)
    if isinstance(value, dict):
        return _format_map(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, UInt)):
        return str(int(value))
    if isinstance(value, float):
        return format_double(value)
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise _FormatError("invalid UTF-8 in bytes, cannot convert to string") from None
    if isinstance(value, Timestamp):
        return _timestamp_text(value)
    if isinstance(value, Duration):
        return _duration_text(value)
    if isinstance(value, TypeValue):
        return value.name
    raise _FormatError(
        "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, "
        f"types, durations, and timestamps, was given {type_name(value)}"
    )


def _element_text(value: Any) -> str:
    """An element of a list or map, printed as a CEL literal (cel-go's clauseForType)."""
    if isinstance(value, float) and not isinstance(value, bool):
        if math.isnan(value):
            return '"NaN"'
        if math.isinf(value):
            return '"+Inf"' if value > 0 else '"-Inf"'
        return f"{value:.{DEFAULT_PRECISION}f}"
    if isinstance(value, Timestamp):
        return f"timestamp({go_quote(_timestamp_text(value))})"
    if isinstance(value, Duration):
        return f"duration({go_quote(_duration_text(value))})"
    if isinstance(value, (bool, int, UInt, list, dict, TypeValue)) or value is None:
        return _string_clause(value)
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, bytes):
        return "b" + go_quote(_string_clause(value))
    raise _FormatError(f"no formatting function for {type_name(value)}")


def _format_list(items: list[Any]) -> str:
    return "[" + ", ".join(_element_text(v) for v in items) + "]"


def _format_map(m: dict[Any, Any]) -> str:
    pairs: list[tuple[str, str]] = []
    for key, value in m.items():
        if isinstance(key, str):
            key_text = go_quote(key)
        elif isinstance(key, bool):
            key_text = "true" if key else "false"
        elif isinstance(key, (int, UInt)):
            key_text = str(int(key))
        else:
            raise _FormatError(f"no formatting function for map key of type {type_name(key)}")
        pairs.append((key_text, _element_text(value)))
    pairs.sort(key=lambda p: p[0].encode())
    return "{" + ", ".join(f"{k}:{v}" for k, v in pairs) + "}"


def _decimal_clause(value: Any) -> str:
    if isinstance(value, (int, UInt)) and not isinstance(value, bool):
        return str(int(value))
    raise _FormatError(f"decimal clause can only be used on integers, was given {type_name(value)}")


def _float_arg(value: Any, clause: str) -> float:
    if isinstance(value, str) and value in ("NaN", "Infinity", "-Infinity"):
        return float(value.replace("Infinity", "inf"))
    if isinstance(value, float):
        return value
    raise _FormatError(f"{clause} clause can only be used on doubles, was given {type_name(value)}")


def _group_thousands(digits: str) -> str:
    head = len(digits) % 3 or 3
    groups = [digits[:head]] + [digits[i : i + 3] for i in range(head, len(digits), 3)]
    return ",".join(groups)


def _special(value: float) -> str | None:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    return None


def _fixed_clause(precision: int | None) -> Callable[[Any], str]:
    digits = DEFAULT_PRECISION if precision is None else precision

    def fixed(value: Any) -> str:
        number = _float_arg(value, "fixed-point")
        special = _special(number)
        if special is not None:
            return special
        text = f"{abs(number):.{digits}f}"
        whole, dot, frac = text.partition(".")
        sign = "-" if math.copysign(1.0, number) < 0 and text.strip("0.") else ""
        return sign + _group_thousands(whole) + dot + frac

    return fixed


def _scientific_clause(precision: int | None) -> Callable[[Any], str]:
    width = DEFAULT_PRECISION if precision is None else precision

    def scientific(value: Any) -> str:
        number = _float_arg(value, "scientific")
        special = _special(number)
        if special is None:
            mantissa, _, exponent = f"{number:.{DEFAULT_PRECISION}e}".partition("e")
            exp = int(exponent)
            exp_text = ("-" if exp < 0 else "") + f"{abs(exp):02d}"
            special = f"{mantissa}{_NNBSP}×{_NNBSP}10{exp_text.translate(_SUPERSCRIPTS)}"
        return special.rjust(width)

    return scientific


def _binary_clause(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, UInt)):
        return format(int(value), "b")
    raise _FormatError(
        f"only integers and bools can be formatted as binary, was given {type_name(value)}"
    )


def _hex_clause(upper: bool) -> Callable[[Any], str]:
    def hexadecimal(value: Any) -> str:
        if isinstance(value, str):
            text = value.encode().hex()
        elif isinstance(value, bytes):
            text = value.hex()
        elif isinstance(value, (int, UInt)) and not isinstance(value, bool):
            text = format(int(value), "x")
        else:
            raise _FormatError(
                "only integers, byte buffers, and strings can be formatted as hex, "
                f"was given {type_name(value)}"
            )
        return text.upper() if upper else text

    return hexadecimal


def _octal_clause(value: Any) -> str:
    if isinstance(value, (int, UInt)) and not isinstance(value, bool):
        return format(int(value), "o")
    raise _FormatError(f"octal clause can only be used on integers, was given {type_name(value)}")


# --- the format string --------------------------------------------------------------------


def _parse_clause(text: str, pos: int) -> tuple[int, str, int | None]:
    """Parse the clause after a '%' at ``pos``: (end position, verb, precision)."""
    precision: int | None = None
    if text[pos] == ".":
        pos += 1
        start = pos
        while True:
            if pos >= len(text):
                raise _FormatError(
                    "error while parsing precision: could not find end of precision specifier"
                )
            if not ("0" <= text[pos] <= "9"):
                break
            pos += 1
        digits = text[start:pos]
        if not digits:
            raise _FormatError(
                "error while parsing precision: error while converting precision to integer: "
                'strconv.Atoi: parsing "": invalid syntax'
            )
        precision = int(digits)
    verb = text[pos]
    if verb not in "sdfebxXo":
        raise _FormatError(f'unrecognized formatting clause "{verb}"')
    return pos + 1, verb, precision


def _clause(verb: str, precision: int | None) -> Callable[[Any], str]:
    if verb == "s":
        return _string_clause
    if verb == "d":
        return _decimal_clause
    if verb == "f":
        return _fixed_clause(precision)
    if verb == "e":
        return _scientific_clause(precision)
    if verb == "b":
        return _binary_clause
    if verb in "xX":
        return _hex_clause(verb == "X")
    return _octal_clause


def _interpolate(
    text: str, size: int, apply: Callable[[int, str, int | None], str], *, checking: bool
) -> tuple[str, int]:
    """Walk the format string; ``apply(index, verb, precision)`` renders one argument."""
    out: list[str] = []
    i = 0
    arg_index = 0
    requested = 0
    while i < len(text):
        c = text[i]
        if c != "%":
            out.append(c)
            i += 1
            continue
        if i + 1 < len(text) and text[i + 1] == "%":
            out.append("%")
            i += 2
            continue
        requested += 1
        if not checking and arg_index >= size:
            raise _FormatError(f"index {arg_index} out of range")
        if i + 1 >= len(text):
            raise _FormatError("unexpected end of string")
        if arg_index >= size:
            raise _FormatError(f"index {arg_index} out of range")
        try:
            end, verb, precision = _parse_clause(text, i + 1)
        except _FormatError as err:
            raise _FormatError(f"could not parse formatting clause: {err}") from None
        try:
            out.append(apply(arg_index, verb, precision))
        except _FormatError as err:
            raise _FormatError(f"error during formatting: {err}") from None
        i = end
        arg_index += 1
    return "".join(out), requested


def format_string(text: str, args: list[Any]) -> str:
    def render(index: int, verb: str, precision: int | None) -> str:
        return _clause(verb, precision)(args[index])

    try:
        return _interpolate(text, len(args), render, checking=False)[0]
    except _FormatError as err:
        raise CelEvaluationError(str(err)) from None


def format_work(args: Any, _budget: int) -> int:
    """About the length of ``format``'s result: the text plus each argument printed. Upstream
    charges the call 1, but a list shared many times prints every reference (ten levels of
    ten hold 10**10 items), so the printed size is counted, once per distinct container."""
    text, values = args[0], args[1]
    if not isinstance(text, str) or not isinstance(values, list):
        return 0
    printed: dict[int, int] = {}

    def size(value: Any) -> int:
        if isinstance(value, str | bytes):
            return len(value) + 3
        if not isinstance(value, list | dict):
            return 1
        known = printed.get(id(value))
        if known is None:
            if isinstance(value, list):
                known = 2 + sum(size(item) + 2 for item in value)
            else:
                known = 2 + sum(size(k) + size(v) + 3 for k, v in value.items())
            printed[id(value)] = known
        return known

    return len(text) + sum(size(value) for value in values)


# Python types of literal arguments -> the CEL kinds each clause accepts at check time.
_CLAUSE_KINDS: dict[str, tuple[type, ...]] = {
    "d": (int, UInt),
    "f": (float, str),
    "e": (float, str),
    "b": (int, UInt, bool),
    "x": (int, UInt, str, bytes),
    "X": (int, UInt, str, bytes),
    "o": (int, UInt),
}
_CLAUSE_ERRORS = {
    "d": "decimal clause can only be used on integers",
    "f": "fixed-point clause can only be used on doubles",
    "e": "scientific clause can only be used on doubles",
    "b": "only integers and bools can be formatted as binary",
    "x": "only integers, byte buffers, and strings can be formatted as hex",
    "X": "only integers, byte buffers, and strings can be formatted as hex",
    "o": "octal clause can only be used on integers",
}


def _static_ok(verb: str, value: Any) -> bool:
    if value is NOT_CONSTANT:
        return True  # typed at run time (dyn), as cel-go's checker accepts it
    if verb == "s":
        return not isinstance(value, Optional) and _printable(value)
    kinds = _CLAUSE_KINDS[verb]
    if isinstance(value, bool):
        return bool in kinds
    return isinstance(value, kinds)


def _printable(value: Any) -> bool:
    if isinstance(value, list):
        return all(v is NOT_CONSTANT or _printable(v) for v in value)
    if isinstance(value, dict):
        return all(_printable(k) and (v is NOT_CONSTANT or _printable(v)) for k, v in value.items())
    return value is None or isinstance(
        value, (bool, int, UInt, float, str, bytes, Duration, Timestamp, TypeValue)
    )


def validate_format_call(consts: tuple[Any, ...]) -> str | None:
    """cel-go's string format validator: a literal format string with a list literal.

    ``consts`` holds the receiver and the argument; a list literal arrives as a Python list
    whose non-literal elements are NOT_CONSTANT.
    """
    text, args = consts
    if not isinstance(text, str) or not isinstance(args, list):
        return None

    def check(index: int, verb: str, _precision: int | None) -> str:
        value = args[index]
        if not _static_ok(verb, value):
            base = _CLAUSE_ERRORS.get(verb) or (
                "string clause can only be used on strings, bools, bytes, ints, doubles, maps, "
                "lists, types, durations, and timestamps"
            )
            raise _FormatError(f"{base}, was given {type_name(value)}")
        return ""

    try:
        _, requested = _interpolate(text, len(args), check, checking=True)
    except _FormatError as err:
        return str(err)
    if len(args) > requested:
        return (
            f"too many arguments supplied to string.format (expected {requested}, got {len(args)})"
        )
    return None
