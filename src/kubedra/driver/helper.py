"""The kubelet plugin helper: turns NodePrepareResources/NodeUnprepareResources into driver calls.

Contract kept here, whatever the driver does:
- every requested claim UID gets an answer; per-claim problems (malformed namespace, name or
  UID, claim missing, replaced, not allocated, driver error, malformed CDI ID) are errors inside
  the response, never gRPC errors; a malformed reference never reaches the store or the driver,
  and a driver that fails a whole batch is called again claim by claim, so that one bad claim
  cannot fail the others;
- calls are serialized (an in-process lock, plus a file lock when rolling updates let two
  driver instances share the plugin directory);
- prepared claims are checkpointed, so a repeated prepare is answered from the checkpoint
  without preparing twice, and unprepare works from the UID alone;
- with device metadata enabled (KEP-5304), each prepared request gets its metadata file and
  CDI spec and its first device the metadata CDI ID; a failed write is logged and the claim is
  prepared without metadata, as upstream's helper does; unprepare removes them again.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import filelock

from kubedra.driver import checkpoint as cp
from kubedra.driver.cdi import CDIError, parse_qualified_name
from kubedra.driver.claims import (
    ClaimLookupError,
    ClaimSource,
    base_request,
    describe,
    lookup_claim,
    ref_problems,
)
from kubedra.driver.driver_api import DRADriver
from kubedra.driver.files import remove_stale_temp_files
from kubedra.driver.metadata import MetadataError, MetadataWriter
from kubedra.driver.types import ClaimRef, PrepareClaim, PreparedDevice, PrepareResult

log = logging.getLogger(__name__)

CHECKPOINT_FILE = "checkpoint.json"
LOCK_FILE = "serialize.lock"


class PluginHelper:
    """Claim lookup, serialization, checkpointing and answer shaping around a :class:`DRADriver`."""

    def __init__(
        self,
        driver: DRADriver,
        driver_name: str,
        claims: ClaimSource,
        plugin_data_dir: Path,
        *,
        file_lock: bool = False,
        metadata: MetadataWriter | None = None,
    ) -> None:
        self.driver = driver
        self.driver_name = driver_name
        self.claims = claims
        self.plugin_data_dir = plugin_data_dir
        self.metadata = metadata
        """Writes the device metadata files; None: device metadata is not enabled."""
        self.checkpoint = cp.Checkpoint(plugin_data_dir / CHECKPOINT_FILE)
        self._mutex = threading.Lock()
        self._file_lock = filelock.FileLock(plugin_data_dir / LOCK_FILE) if file_lock else None

    def remove_stale_temp_files(self) -> list[Path]:
        """Remove what killed writes left in the plugin data directory (hidden ``.tmp`` files of
        kubedra's own pattern) and let the driver clean up its own; under the lock, so no write
        of ours or of a rolling-update peer is in flight."""
        self.plugin_data_dir.mkdir(parents=True, exist_ok=True)
        with self.serialized():
            removed = remove_stale_temp_files(self.plugin_data_dir)
            self.driver.remove_stale_files()
        for path in removed:
            log.info("removed stale temporary file %s", path)
        return removed

    @contextlib.contextmanager
    def serialized(self) -> Iterator[None]:
        with self._mutex:
            if self._file_lock is None:
                yield
            else:
                with self._file_lock:
                    yield

    def prepare(self, refs: Sequence[ClaimRef]) -> dict[str, PrepareResult]:
        """Answer NodePrepareResources: one :class:`PrepareResult` per distinct claim UID."""
        answers: dict[str, PrepareResult] = {}
        looked_up: list[PrepareClaim] = []
        for ref in _distinct(refs):
            problems = ref_problems(ref)
            if problems:
                answers[ref.uid] = PrepareResult(error=_bad_ref(ref, problems))
                continue
            # Slow lookups happen before taking the lock, as upstream's helper does.
            try:
                looked_up.append(lookup_claim(self.claims, ref, self.driver_name))
            except ClaimLookupError as error:
                answers[ref.uid] = PrepareResult(error=str(error))
            except Exception as error:  # a bug on one claim's data must not fail the batch
                log.exception("looking up claim %s failed", ref)
                answers[ref.uid] = PrepareResult(error=f"claim {ref}: internal error: {error}")
        if not looked_up:
            return answers
        with self.serialized():
            try:
                entries = self.checkpoint.load()
            except cp.CheckpointError as error:
                return answers | {c.ref.uid: PrepareResult(error=str(error)) for c in looked_up}
            todo = []
            for claim in looked_up:
                entry = entries.get(claim.ref.uid)
                if entry is not None and entry.state == cp.STATE_COMPLETED:
                    names = [d.device for d in entry.devices]
                    if self._still_prepared(claim, names) and self._metadata_present(
                        claim.ref, entry.devices
                    ):
                        answers[claim.ref.uid] = PrepareResult(devices=entry.devices)
                        continue
                todo.append(claim)
            if todo:
                for claim in todo:
                    entries[claim.ref.uid] = cp.started(claim.ref.namespace, claim.ref.name)
                problem = self._store(entries)
                if problem:
                    return answers | {c.ref.uid: PrepareResult(error=problem) for c in todo}
                results = self._call_prepare(todo)
                for uid, result in results.items():
                    if not result.error:
                        ref = next(c.ref for c in todo if c.ref.uid == uid)
                        entries[uid] = cp.completed(ref.namespace, ref.name, result.devices)
                problem = self._store(entries)
                for uid, result in results.items():
                    # Not recorded means not answered: the kubelet retries, prepare is idempotent.
                    answers[uid] = PrepareResult(error=problem) if problem else result
        return answers

    def _still_prepared(self, claim: PrepareClaim, devices: list[str]) -> bool:
        try:
            return self.driver.still_prepared(claim, devices)
        except Exception:  # when in doubt, prepare again (prepare is idempotent)
            log.exception("driver still_prepared failed for claim %s", claim.ref)
            return False

    def _metadata_present(self, ref: ClaimRef, devices: Sequence[PreparedDevice]) -> bool:
        if self.metadata is None:
            return True
        return self.metadata.specs_present(ref, (i for d in devices for i in d.cdi_device_ids))

    def _with_metadata(
        self, claim: PrepareClaim, returned: PrepareResult, checked: PrepareResult
    ) -> PrepareResult:
        """Write the claim's device metadata from what the driver returned (request names
        with their subrequests) and add each request's metadata CDI ID to its first device."""
        if self.metadata is None or checked.error:
            return checked
        try:
            ids = self.metadata.write_claim(claim, returned.devices)
        except (MetadataError, OSError) as error:
            log.error("failed to write device metadata for claim %s: %s", claim.ref, error)
            return checked
        devices = []
        for device in checked.devices:
            extra = [ids.pop(r) for r in device.requests if r in ids]
            devices.append(replace(device, cdi_device_ids=(*device.cdi_device_ids, *extra)))
        return PrepareResult(devices=tuple(devices))

    def update_request_metadata(
        self, ref: ClaimRef, request: str, devices: Sequence[PreparedDevice]
    ) -> int:
        """Rewrite the metadata file of one request of a prepared claim with ``devices`` (now
        with their metadata) one generation later; returns the new generation. For drivers
        that learn device details after preparing, e.g. network data once CNI has run."""
        if self.metadata is None:
            raise MetadataError("device metadata is not enabled")
        problems = ref_problems(ref)
        if problems:
            raise MetadataError(_bad_ref(ref, problems))
        return self.metadata.update_request(ref, request, devices)

    def _store(self, entries: dict[str, cp.CheckpointEntry]) -> str:
        """Store the checkpoint; the problem as an answer for the claims concerned, or ""."""
        try:
            self.checkpoint.store(entries)
        except OSError as error:
            log.error("storing the checkpoint failed: %s", error)
            return f"store checkpoint {self.checkpoint.path}: {error.strerror or error}"
        return ""

    def _call_prepare(self, claims: list[PrepareClaim]) -> dict[str, PrepareResult]:
        try:
            returned = dict(self.driver.prepare(claims))
        except Exception as error:
            log.exception("driver prepare failed")
            if len(claims) > 1:  # find the claim that fails; the others still get prepared
                return {
                    uid: result
                    for claim in claims
                    for uid, result in self._call_prepare([claim]).items()
                }
            return {c.ref.uid: PrepareResult(error=f"prepare failed: {error}") for c in claims}
        results = {}
        for claim in claims:
            outcome = returned.get(claim.ref.uid)
            if outcome is None:
                results[claim.ref.uid] = PrepareResult(
                    error=f"driver returned no result for claim {claim.ref}"
                )
            elif isinstance(outcome, Exception):
                results[claim.ref.uid] = PrepareResult(error=str(outcome) or repr(outcome))
            else:
                results[claim.ref.uid] = self._with_metadata(
                    claim, outcome, _checked(outcome, claim)
                )
        return results

    def unprepare(self, refs: Sequence[ClaimRef]) -> dict[str, str]:
        """Answer NodeUnprepareResources: claim UID -> error message ("" on success)."""
        answers: dict[str, str] = {}
        distinct = []
        for ref in _distinct(refs):
            problems = ref_problems(ref)
            if problems:
                answers[ref.uid] = _bad_ref(ref, problems)
            else:
                distinct.append(ref)
        if not distinct:
            return answers
        with self.serialized():
            answers.update(self._call_unprepare(distinct))
            self._remove_metadata(distinct, answers)
            try:
                entries = self.checkpoint.load()
            except cp.CheckpointError as error:
                return {uid: message or str(error) for uid, message in answers.items()}
            removed = [uid for uid, message in answers.items() if not message and uid in entries]
            for uid in removed:
                del entries[uid]
            problem = self._store(entries) if removed else ""
            for uid in removed if problem else ():
                answers[uid] = problem
        return answers

    def _remove_metadata(self, refs: list[ClaimRef], answers: dict[str, str]) -> None:
        """Remove the device metadata of the claims the driver unprepared."""
        if self.metadata is None:
            return
        for ref in refs:
            if answers.get(ref.uid):
                continue
            try:
                self.metadata.remove_claim(ref)
            except OSError as error:
                answers[ref.uid] = f"clean up device metadata: {error}"

    def _call_unprepare(self, refs: list[ClaimRef]) -> dict[str, str]:
        try:
            returned = dict(self.driver.unprepare(refs))
        except Exception as error:
            log.exception("driver unprepare failed")
            if len(refs) > 1:  # unprepare is idempotent: isolate the claim that fails
                answers: dict[str, str] = {}
                for ref in refs:
                    answers.update(self._call_unprepare([ref]))
                return answers
            return {ref.uid: f"unprepare failed: {error}" for ref in refs}
        answers = {}
        for ref in refs:
            if ref.uid not in returned:
                answers[ref.uid] = f"driver returned no result for claim {ref}"
                continue
            outcome = returned[ref.uid]
            answers[ref.uid] = (str(outcome) or repr(outcome)) if outcome is not None else ""
        return answers


def _bad_ref(ref: ClaimRef, problems: list[str]) -> str:
    return f"invalid claim reference {describe(ref)}: {'; '.join(problems)}"


def _distinct(refs: Sequence[ClaimRef]) -> list[ClaimRef]:
    seen: dict[str, ClaimRef] = {}
    for ref in refs:
        seen.setdefault(ref.uid, ref)
    return list(seen.values())


def _checked(result: PrepareResult, claim: PrepareClaim) -> PrepareResult:
    """Reject malformed CDI IDs, map subrequest names to the request the kubelet knows, and
    fill in the allocation's share ID where the driver left it out."""
    if result.error:
        return PrepareResult(error=result.error)
    shares: dict[tuple[str, str], set[str]] = {}
    for allocated in claim.devices:
        if allocated.share_id is not None:
            shares.setdefault((allocated.pool, allocated.device), set()).add(allocated.share_id)
    devices = []
    for device in result.devices:
        for device_id in device.cdi_device_ids:
            try:
                parse_qualified_name(device_id)
            except CDIError as error:
                return PrepareResult(error=f"device {device.pool}/{device.device}: {error}")
        requests = tuple(dict.fromkeys(base_request(r) for r in device.requests))
        share_id = device.share_id
        known = shares.get((device.pool, device.device), set())
        if share_id is None and len(known) == 1:
            share_id = next(iter(known))
        devices.append(
            PreparedDevice(
                device.pool, device.device, requests, tuple(device.cdi_device_ids), share_id
            )
        )
    return PrepareResult(devices=tuple(devices))
