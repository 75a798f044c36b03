"""The class a DRA driver subclasses: the helper does the gRPC, lookup and bookkeeping."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence

from kubedra.driver.types import ClaimRef, DeviceHealth, PrepareClaim, PrepareResult


class DRADriver(ABC):
    """A DRA driver's node-local logic.

    The helper calls :meth:`prepare` and :meth:`unprepare` one at a time (serialized) and keeps
    a checkpoint, so a claim recorded as prepared is answered from the checkpoint without
    calling :meth:`prepare` again. Both methods must still be idempotent: a driver killed in the
    middle of a call is called again with the same claims after it restarts.
    """

    @abstractmethod
    def prepare(self, claims: Sequence[PrepareClaim]) -> Mapping[str, PrepareResult | Exception]:
        """Prepare the devices of each claim; answer every claim UID (missing ones are errors)."""

    @abstractmethod
    def unprepare(self, claims: Sequence[ClaimRef]) -> Mapping[str, Exception | None]:
        """Undo :meth:`prepare`. Must succeed for claims that were never prepared, and must not
        need the claim object: it may be deleted already."""

    def still_prepared(self, claim: PrepareClaim, devices: Sequence[str]) -> bool:
        """Whether a checkpointed preparation is still in place (e.g. its CDI spec survived a
        reboot). Returning False makes the helper prepare the claim again."""
        return True

    def remove_stale_files(self) -> None:
        """Called once at start, under the helper's serialization lock (so no prepare of this
        or a rolling-update peer is writing): remove what a killed process left behind, e.g.
        the temporary files of interrupted CDI spec writes. Nothing by default."""
        return None

    def watch_health(self, stop: threading.Event) -> Iterator[Sequence[DeviceHealth]]:
        """Yield device health reports until ``stop`` is set. Drivers that report health
        override this; the helper then also serves the DRAResourceHealth service."""
        raise NotImplementedError

    @property
    def reports_health(self) -> bool:
        return type(self).watch_health is not DRADriver.watch_health
