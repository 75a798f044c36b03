"""Discovering NVIDIA GPUs with NVML (``nvidia-ml-py``) as DRA devices.

Devices carry the attribute names of NVIDIA's DRA driver (``gpu.nvidia.com``): productName,
uuid, brand, architecture, cudaComputeCapability, driverVersion, cudaDriverVersion and
pcieBusID, plus the memory capacity. Version attributes are normalised to semantic versions the
way NVIDIA's driver does with a lenient semver parser: missing minor/patch parts become 0 and
leading zeros are dropped (``"8.0"`` -> ``"8.0.0"``, ``"535.104.05"`` -> ``"535.104.5"``);
cudaDriverVersion comes from NVML's integer (``12040`` -> ``"12.4"`` -> ``"12.4.0"``).

Whole GPUs only: MIG devices are not enumerated. Absent-safe: without the package, the
library or a GPU, :func:`discover` returns no devices and says why.
``python -m kubedra.drivers.nvidia`` prints the devices as ResourceSlice YAML.
"""

from __future__ import annotations

import argparse
import re
import socket
import sys
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import yaml

from kubedra.driver import binary_quantity, split_pool

DRIVER_NAME = "gpu.nvidia.com"
_SEMVER = re.compile(
    r"^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?"
    r"(-([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?"
    r"(\+([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?$"
)
# go-nvlib's names for NVML's architecture and brand enums.
ARCHITECTURES = {
    2: "Kepler",
    3: "Maxwell",
    4: "Pascal",
    5: "Volta",
    6: "Turing",
    7: "Ampere",
    8: "Ada Lovelace",
    9: "Hopper",
    10: "Blackwell",
    0xFFFFFFFF: "Unknown",
}
BRANDS = {
    0: "Unknown",
    1: "Quadro",
    2: "Tesla",
    3: "NVS",
    4: "Grid",
    5: "GeForce",
    6: "Titan",
    7: "NvidiaVApps",
    8: "NvidiaVPC",
    9: "NvidiaVCS",
    10: "NvidiaVWS",
    11: "NvidiaCloudGaming",
    12: "QuadroRTX",
    13: "NvidiaRTX",
    14: "Nvidia",
    15: "GeForceRTX",
    16: "TitanRTX",
}


def normalize_version(text: str) -> str:
    """Lenient semver -> canonical ``MAJOR.MINOR.PATCH[-pre][+meta]``; ValueError if invalid."""
    match = _SEMVER.match(text.strip())
    if not match:
        raise ValueError(f"invalid semantic version {text!r}")
    major = int(match.group(1))
    minor = int(match.group(2)[1:]) if match.group(2) else 0
    patch = int(match.group(3)[1:]) if match.group(3) else 0
    version = f"{major}.{minor}.{patch}"
    if match.group(5):
        version += f"-{match.group(5)}"
    if match.group(8):
        version += f"+{match.group(8)}"
    return version


def cuda_driver_version(value: int) -> str:
    """NVML's CUDA driver version integer (1000*major + 10*minor) -> ``"major.minor"``."""
    return f"{value // 1000}.{(value % 1000) // 10}"


def pcie_bus_id(raw: str | bytes) -> str:
    """NVML's 16-digit-domain bus ID -> lower case with the first four domain zeros dropped."""
    text = raw.decode() if isinstance(raw, bytes) else raw
    text = text.split("\x00", 1)[0].lower()
    return text.removeprefix("0000") if text != "0000" else text


def architecture_name(code: int) -> str:
    if code not in ARCHITECTURES:
        raise ValueError(f"error interpreting device architecture as string: {code}")
    return ARCHITECTURES[code]


def brand_name(code: int) -> str:
    if code not in BRANDS:
        raise ValueError(f"error interpreting device brand as string: {code}")
    return BRANDS[code]


@dataclass(frozen=True)
class GpuInfo:
    minor: int
    uuid: str
    product_name: str
    brand: str
    architecture: str
    cuda_compute_capability: str
    driver_version: str
    cuda_driver_version: str
    pcie_bus_id: str
    memory_bytes: int

    def to_device(self) -> dict[str, Any]:
        """The v1 ``Device`` of a whole GPU, named ``gpu-<minor>`` like NVIDIA's driver."""
        return {
            "name": f"gpu-{self.minor}",
            "attributes": {
                "type": {"string": "gpu"},
                "uuid": {"string": self.uuid},
                "productName": {"string": self.product_name},
                "brand": {"string": self.brand},
                "architecture": {"string": self.architecture},
                "cudaComputeCapability": {
                    "version": normalize_version(self.cuda_compute_capability)
                },
                "driverVersion": {"version": normalize_version(self.driver_version)},
                "cudaDriverVersion": {"version": normalize_version(self.cuda_driver_version)},
                "pcieBusID": {"string": self.pcie_bus_id},
            },
            "capacity": {"memory": {"value": binary_quantity(self.memory_bytes)}},
        }


@dataclass
class Discovery:
    gpus: list[GpuInfo]
    problems: list[str]


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value


def load_nvml() -> tuple[ModuleType | None, str]:
    try:
        import pynvml
    except ImportError:
        return None, "nvidia-ml-py is not installed (pip install 'kubedra[nvidia]')"
    return pynvml, ""


def discover(nvml: Any = None) -> Discovery:
    """Every GPU NVML sees; never raises because NVML or a GPU is missing."""
    if nvml is None:
        nvml, reason = load_nvml()
        if nvml is None:
            return Discovery([], [reason])
    try:
        nvml.nvmlInit()
    except Exception as error:  # NVMLError_LibraryNotFound, _DriverNotLoaded, ...
        return Discovery([], [f"NVML is not available: {error}"])
    gpus: list[GpuInfo] = []
    problems: list[str] = []
    try:
        driver_version = _text(nvml.nvmlSystemGetDriverVersion())
        cuda_version = cuda_driver_version(int(nvml.nvmlSystemGetCudaDriverVersion()))
        for index in range(int(nvml.nvmlDeviceGetCount())):
            try:
                handle = nvml.nvmlDeviceGetHandleByIndex(index)
                major, minor = nvml.nvmlDeviceGetCudaComputeCapability(handle)
                gpus.append(
                    GpuInfo(
                        minor=int(nvml.nvmlDeviceGetMinorNumber(handle)),
                        uuid=_text(nvml.nvmlDeviceGetUUID(handle)),
                        product_name=_text(nvml.nvmlDeviceGetName(handle)),
                        brand=brand_name(int(nvml.nvmlDeviceGetBrand(handle))),
                        architecture=architecture_name(int(nvml.nvmlDeviceGetArchitecture(handle))),
                        cuda_compute_capability=f"{major}.{minor}",
                        driver_version=driver_version,
                        cuda_driver_version=cuda_version,
                        pcie_bus_id=pcie_bus_id(nvml.nvmlDeviceGetPciInfo(handle).busId),
                        memory_bytes=int(nvml.nvmlDeviceGetMemoryInfo(handle).total),
                    )
                )
            except Exception as error:
                problems.append(f"GPU {index}: {error}")
    except Exception as error:
        problems.append(f"NVML query failed: {error}")
    finally:
        try:
            nvml.nvmlShutdown()
        except Exception as error:
            problems.append(f"NVML shutdown failed: {error}")
    return Discovery(gpus, problems)


def resource_slices(node_name: str, gpus: list[GpuInfo]) -> list[dict[str, Any]]:
    """The ResourceSlices a node-local publisher would write for ``gpus``."""
    contents = split_pool([gpu.to_device() for gpu in gpus])
    slices = []
    for index, content in enumerate(contents):
        spec: dict[str, Any] = {
            "driver": DRIVER_NAME,
            "pool": {"name": node_name, "generation": 1, "resourceSliceCount": len(contents)},
            "nodeName": node_name,
        }
        if content.devices:
            spec["devices"] = content.devices
        slices.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceSlice",
                "metadata": {"name": f"{index:05x}-{DRIVER_NAME}-{node_name}"},
                "spec": spec,
            }
        )
    return slices


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kubedra.drivers.nvidia",
        description="Print the NVIDIA GPUs of this machine as ResourceSlice YAML.",
    )
    parser.add_argument("--node-name", default=socket.gethostname())
    args = parser.parse_args(argv)
    found = discover()
    for problem in found.problems:
        print(f"# {problem}", file=sys.stderr)
    if not found.gpus:
        print("# no NVIDIA GPU found", file=sys.stderr)
        return 0
    slices = resource_slices(args.node_name, found.gpus)
    sys.stdout.write(yaml.safe_dump_all(slices, sort_keys=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
