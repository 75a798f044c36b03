"""An example DRA driver for fake GPUs (driver ``gpu.example.com``), built on the driver kit.

It publishes ``--gpus`` devices with model, uuid, index, driverVersion and memory; in the
partitionable mode each GPU also offers ``--partitions`` equal partitions that share the GPU's
memory through a counter set (MIG-like). Preparing a claim writes one CDI spec per claim whose
devices inject environment variables describing the device and its sharing configuration,
taken from the opaque ``GpuConfig`` that applies (TimeSlicing with an interval, or
SpacePartitioning with a partition count). With ``device_metadata`` (``--device-metadata``)
the kit also writes device metadata for workloads (KEP-5304): each prepared device with the
attributes it publishes, in v1beta1 and v1alpha1.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kubedra.driver import (
    AllocatedDevice,
    CDIDevice,
    CDIError,
    CDISpec,
    CDIWriter,
    ClaimRef,
    ContainerEdits,
    DeviceHealth,
    DeviceMetadata,
    Driver,
    Pool,
    PrepareClaim,
    PreparedDevice,
    PrepareResult,
    binary_quantity,
    load_spec_file,
    parse_bytes,
    qualified_name,
)

log = logging.getLogger(__name__)

DRIVER_NAME = "gpu.example.com"
CDI_VENDOR = "k8s." + DRIVER_NAME
CDI_CLASS = "gpu"
CONFIG_API_VERSION = "gpu.resource.example.com/v1alpha1"
CONFIG_KIND = "GpuConfig"
TIME_SLICING = "TimeSlicing"
SPACE_PARTITIONING = "SpacePartitioning"
INTERVALS = ("Default", "Short", "Medium", "Long")


class ConfigError(ValueError):
    """The opaque config of a claim is not a valid GpuConfig."""


@dataclass(frozen=True)
class Sharing:
    strategy: str = TIME_SLICING
    interval: str = "Default"
    partition_count: int = 0

    def env(self, prefix: str) -> list[str]:
        variables = [f"{prefix}_SHARING_STRATEGY={self.strategy}"]
        if self.strategy == TIME_SLICING:
            variables.append(f"{prefix}_TIMESLICE_INTERVAL={self.interval}")
        else:
            variables.append(f"{prefix}_PARTITION_COUNT={self.partition_count}")
        return variables


def parse_config(parameters: Any) -> Sharing:
    """A ``GpuConfig`` -> :class:`Sharing`; unknown fields and values are errors."""
    if parameters is None:
        return Sharing()
    if not isinstance(parameters, dict):
        raise ConfigError("opaque parameters: expected a GpuConfig object")
    if parameters.get("apiVersion") != CONFIG_API_VERSION or parameters.get("kind") != CONFIG_KIND:
        raise ConfigError(
            f"opaque parameters: expected apiVersion {CONFIG_API_VERSION} kind {CONFIG_KIND}, "
            f"got {parameters.get('apiVersion')!r} {parameters.get('kind')!r}"
        )
    unknown = set(parameters) - {"apiVersion", "kind", "sharing"}
    if unknown:
        raise ConfigError(f"GpuConfig: unknown field(s) {', '.join(sorted(unknown))}")
    sharing = parameters.get("sharing") or {}
    strategy = sharing.get("strategy", TIME_SLICING)
    if strategy == TIME_SLICING:
        interval = (sharing.get("timeSlicingConfig") or {}).get("interval", "Default")
        if interval not in INTERVALS:
            raise ConfigError(
                f"GpuConfig.sharing.timeSlicingConfig.interval: unknown interval {interval!r} "
                f"(one of {', '.join(INTERVALS)})"
            )
        return Sharing(TIME_SLICING, interval=interval)
    if strategy == SPACE_PARTITIONING:
        count = (sharing.get("spacePartitioningConfig") or {}).get("partitionCount")
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise ConfigError(
                "GpuConfig.sharing.spacePartitioningConfig.partitionCount: "
                f"must be a positive integer, got {count!r}"
            )
        return Sharing(SPACE_PARTITIONING, partition_count=count)
    raise ConfigError(f"GpuConfig.sharing.strategy: unknown strategy {strategy!r}")


@dataclass(frozen=True)
class FakeGpu:
    index: int
    uuid: str
    memory: int
    model: str
    driver_version: str


class ExampleGpuDriver(Driver):
    """Fake GPUs on one node."""

    name = DRIVER_NAME
    cdi_class = CDI_CLASS

    def __init__(
        self,
        node_name: str,
        cdi_dir: Path,
        *,
        gpus: int = 8,
        memory: str = "80Gi",
        model: str = "LATEST-GPU-MODEL",
        driver_version: str = "1.0.0",
        partitions: int = 0,
        health_interval: float = 10.0,
        device_metadata: Sequence[str] = (),
    ) -> None:
        self.node_name = node_name
        self.cdi_dir = cdi_dir
        self.device_metadata = tuple(device_metadata)
        self.partitions = partitions
        self.health_interval = health_interval
        size = parse_bytes(memory)
        if partitions and size % partitions:
            raise ValueError(f"memory {memory} does not split into {partitions} equal partitions")
        self.gpus = [
            FakeGpu(
                index=i,
                uuid=f"gpu-{uuid.uuid5(uuid.NAMESPACE_DNS, f'{node_name}.gpu-{i}')}",
                memory=size,
                model=model,
                driver_version=driver_version,
            )
            for i in range(gpus)
        ]
        self.devices = {d["name"]: d for d in self._devices()}

    @property
    def cdi(self) -> CDIWriter:
        return self.cdi_writer()

    # --- publishing ----------------------------------------------------------------------

    def _attributes(self, gpu: FakeGpu, kind: str) -> dict[str, Any]:
        return {
            "type": {"string": kind},
            "model": {"string": gpu.model},
            "uuid": {"string": gpu.uuid},
            "index": {"int": gpu.index},
            "driverVersion": {"version": gpu.driver_version},
        }

    def _devices(self) -> list[dict[str, Any]]:
        devices = []
        for gpu in self.gpus:
            whole: dict[str, Any] = {
                "name": f"gpu-{gpu.index}",
                "attributes": self._attributes(gpu, "gpu"),
                "capacity": {"memory": {"value": binary_quantity(gpu.memory)}},
            }
            if self.partitions:
                whole["consumesCounters"] = [
                    {
                        "counterSet": f"gpu-{gpu.index}-counters",
                        "counters": {"memory": {"value": binary_quantity(gpu.memory)}},
                    }
                ]
            devices.append(whole)
        for gpu in self.gpus if self.partitions else []:
            part = gpu.memory // self.partitions
            for p in range(self.partitions):
                devices.append(
                    {
                        "name": f"gpu-{gpu.index}-part-{p}",
                        "attributes": {
                            **self._attributes(gpu, "partition"),
                            "partition": {"int": p},
                        },
                        "capacity": {"memory": {"value": binary_quantity(part)}},
                        "consumesCounters": [
                            {
                                "counterSet": f"gpu-{gpu.index}-counters",
                                "counters": {"memory": {"value": binary_quantity(part)}},
                            }
                        ],
                    }
                )
        return devices

    def pools(self) -> dict[str, Pool]:
        """One pool named after the node."""
        counters = [
            {
                "name": f"gpu-{gpu.index}-counters",
                "counters": {"memory": {"value": binary_quantity(gpu.memory)}},
            }
            for gpu in self.gpus
            if self.partitions
        ]
        return {self.node_name: Pool(devices=list(self.devices.values()), shared_counters=counters)}

    # --- preparing -----------------------------------------------------------------------

    def _gpu_of(self, device_name: str) -> FakeGpu:
        index = int(device_name.split("-")[1])
        return self.gpus[index]

    def _in_use(self, own_uid: str) -> dict[str, str]:
        """Device -> claim UID, read from the per-claim CDI specs (survives restarts)."""
        used: dict[str, str] = {}
        prefix = f"{CDI_VENDOR}-{CDI_CLASS}_"
        if not self.cdi.directory.is_dir():
            return used
        for path in self.cdi.directory.glob(f"{prefix}*.json"):
            claim_uid = path.stem[len(prefix) :]
            if claim_uid == own_uid:
                continue
            try:
                spec = load_spec_file(path)
            except CDIError:
                continue
            for device in spec.get("devices") or []:
                device_name = str(device.get("name", "")).removeprefix(f"{claim_uid}-")
                used[device_name] = claim_uid
        return used

    def _prepare_one(self, claim: PrepareClaim) -> PrepareResult:
        used = self._in_use(claim.ref.uid)
        cdi_devices: list[CDIDevice] = []
        prepared: list[PreparedDevice] = []
        for allocated in claim.devices:
            problem = self._check(allocated, used)
            if problem:
                return PrepareResult(error=problem)
            sharing = parse_config(allocated.effective_config)
            gpu = self._gpu_of(allocated.device)
            device = self.devices[allocated.device]
            env_name = "GPU_DEVICE_" + allocated.device.removeprefix("gpu-").upper().replace(
                "-", "_"
            )
            cdi_name = f"{claim.ref.uid}-{allocated.device}"
            env = [
                f"{env_name}={allocated.device}",
                f"{env_name}_RESOURCE_CLAIM={claim.ref.uid}",
                f"{env_name}_UUID={gpu.uuid}",
                f"{env_name}_MEMORY={device['capacity']['memory']['value']}",
                *sharing.env(env_name),
            ]
            cdi_devices.append(CDIDevice(cdi_name, ContainerEdits(env=env)))
            prepared.append(
                PreparedDevice(
                    pool=allocated.pool,
                    device=allocated.device,
                    requests=(allocated.request,),
                    cdi_device_ids=(qualified_name(CDI_VENDOR, CDI_CLASS, cdi_name),),
                    # Workloads read what the slice publishes (used only with device metadata).
                    metadata=DeviceMetadata(attributes=device["attributes"]),
                )
            )
        if cdi_devices:
            spec = CDISpec(CDI_VENDOR, CDI_CLASS, cdi_devices)
            self.cdi.write(spec, claim.ref.uid)
        return PrepareResult(devices=tuple(prepared))

    def _check(self, allocated: AllocatedDevice, used: Mapping[str, str]) -> str:
        if allocated.pool != self.node_name or allocated.device not in self.devices:
            return f"requested device is not allocatable: {allocated.pool}/{allocated.device}"
        if allocated.device in used and not allocated.admin_access:
            return f"device {allocated.device} is already in use by claim {used[allocated.device]}"
        return ""

    def prepare(self, claims: Sequence[PrepareClaim]) -> Mapping[str, PrepareResult | Exception]:
        results: dict[str, PrepareResult | Exception] = {}
        for claim in claims:
            try:
                results[claim.ref.uid] = self._prepare_one(claim)
            except (ConfigError, ValueError, OSError) as error:
                results[claim.ref.uid] = error
        return results

    def unprepare(self, claims: Sequence[ClaimRef]) -> Mapping[str, Exception | None]:
        results: dict[str, Exception | None] = {}
        for ref in claims:
            try:
                self.cdi.remove(CDI_VENDOR, CDI_CLASS, ref.uid)
                results[ref.uid] = None
            except (OSError, ValueError) as error:
                results[ref.uid] = error
        return results

    def remove_stale_files(self) -> None:
        self.cdi.remove_stale_temp_files(CDI_VENDOR, CDI_CLASS)

    def still_prepared(self, claim: PrepareClaim, devices: Sequence[str]) -> bool:
        # The CDI directory is often a tmpfs: after a reboot the spec must be written again.
        if not devices:
            return True
        spec = CDISpec(CDI_VENDOR, CDI_CLASS, [])
        return self.cdi.path_for(spec, claim.ref.uid).exists()

    # --- health --------------------------------------------------------------------------

    def watch_health(self, stop: threading.Event) -> Iterator[Sequence[DeviceHealth]]:
        while not stop.is_set():
            now = int(time.time())
            yield [DeviceHealth(self.node_name, name, "Healthy", now) for name in self.devices]
            stop.wait(self.health_interval)
