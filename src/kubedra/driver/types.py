"""Plain data passed between the kubelet plugin helper and a driver implementation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kubedra.driver.cdi import ContainerEdits


@dataclass(frozen=True)
class ClaimRef:
    """How the kubelet names a ResourceClaim in NodePrepareResources/NodeUnprepareResources."""

    namespace: str
    name: str
    uid: str

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True)
class OpaqueConfig:
    """One opaque device configuration that applies to an allocated device."""

    driver: str
    parameters: Any
    source: str  # "FromClass" or "FromClaim"
    requests: tuple[str, ...] = ()


@dataclass(frozen=True)
class DeviceMetadata:
    """What a workload gets to read about one prepared device (KEP-5304), when the driver
    enables device metadata: attributes in the ResourceSlice's form (``{"model": {"string":
    "X"}}``; unqualified names belong to the driver's domain) and, for network devices, the
    ``networkData`` (``interfaceName``, ``ips``, ``hardwareAddress``)."""

    attributes: Mapping[str, Mapping[str, Any]] | None = None
    network_data: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class AllocatedDevice:
    """One allocation result of the claim that belongs to this driver.

    ``configs`` holds the opaque configs of this driver that apply to the result's request, in
    precedence order: class configs first, then claim configs; the last one wins.
    """

    request: str
    pool: str
    device: str
    admin_access: bool = False
    configs: tuple[OpaqueConfig, ...] = ()
    # The result's shareID: set when the device has consumable capacity and several claims
    # (or requests) hold shares of it; the driver returns it in its PreparedDevice.
    share_id: str | None = None

    @property
    def effective_config(self) -> Any:
        """The parameters of the config that wins, or None when no config applies."""
        return self.configs[-1].parameters if self.configs else None

    def prepared(
        self,
        cdi_device_ids: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        edits: ContainerEdits | None = None,
        metadata: DeviceMetadata | None = None,
    ) -> PreparedDevice:
        """The common answer for this device: its pool, name and request, with CDI device IDs.

        With ``env`` (or ``edits``), the kit writes the claim's CDI spec itself (one per claim,
        removed again by the default ``unprepare``) and adds the device's CDI ID. ``metadata``
        goes into the request's device metadata file when the driver enables device metadata.
        """
        if env:
            base = edits or ContainerEdits()
            extra = [f"{name}={value}" for name, value in env.items()]
            edits = replace(base, env=[*base.env, *extra])
        return PreparedDevice(
            pool=self.pool,
            device=self.device,
            requests=(self.request,),
            cdi_device_ids=tuple(cdi_device_ids),
            share_id=self.share_id,
            edits=edits,
            metadata=metadata,
        )


@dataclass(frozen=True)
class PrepareClaim:
    """An allocated claim handed to :meth:`Driver.prepare`: the object plus its devices."""

    ref: ClaimRef
    claim: dict[str, Any]
    devices: tuple[AllocatedDevice, ...]


@dataclass(frozen=True)
class PreparedDevice:
    """What the kubelet must hand to the container runtime for one device."""

    pool: str
    device: str
    requests: tuple[str, ...] = ()
    cdi_device_ids: tuple[str, ...] = ()
    share_id: str | None = None
    # Container edits the kit turns into a CDI device of the claim's spec (not checkpointed).
    edits: ContainerEdits | None = field(default=None, compare=False, repr=False)
    # What the request's device metadata file says about the device (not checkpointed).
    metadata: DeviceMetadata | None = field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "pool": self.pool,
            "device": self.device,
            "requests": list(self.requests),
            "cdiDeviceIDs": list(self.cdi_device_ids),
        }
        if self.share_id is not None:
            data["shareID"] = self.share_id
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PreparedDevice:
        return cls(
            pool=str(data["pool"]),
            device=str(data["device"]),
            requests=tuple(data.get("requests") or ()),
            cdi_device_ids=tuple(data.get("cdiDeviceIDs") or ()),
            share_id=None if data.get("shareID") is None else str(data["shareID"]),
        )


@dataclass(frozen=True)
class PrepareResult:
    """The outcome for one claim: devices, or an error message (devices are then ignored)."""

    devices: tuple[PreparedDevice, ...] = ()
    error: str = ""


@dataclass(frozen=True)
class DeviceHealth:
    """The health of one device, streamed to the kubelet by the health service."""

    pool: str
    device: str
    health: str = "Healthy"  # "Healthy", "Unhealthy" or "Unknown"
    last_updated: int = 0  # Unix seconds; 0 means unknown
    timeout_seconds: int = 0  # 0: the kubelet's default applies
    message: str = ""  # optional human-readable detail
