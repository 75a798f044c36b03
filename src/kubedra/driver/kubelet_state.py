"""The kubelet simulator's record of the claims it prepared, kept between runs.

The kubelet checkpoints its DRA manager's claim cache (``/var/lib/kubelet/dra_manager_state``)
so that, after a restart, it still unprepares the claims of pods that ended while it was
down. ``kubedra kubelet-sim --once`` is a restart every round, so it keeps the same record:
read at start, rewritten (atomically) whenever a claim is prepared or unprepared.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kubedra.api.naming import is_dns1123_subdomain
from kubedra.driver.files import write_atomic
from kubedra.driver.types import ClaimRef

STATE_VERSION = "kubedra.kubelet-sim/v1"


class StateError(Exception):
    """The state file exists but is not one this simulator wrote."""


@dataclass
class PreparedClaim:
    """A claim prepared by the drivers in ``drivers`` (NodePrepareResources succeeded)."""

    ref: ClaimRef
    drivers: set[str]
    cdi_device_ids: list[str] = field(default_factory=list)
    # Drivers whose NodePrepareResources (NodeUnprepareResources) was skipped (KEP-5945):
    # kept across restarts, since the unprepare after one must skip the same drivers.
    skipped_prepare: set[str] = field(default_factory=set)
    skip_unprepare: set[str] = field(default_factory=set)
    # What containers would read: one entry per device metadata mount (KEP-5304).
    device_metadata: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The record's entry; the KEP-5945/5304 keys only when set, so that a record
        written before them reads the same."""
        out: dict[str, Any] = {
            "namespace": self.ref.namespace,
            "name": self.ref.name,
            "drivers": sorted(self.drivers),
            "cdiDeviceIDs": list(self.cdi_device_ids),
        }
        if self.skipped_prepare:
            out["skippedPrepare"] = sorted(self.skipped_prepare)
        if self.skip_unprepare:
            out["skipUnprepare"] = sorted(self.skip_unprepare)
        if self.device_metadata:
            out["deviceMetadata"] = list(self.device_metadata)
        return out


def default_state_file(registry_dir: Path, node_name: str) -> Path:
    """``.kubelet-sim-<node>.json`` in the registry directory: a directory the user named (or
    the kubelet's own), and one that plugin watchers skip (hidden, not a socket).

    Raises :class:`StateError` for a node name that is not a DNS subdomain (as Node names
    are), so that the name never leads out of the directory.
    """
    problems = is_dns1123_subdomain(node_name)
    if problems:
        raise StateError(f"invalid node name {node_name!r}: {'; '.join(problems)}")
    return registry_dir / f".kubelet-sim-{node_name}.json"


def load_state(path: Path, node_name: str) -> dict[str, PreparedClaim]:
    """The prepared claims recorded in ``path`` (none when it does not exist)."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return {}
    except OSError as error:
        raise StateError(f"cannot read the kubelet-sim state {path}: {error.strerror}") from None
    try:
        data = json.loads(text)
        if data.get("version") != STATE_VERSION:
            raise ValueError(f"version is {data.get('version')!r}, not {STATE_VERSION!r}")
        if data.get("node") != node_name:
            raise ValueError(f"it belongs to node {data.get('node')!r}, not {node_name!r}")
        claims: dict[str, PreparedClaim] = {}
        for uid, entry in data["claims"].items():
            ref = ClaimRef(str(entry["namespace"]), str(entry["name"]), str(uid))
            drivers = {str(d) for d in entry["drivers"]}
            ids = [str(i) for i in entry.get("cdiDeviceIDs") or []]
            metadata = entry.get("deviceMetadata") or []
            if not all(isinstance(m, dict) for m in metadata):
                raise ValueError(f"claim {uid}: deviceMetadata must be a list of objects")
            claims[str(uid)] = PreparedClaim(
                ref,
                drivers,
                ids,
                skipped_prepare={str(d) for d in entry.get("skippedPrepare") or []},
                skip_unprepare={str(d) for d in entry.get("skipUnprepare") or []},
                device_metadata=list(metadata),
            )
        return claims
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise StateError(
            f"the kubelet-sim state {path} is not usable ({error}); remove it to start afresh "
            "(claims it recorded are then not unprepared)"
        ) from None


def save_state(path: Path, node_name: str, claims: dict[str, PreparedClaim]) -> None:
    """Rewrite ``path`` with ``claims`` (:class:`StateError` when it cannot be written)."""
    data = {
        "version": STATE_VERSION,
        "node": node_name,
        "claims": {uid: claim.to_json() for uid, claim in sorted(claims.items())},
    }
    try:
        write_atomic(path, json.dumps(data, indent=2, sort_keys=True) + "\n", 0o600)
    except OSError as error:
        reason = error.strerror or str(error)
        raise StateError(f"cannot write the kubelet-sim state {path}: {reason}") from None
