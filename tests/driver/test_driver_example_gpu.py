"""The example GPU driver: devices, partitions, opaque configs and CDI environment."""

from __future__ import annotations

import json

import pytest

from conftest import build_claim
from kubedra.driver.claims import allocated_devices
from kubedra.driver.publisher import validate_pool
from kubedra.driver.types import ClaimRef, PrepareClaim
from kubedra.drivers.example_gpu import ConfigError, ExampleGpuDriver, Sharing, parse_config


def gpu_config(sharing: dict) -> dict:
    api_version = "gpu.resource.example.com/v1alpha1"
    return {"apiVersion": api_version, "kind": "GpuConfig", "sharing": sharing}


def as_prepare(claim: dict) -> PrepareClaim:
    meta = claim["metadata"]
    return PrepareClaim(
        ClaimRef(meta["namespace"], meta["name"], meta["uid"]),
        claim,
        allocated_devices(claim, "gpu.example.com"),
    )


def test_published_devices_carry_the_promised_attributes(tmp_path):
    driver = ExampleGpuDriver("node-1", tmp_path, gpus=2, memory="40Gi")
    (pool,) = driver.pools().values()
    first = pool.devices[0]
    assert first["name"] == "gpu-0"
    assert set(first["attributes"]) == {"type", "model", "uuid", "index", "driverVersion"}
    assert first["attributes"]["driverVersion"] == {"version": "1.0.0"}
    assert first["capacity"] == {"memory": {"value": "40Gi"}}
    assert pool.shared_counters == []


def test_partitionable_mode_shares_memory_through_counters(tmp_path):
    driver = ExampleGpuDriver("node-1", tmp_path, gpus=2, memory="40Gi", partitions=4)
    (pool,) = driver.pools().values()
    names = [d["name"] for d in pool.devices]
    assert names[:2] == ["gpu-0", "gpu-1"] and "gpu-1-part-3" in names and len(names) == 10
    part = next(d for d in pool.devices if d["name"] == "gpu-0-part-1")
    assert part["consumesCounters"] == [
        {"counterSet": "gpu-0-counters", "counters": {"memory": {"value": "10Gi"}}}
    ]
    assert pool.shared_counters[0]["counters"] == {"memory": {"value": "40Gi"}}
    validate_pool("node-1", pool.contents())
    with pytest.raises(ValueError, match="equal partitions"):
        ExampleGpuDriver("node-1", tmp_path, memory="10", partitions=3)


@pytest.mark.parametrize(
    ("parameters", "expected"),
    [
        (None, Sharing()),
        (
            gpu_config({"strategy": "TimeSlicing", "timeSlicingConfig": {"interval": "Long"}}),
            Sharing("TimeSlicing", "Long"),
        ),
        (
            gpu_config(
                {"strategy": "SpacePartitioning", "spacePartitioningConfig": {"partitionCount": 4}}
            ),
            Sharing("SpacePartitioning", partition_count=4),
        ),
    ],
)
def test_configs(parameters, expected):
    assert parse_config(parameters) == expected


@pytest.mark.parametrize(
    ("parameters", "message"),
    [
        ({"apiVersion": "v1", "kind": "GpuConfig"}, "expected apiVersion"),
        ({**gpu_config({}), "extra": 1}, "unknown field"),
        (gpu_config({"strategy": "Magic"}), "unknown strategy 'Magic'"),
        (gpu_config({"timeSlicingConfig": {"interval": "Forever"}}), "unknown interval"),
        (
            gpu_config(
                {"strategy": "SpacePartitioning", "spacePartitioningConfig": {"partitionCount": 0}}
            ),
            "positive integer",
        ),
    ],
)
def test_invalid_configs(parameters, message):
    with pytest.raises(ConfigError, match=message):
        parse_config(parameters)


def test_prepare_writes_environment_for_each_device(tmp_path):
    driver = ExampleGpuDriver("node-1", tmp_path, gpus=2)
    config = [
        {
            "source": "FromClaim",
            "requests": ["gpu"],
            "opaque": {
                "driver": "gpu.example.com",
                "parameters": gpu_config(
                    {
                        "strategy": "SpacePartitioning",
                        "spacePartitioningConfig": {"partitionCount": 2},
                    }
                ),
            },
        }
    ]
    claim = build_claim("c", "uid-c", [("gpu", "gpu-1")], config=config)
    result = driver.prepare([as_prepare(claim)])["uid-c"]
    assert not isinstance(result, Exception) and result.error == ""
    assert result.devices[0].cdi_device_ids == ("k8s.gpu.example.com/gpu=uid-c-gpu-1",)
    spec = json.loads((tmp_path / "k8s.gpu.example.com-gpu_uid-c.json").read_text())
    env = spec["devices"][0]["containerEdits"]["env"]
    assert "GPU_DEVICE_1=gpu-1" in env
    assert "GPU_DEVICE_1_RESOURCE_CLAIM=uid-c" in env
    assert "GPU_DEVICE_1_SHARING_STRATEGY=SpacePartitioning" in env
    assert "GPU_DEVICE_1_PARTITION_COUNT=2" in env


def test_a_device_in_use_by_another_claim_is_refused(tmp_path):
    driver = ExampleGpuDriver("node-1", tmp_path, gpus=2)
    driver.prepare([as_prepare(build_claim("a", "uid-a", [("gpu", "gpu-0")]))])
    result = driver.prepare([as_prepare(build_claim("b", "uid-b", [("gpu", "gpu-0")]))])["uid-b"]
    assert not isinstance(result, Exception)
    assert "already in use by claim uid-a" in result.error
    assert driver.unprepare([ClaimRef("default", "a", "uid-a")]) == {"uid-a": None}
    again = driver.prepare([as_prepare(build_claim("b", "uid-b", [("gpu", "gpu-0")]))])["uid-b"]
    assert not isinstance(again, Exception) and again.error == ""
