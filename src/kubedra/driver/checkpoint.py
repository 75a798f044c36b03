"""The helper's record of prepared claims, kept in the plugin data directory.

A restarted driver (or the other instance during a rolling update) reads it to answer
NodePrepareResources for a claim it already prepared without preparing it twice. Each claim
goes through two states: ``PrepareStarted`` is written before the driver does any work, so a
crash leaves a trace that the next attempt (or unprepare) cleans up; ``PrepareCompleted`` holds
the answer that was given. The file carries a checksum so that a corrupted checkpoint is
reported instead of silently trusted.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kubedra.driver.files import write_atomic
from kubedra.driver.types import PreparedDevice

CHECKPOINT_VERSION = "kubedra.driver/v1"
STATE_STARTED = "PrepareStarted"
STATE_COMPLETED = "PrepareCompleted"


class CheckpointError(Exception):
    """The checkpoint file exists but cannot be trusted."""


@dataclass(frozen=True)
class CheckpointEntry:
    namespace: str
    name: str
    state: str
    devices: tuple[PreparedDevice, ...] = ()
    updated_at: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "namespace": self.namespace,
            "name": self.name,
            "state": self.state,
            "devices": [device.to_json() for device in self.devices],
            "updatedAt": self.updated_at,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CheckpointEntry:
        return cls(
            namespace=str(data["namespace"]),
            name=str(data["name"]),
            state=str(data["state"]),
            devices=tuple(PreparedDevice.from_json(d) for d in data.get("devices") or ()),
            updated_at=float(data.get("updatedAt", 0.0)),
        )


def _checksum(claims: dict[str, Any]) -> str:
    canonical = json.dumps(claims, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


class Checkpoint:
    """Load-modify-store access to the checkpoint file; callers hold the serialization lock."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> dict[str, CheckpointEntry]:
        try:
            text = self.path.read_text()
        except FileNotFoundError:
            return {}
        try:
            data = json.loads(text)
            claims = data["claims"]
            if data.get("version") != CHECKPOINT_VERSION:
                raise CheckpointError(f"{self.path}: unsupported version {data.get('version')!r}")
            if data.get("checksum") != _checksum(claims):
                raise CheckpointError(f"{self.path}: checksum mismatch, the file is corrupted")
            return {uid: CheckpointEntry.from_json(entry) for uid, entry in claims.items()}
        except (ValueError, KeyError, TypeError) as error:
            raise CheckpointError(f"{self.path}: unreadable checkpoint: {error}") from error

    def store(self, entries: dict[str, CheckpointEntry]) -> None:
        claims = {uid: entry.to_json() for uid, entry in sorted(entries.items())}
        document = {"version": CHECKPOINT_VERSION, "checksum": _checksum(claims), "claims": claims}
        write_atomic(self.path, json.dumps(document, indent=2, sort_keys=True) + "\n", 0o600)


def started(namespace: str, name: str) -> CheckpointEntry:
    return CheckpointEntry(namespace, name, STATE_STARTED, (), time.time())


def completed(namespace: str, name: str, devices: tuple[PreparedDevice, ...]) -> CheckpointEntry:
    return CheckpointEntry(namespace, name, STATE_COMPLETED, devices, time.time())
