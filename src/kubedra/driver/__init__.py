"""Driver kit: write DRA drivers (kubelet plugin, ResourceSlice publishing, CDI) in Python.

``import kubedra.driver as dra`` gives the whole public API::

    class MyDriver(dra.Driver):
        name = "gpu.example.com"

        def prepare_claim(self, claim):
            return [device.prepared(env={"GPU": device.device}) for device in claim.devices]

    dra.main(MyDriver(), dra.Pool(devices=[{"name": "gpu-0"}]))

Names are loaded on first use, so that importing one submodule (``kubedra.driver.paths`` for
the command line's defaults) does not load gRPC.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    # writing a driver
    "Driver": "driver_api",
    "AllocatedDevice": "types",
    "ClaimRef": "types",
    "DeviceHealth": "types",
    "DeviceMetadata": "types",
    "OpaqueConfig": "types",
    "PrepareClaim": "types",
    "PreparedDevice": "types",
    "PrepareResult": "types",
    # running it
    "DriverHandle": "runner",
    "DriverStopped": "runner",
    "RegistrationError": "runner",
    "main": "runner",
    "parser": "runner",
    "run": "runner",
    "start": "runner",
    "plugin_paths": "sockets",
    # publishing
    "ErrorHook": "publisher",
    "Pool": "publisher",
    "PoolError": "publisher",
    "PublishError": "publisher",
    "SliceContent": "split",
    "split_pool": "split",
    # the stores
    "ClusterStore": "store",
    "DetachedStore": "store",
    "StoreError": "store",
    "open_store": "store",
    "ClusterDirectory": "store_dir",
    "KubernetesStore": "store_kube",
    # CDI
    "CDIDevice": "cdi",
    "CDIError": "cdi",
    "CDISpec": "cdi",
    "CDIWriter": "cdi",
    "ContainerEdits": "cdi",
    "load_spec_file": "cdi",
    "qualified_name": "cdi",
    # device metadata for workloads (KEP-5304)
    "MetadataError": "metadata",
    "container_path": "metadata",
    "read_device_metadata": "metadata",
    # quantities of bytes
    "binary_quantity": "units",
    "parse_bytes": "units",
}

__all__ = [
    "AllocatedDevice",
    "CDIDevice",
    "CDIError",
    "CDISpec",
    "CDIWriter",
    "ClaimRef",
    "ClusterDirectory",
    "ClusterStore",
    "ContainerEdits",
    "DetachedStore",
    "DeviceHealth",
    "DeviceMetadata",
    "Driver",
    "DriverHandle",
    "DriverStopped",
    "ErrorHook",
    "KubernetesStore",
    "MetadataError",
    "OpaqueConfig",
    "Pool",
    "PoolError",
    "PrepareClaim",
    "PrepareResult",
    "PreparedDevice",
    "PublishError",
    "RegistrationError",
    "SliceContent",
    "StoreError",
    "binary_quantity",
    "container_path",
    "load_spec_file",
    "main",
    "open_store",
    "parse_bytes",
    "parser",
    "plugin_paths",
    "qualified_name",
    "read_device_metadata",
    "run",
    "split_pool",
    "start",
]

if TYPE_CHECKING:
    from kubedra.driver.cdi import (
        CDIDevice,
        CDIError,
        CDISpec,
        CDIWriter,
        ContainerEdits,
        load_spec_file,
        qualified_name,
    )
    from kubedra.driver.driver_api import Driver
    from kubedra.driver.metadata import MetadataError, container_path, read_device_metadata
    from kubedra.driver.publisher import ErrorHook, Pool, PoolError, PublishError
    from kubedra.driver.runner import (
        DriverHandle,
        DriverStopped,
        RegistrationError,
        main,
        parser,
        run,
        start,
    )
    from kubedra.driver.sockets import plugin_paths
    from kubedra.driver.split import SliceContent, split_pool
    from kubedra.driver.store import ClusterStore, DetachedStore, StoreError, open_store
    from kubedra.driver.store_dir import ClusterDirectory
    from kubedra.driver.store_kube import KubernetesStore
    from kubedra.driver.types import (
        AllocatedDevice,
        ClaimRef,
        DeviceHealth,
        DeviceMetadata,
        OpaqueConfig,
        PrepareClaim,
        PreparedDevice,
        PrepareResult,
    )
    from kubedra.driver.units import binary_quantity, parse_bytes


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'kubedra.driver' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"kubedra.driver.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
