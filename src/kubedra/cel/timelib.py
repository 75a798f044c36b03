"""Timestamps and durations: parsing, arithmetic with range checks, and the accessors.

Timestamps are nanoseconds since the epoch limited to years 0001-9999 (CEL's range);
durations use Go's time.Duration range and ``time.ParseDuration`` syntax. Accessors take an
optional time zone: an IANA name or a fixed offset such as ``+05:30``; without one, UTC.
"""

from __future__ import annotations

import datetime as dt
import re
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from kubedra.cel.errors import CelEvaluationError
from kubedra.cel.registry import NOT_CONSTANT, Overload, Registry
from kubedra.cel.types import DURATION, INT, STRING, TIMESTAMP
from kubedra.cel.values import INT64_MAX, INT64_MIN, Duration, Timestamp, format_double
from kubedra.gofmt import quote

NANOS = 1_000_000_000
MIN_TS_SECONDS = -62135596800  # 0001-01-01T00:00:00Z
MAX_TS_SECONDS = 253402300799  # 9999-12-31T23:59:59Z
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)

_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))"
)
_DURATION_PART = re.compile(r"(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)")
_UNIT_NANOS = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,
    "μs": 1_000,
    "ms": 1_000_000,
    "s": NANOS,
    "m": 60 * NANOS,
    "h": 3600 * NANOS,
}


def check_timestamp(ns: int) -> Timestamp:
    if ns < MIN_TS_SECONDS * NANOS or ns > MAX_TS_SECONDS * NANOS + NANOS - 1:
        raise CelEvaluationError("timestamp overflow")
    return Timestamp(ns)


def check_duration(ns: int) -> Duration:
    if ns < INT64_MIN or ns > INT64_MAX:
        raise CelEvaluationError("duration overflow")
    return Duration(ns)


def parse_timestamp(text: str) -> Timestamp:
    m = _RFC3339.fullmatch(text)
    if m is None:
        raise CelEvaluationError(f"timestamp parse error: invalid timestamp {text!r}")
    year, month, day, hour, minute, second = (int(m.group(i)) for i in range(1, 7))
    try:
        base = dt.datetime(year, month, day, hour, minute, second, tzinfo=dt.UTC)
    except ValueError:
        raise CelEvaluationError(f"timestamp parse error: invalid timestamp {text!r}") from None
    if hour > 23 or minute > 59 or second > 59:
        raise CelEvaluationError(f"timestamp parse error: invalid timestamp {text!r}")
    fraction = m.group(7) or ""
    nanos = int(fraction.ljust(9, "0")) if fraction else 0
    offset = 0
    if m.group(9):
        offset = (int(m.group(10)) * 60 + int(m.group(11))) * 60
        if m.group(9) == "-":
            offset = -offset
    seconds = int((base - _EPOCH).total_seconds()) - offset
    return check_timestamp(seconds * NANOS + nanos)


def parse_duration(text: str) -> Duration:
    """Go's ``time.ParseDuration``."""
    s = text
    sign = 1
    if s[:1] in ("+", "-"):
        sign = -1 if s[0] == "-" else 1
        s = s[1:]
    if s == "0":
        return Duration(0)
    if not s:
        raise CelEvaluationError(f'time: invalid duration "{text}"')
    total = 0
    pos = 0
    while pos < len(s):
        m = _DURATION_PART.match(s, pos)
        if m is None or (not m.group(1) and not m.group(2)):
            raise CelEvaluationError(f'time: invalid duration "{text}"')
        unit = _UNIT_NANOS[m.group(3)]
        digits = (m.group(1) or "0").lstrip("0") or "0"
        if len(digits) > 19:  # Go's leadingInt overflows: an invalid duration
            raise CelEvaluationError(f'time: invalid duration "{text}"')
        whole = int(digits)
        # Go's leadingFraction stops accumulating digits before int64 overflows.
        frac = (m.group(2) or "")[:18]
        total += whole * unit
        if frac:
            total += int(frac) * unit // (10 ** len(frac))
        pos = m.end()
    total *= sign
    if total < INT64_MIN or total > INT64_MAX:
        raise CelEvaluationError(f'time: invalid duration "{text}"')
    return Duration(total)


def format_timestamp(ts: Timestamp) -> str:
    seconds, nanos = divmod(ts.ns, NANOS)
    moment = _EPOCH + dt.timedelta(seconds=seconds)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if nanos:
        text += "." + f"{nanos:09d}".rstrip("0")
    return text + "Z"


def format_duration(d: Duration) -> str:
    return format_double(d.ns / NANOS) if d.ns % NANOS else str(d.ns // NANOS)


def _duration_string(d: Duration) -> str:
    if d.ns % NANOS == 0:
        return f"{d.ns // NANOS}s"
    seconds = f"{abs(d.ns) // NANOS}.{abs(d.ns) % NANOS:09d}".rstrip("0")
    return ("-" if d.ns < 0 else "") + seconds + "s"


class _Fields:
    """A moment's calendar fields in some zone (what the accessors read)."""

    __slots__ = ("day", "hour", "minute", "month", "second", "weekday", "yday", "year")

    def __init__(self, days: int, seconds: int) -> None:
        """From days since 1970-01-01 and seconds into that day, for any year (Go's
        calendar has no year range; Howard Hinnant's civil-from-days algorithm)."""
        self.hour, rest = divmod(seconds, 3600)
        self.minute, self.second = divmod(rest, 60)
        self.weekday = (days + 4) % 7  # 1970-01-01 was a Thursday; Sunday is 0
        shifted = days + 719468
        era = shifted // 146097
        doe = shifted - era * 146097
        yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
        doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
        mp = (5 * doy + 2) // 153
        self.day = doy - (153 * mp + 2) // 5 + 1
        self.month = mp + 3 if mp < 10 else mp - 9
        self.year = yoe + era * 400 + (1 if self.month <= 2 else 0)
        leap = self.year % 4 == 0 and (self.year % 100 != 0 or self.year % 400 == 0)
        before = (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)[self.month - 1]
        self.yday = before + self.day + (1 if leap and self.month > 2 else 0)


def _go_int(value: int) -> int:
    """Wrap to Go's 64-bit int, as Go's arithmetic does silently."""
    return (value + (1 << 63)) % (1 << 64) - (1 << 63)


def _atoi(text: str) -> int:
    """Go's strconv.Atoi: an optional sign and decimal digits within int64."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not digits or not digits.isascii() or not digits.isdigit():
        raise CelEvaluationError(f"strconv.Atoi: parsing {quote(text)}: invalid syntax")
    value = int(text)
    if value < INT64_MIN or value > INT64_MAX:
        raise CelEvaluationError(f"strconv.Atoi: parsing {quote(text)}: value out of range")
    return value


def _fixed_offset(name: str, colon: int) -> int:
    """Seconds east of UTC for ``[+-]H:M``, as cel-go reads it: any hours and minutes that
    Atoi accepts (``+99:99`` is a zone 4 days east), the minutes subtracted after a ``-``."""
    hours = _atoi(name[:colon])
    minutes = _atoi(name[colon + 1 :])
    offset = _go_int(hours * 60 - minutes if name[0] == "-" else hours * 60 + minutes)
    # int((time.Duration(offset) * time.Minute).Seconds()): wrapped, then through a double.
    nanos = _go_int(offset * 60 * NANOS)
    whole = abs(nanos) // NANOS * (-1 if nanos < 0 else 1)
    return int(float(whole) + float(nanos - whole * NANOS) / 1e9)


@lru_cache(maxsize=256)
def _zone(name: str) -> dt.tzinfo | int:
    """A named zone, or a fixed offset in seconds (cel-go: a name without ``:`` is
    looked up, anything with one is an offset)."""
    colon = name.find(":")
    if colon >= 0:
        return _fixed_offset(name, colon)
    if name in ("", "UTC"):
        return dt.UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a name too long for a file
        raise CelEvaluationError(f"unknown time zone {name}") from None


def _moment(ts: Timestamp, zone: str | None) -> _Fields:
    seconds = ts.ns // NANOS
    where = 0 if zone is None else _zone(zone)
    if isinstance(where, dt.tzinfo):
        local = (_EPOCH + dt.timedelta(seconds=seconds)).astimezone(where)
        offset = local.utcoffset()
        seconds += int(offset.total_seconds()) if offset is not None else 0
    else:
        seconds += where
    days, rest = divmod(seconds, 86400)
    return _Fields(days, rest)


def _trunc(n: int, unit: int) -> int:
    q = abs(n) // unit
    return q if n >= 0 else -q


def _validate_literal(kind: str, parse: Any) -> Any:
    def validate(consts: tuple[Any, ...]) -> str | None:
        value = consts[0]
        if value is NOT_CONSTANT or not isinstance(value, str):
            return None
        try:
            parse(value)
        except CelEvaluationError:
            return f"invalid {kind} argument"
        return None

    return validate


def _timestamp_accessors() -> dict[str, Any]:
    return {
        "getFullYear": lambda m, ts: m.year,
        "getMonth": lambda m, ts: m.month - 1,
        "getDate": lambda m, ts: m.day,
        "getDayOfMonth": lambda m, ts: m.day - 1,
        "getDayOfWeek": lambda m, ts: m.weekday,
        "getDayOfYear": lambda m, ts: m.yday - 1,
        "getHours": lambda m, ts: m.hour,
        "getMinutes": lambda m, ts: m.minute,
        "getSeconds": lambda m, ts: m.second,
        "getMilliseconds": lambda m, ts: (ts.ns % NANOS) // 1_000_000,
    }


def register(registry: Registry) -> None:
    add = registry.add

    def ts_add_dur(t: Timestamp, d: Duration) -> Timestamp:
        return check_timestamp(t.ns + d.ns)

    def ts_sub_dur(t: Timestamp, d: Duration) -> Timestamp:
        return check_timestamp(t.ns - d.ns)

    def ts_sub_ts(a: Timestamp, b: Timestamp) -> Duration:
        return check_duration(a.ns - b.ns)

    def dur_add(a: Duration, b: Duration) -> Duration:
        return check_duration(a.ns + b.ns)

    def dur_sub(a: Duration, b: Duration) -> Duration:
        return check_duration(a.ns - b.ns)

    add("_+_", Overload("add_timestamp_duration", (TIMESTAMP, DURATION), TIMESTAMP, ts_add_dur))
    add(
        "_+_",
        Overload(
            "add_duration_timestamp",
            (DURATION, TIMESTAMP),
            TIMESTAMP,
            lambda d, t: ts_add_dur(t, d),
        ),
    )
    add("_+_", Overload("add_duration_duration", (DURATION, DURATION), DURATION, dur_add))
    add(
        "_-_", Overload("subtract_timestamp_timestamp", (TIMESTAMP, TIMESTAMP), DURATION, ts_sub_ts)
    )
    add(
        "_-_", Overload("subtract_timestamp_duration", (TIMESTAMP, DURATION), TIMESTAMP, ts_sub_dur)
    )
    add("_-_", Overload("subtract_duration_duration", (DURATION, DURATION), DURATION, dur_sub))
    add("-_", Overload("negate_duration", (DURATION,), DURATION, lambda d: check_duration(-d.ns)))

    add(
        "duration",
        Overload(
            "string_to_duration",
            (STRING,),
            DURATION,
            parse_duration,
            fold=True,
            validate=_validate_literal("duration", parse_duration),
        ),
    )
    add("duration", Overload("duration_to_duration", (DURATION,), DURATION, lambda d: d, fold=True))
    add(
        "timestamp",
        Overload(
            "string_to_timestamp",
            (STRING,),
            TIMESTAMP,
            parse_timestamp,
            fold=True,
            validate=_validate_literal("timestamp", parse_timestamp),
        ),
    )
    add(
        "timestamp",
        Overload("timestamp_to_timestamp", (TIMESTAMP,), TIMESTAMP, lambda t: t, fold=True),
    )
    add(
        "timestamp",
        Overload(
            "int64_to_timestamp", (INT,), TIMESTAMP, lambda i: check_timestamp(i * NANOS), fold=True
        ),
    )
    add(
        "int", Overload("timestamp_to_int64", (TIMESTAMP,), INT, lambda t: t.ns // NANOS, fold=True)
    )
    add(
        "string", Overload("timestamp_to_string", (TIMESTAMP,), STRING, format_timestamp, fold=True)
    )
    add("string", Overload("duration_to_string", (DURATION,), STRING, _duration_string, fold=True))

    for name, getter in _timestamp_accessors().items():

        def utc(ts: Timestamp, _g: Any = getter) -> int:
            return int(_g(_moment(ts, None), ts))

        def zoned(ts: Timestamp, zone: str, _g: Any = getter) -> int:
            return int(_g(_moment(ts, zone), ts))

        add(name, Overload(f"timestamp_to_{name}", (TIMESTAMP,), INT, utc, member=True))
        add(
            name,
            Overload(f"timestamp_to_{name}_with_tz", (TIMESTAMP, STRING), INT, zoned, member=True),
        )

    duration_units = {
        "getHours": 3600 * NANOS,
        "getMinutes": 60 * NANOS,
        "getSeconds": NANOS,
        "getMilliseconds": 1_000_000,
    }
    for name, unit in duration_units.items():
        add(
            name,
            Overload(
                f"duration_to_{name}",
                (DURATION,),
                INT,
                lambda d, _u=unit: _trunc(d.ns, _u),
                member=True,
            ),
        )
