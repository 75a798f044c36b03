"""Simulated time: every timestamp the control plane writes comes from here."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

START = datetime(2026, 1, 1, tzinfo=UTC)
"""The fixed instant a simulation starts at, so that its output is the same on every run."""


class SimClock:
    """A clock that moves only when told to (tolerationSeconds, retries, timeline steps)."""

    def __init__(self, start: datetime = START) -> None:
        self._now = start
        # The last timestamp() and the time it is for: the control plane stamps several
        # objects per pod while the clock stands still, and strftime is not cheap.
        self._stamp: tuple[datetime, str] | None = None

    def now(self) -> datetime:
        return self._now

    def advance(self, seconds: float) -> None:
        """Move forward; moving backwards is a bug in the caller."""
        if seconds < 0:
            raise ValueError(f"cannot move the clock back by {-seconds} seconds")
        self._now += timedelta(seconds=seconds)

    def advance_to(self, moment: datetime) -> None:
        """Move forward to ``moment`` (no-op when it is already past)."""
        if moment > self._now:
            self._now = moment

    def timestamp(self) -> str:
        """``now`` as the API writes a metav1.Time (RFC 3339, whole seconds, UTC)."""
        stamp = self._stamp
        if stamp is None or stamp[0] is not self._now:
            stamp = self._stamp = (self._now, format_time(self._now))
        return stamp[1]


def go_seconds(seconds: int) -> timedelta:
    """``time.Duration(seconds) * time.Second`` as Go computes it: int64 nanoseconds that
    wrap past 292 years (a toleration of 2**63 - 1 seconds is a short or negative wait
    upstream, never an overflow)."""
    nanos = (seconds * 1_000_000_000 + 2**63) % 2**64 - 2**63
    return timedelta(microseconds=nanos // 1000)


def format_time(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str) -> datetime | None:
    """A metav1.Time from the wire; None for anything that does not parse."""
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (TypeError, ValueError):
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
