"""Statuses, as the framework's ``fwk.Status``: a code, reasons and the plugin that said so."""

from __future__ import annotations

from dataclasses import dataclass

SUCCESS = 0
ERROR = 1
UNSCHEDULABLE = 2
UNSCHEDULABLE_AND_UNRESOLVABLE = 3
SKIP = 5

MAX_NODE_SCORE = 100


@dataclass(frozen=True, slots=True)
class Status:
    """A rejection (or error): ``reasons`` are joined with ", " in messages, as upstream."""

    code: int
    reasons: tuple[str, ...]
    plugin: str = ""

    @property
    def message(self) -> str:
        return ", ".join(self.reasons)

    @property
    def rejected(self) -> bool:
        return self.code in (UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE)


def unschedulable(plugin: str, *reasons: str) -> Status:
    return Status(UNSCHEDULABLE, reasons, plugin)


def unresolvable(plugin: str, *reasons: str) -> Status:
    return Status(UNSCHEDULABLE_AND_UNRESOLVABLE, reasons, plugin)


def error(plugin: str, message: str) -> Status:
    return Status(ERROR, (message,), plugin)
