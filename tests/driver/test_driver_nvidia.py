"""NVIDIA discovery: normalisation rules and a fake NVML, no GPU needed."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from kubedra.drivers import nvidia


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("8.0", "8.0.0"),
        ("9", "9.0.0"),
        ("550.54.15", "550.54.15"),
        ("535.104.05", "535.104.5"),
        ("12.4", "12.4.0"),
        ("v1.2.3-rc.1+build.5", "1.2.3-rc.1+build.5"),
    ],
)
def test_versions_become_semver(text, expected):
    assert nvidia.normalize_version(text) == expected


@pytest.mark.parametrize("text", ["", "1.2.3.4", "abc", "1..2"])
def test_invalid_versions_are_rejected(text):
    with pytest.raises(ValueError, match="invalid semantic version"):
        nvidia.normalize_version(text)


def test_cuda_driver_version_pci_bus_id_and_names():
    assert nvidia.cuda_driver_version(12040) == "12.4"
    assert nvidia.cuda_driver_version(11080) == "11.8"
    assert nvidia.pcie_bus_id(b"00000000:3B:00.0\x00\x00") == "0000:3b:00.0"
    assert nvidia.pcie_bus_id("0000") == "0000"
    assert nvidia.architecture_name(9) == "Hopper"
    assert nvidia.architecture_name(8) == "Ada Lovelace"
    assert nvidia.brand_name(2) == "Tesla"
    with pytest.raises(ValueError, match="architecture"):
        nvidia.architecture_name(99)


class FakeNvml:
    """The part of pynvml that discovery uses, for one H100-like GPU and one broken GPU."""

    def __init__(self, fail_init: bool = False) -> None:
        self.fail_init = fail_init
        self.shutdown = False

    def nvmlInit(self) -> None:
        if self.fail_init:
            raise RuntimeError("NVML Shared Library Not Found")

    def nvmlShutdown(self) -> None:
        self.shutdown = True

    def nvmlSystemGetDriverVersion(self) -> bytes:
        return b"550.54.15"

    def nvmlSystemGetCudaDriverVersion(self) -> int:
        return 12040

    def nvmlDeviceGetCount(self) -> int:
        return 2

    def nvmlDeviceGetHandleByIndex(self, index: int) -> int:
        if index == 1:
            raise RuntimeError("GPU is lost")
        return index

    def nvmlDeviceGetCudaComputeCapability(self, handle: int) -> tuple[int, int]:
        return (9, 0)

    def nvmlDeviceGetMinorNumber(self, handle: int) -> int:
        return 3

    def nvmlDeviceGetUUID(self, handle: int) -> str:
        return "GPU-1234"

    def nvmlDeviceGetName(self, handle: int) -> str:
        return "NVIDIA H100 80GB HBM3"

    def nvmlDeviceGetBrand(self, handle: int) -> int:
        return 14

    def nvmlDeviceGetArchitecture(self, handle: int) -> int:
        return 9

    def nvmlDeviceGetPciInfo(self, handle: int) -> SimpleNamespace:
        return SimpleNamespace(busId=b"00000000:1A:00.0")

    def nvmlDeviceGetMemoryInfo(self, handle: int) -> SimpleNamespace:
        return SimpleNamespace(total=85520809984)


def test_discovery_builds_devices_with_nvidia_attribute_names():
    fake = FakeNvml()
    found = nvidia.discover(fake)
    assert fake.shutdown
    assert found.problems == ["GPU 1: GPU is lost"]
    (gpu,) = found.gpus
    device = gpu.to_device()
    assert device["name"] == "gpu-3"
    assert device["attributes"] == {
        "type": {"string": "gpu"},
        "uuid": {"string": "GPU-1234"},
        "productName": {"string": "NVIDIA H100 80GB HBM3"},
        "brand": {"string": "Nvidia"},
        "architecture": {"string": "Hopper"},
        "cudaComputeCapability": {"version": "9.0.0"},
        "driverVersion": {"version": "550.54.15"},
        "cudaDriverVersion": {"version": "12.4.0"},
        "pcieBusID": {"string": "0000:1a:00.0"},
    }
    assert device["capacity"] == {"memory": {"value": "81559Mi"}}
    (resource_slice,) = nvidia.resource_slices("node-1", found.gpus)
    assert resource_slice["spec"]["driver"] == "gpu.nvidia.com"
    assert resource_slice["spec"]["devices"] == [device]


def test_discovery_is_absent_safe():
    found = nvidia.discover(FakeNvml(fail_init=True))
    assert found.gpus == []
    assert found.problems == ["NVML is not available: NVML Shared Library Not Found"]


def test_main_without_gpu_prints_nothing_and_succeeds(capsys, monkeypatch):
    monkeypatch.setattr(nvidia, "discover", lambda: nvidia.Discovery([], ["no NVML"]))
    assert nvidia.main(["--node-name", "n"]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "no NVIDIA GPU found" in captured.err
