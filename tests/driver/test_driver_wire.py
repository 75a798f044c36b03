"""kubedra's kubelet protos against upstream's, field by field.

The expected table is written out from upstream's ``api.proto`` files (k8s.io/kubelet at
63b3249, pkg/apis/{dra/v1, dra/v1beta1, dra-health/v1alpha1, dra-health/v1,
pluginregistration/v1}); both the ``.proto`` sources (compiled at test time) and the committed
bindings must match it exactly.
"""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf import descriptor_pool

from conftest import build_claim
from kubedra.driver.proto import (
    kubedra_dra_health_v1_pb2,
    kubedra_dra_health_v1alpha1_pb2,
    kubedra_dra_v1_pb2,
    kubedra_dra_v1beta1_pb2,
    kubedra_pluginregistration_v1_pb2,
)

_CLAIM = {"namespace": (1, "string"), "uid": (2, "string"), "name": (3, "string")}


def _dra(package: str, share_id: bool) -> dict[str, dict[str, tuple[int, str]]]:
    device = {
        "request_names": (1, "repeated string"),
        "pool_name": (2, "string"),
        "device_name": (3, "string"),
        "cdi_device_ids": (4, "repeated string"),
    }
    if share_id:
        device["share_id"] = (5, "optional string")
    return {
        f"{package}.NodePrepareResourcesRequest": {"claims": (1, f"repeated {package}.Claim")},
        f"{package}.NodePrepareResourcesResponse": {
            "claims": (1, f"repeated {package}.NodePrepareResourcesResponse.ClaimsEntry")
        },
        f"{package}.NodePrepareResourceResponse": {
            "devices": (1, f"repeated {package}.Device"),
            "error": (2, "string"),
        },
        f"{package}.Device": device,
        f"{package}.NodeUnprepareResourcesRequest": {"claims": (1, f"repeated {package}.Claim")},
        f"{package}.NodeUnprepareResourcesResponse": {
            "claims": (1, f"repeated {package}.NodeUnprepareResourcesResponse.ClaimsEntry")
        },
        f"{package}.NodeUnprepareResourceResponse": {"error": (1, "string")},
        f"{package}.Claim": _CLAIM,
    }


def _health(package: str) -> dict[str, dict[str, tuple[int, str]]]:
    return {
        f"{package}.NodeWatchResourcesRequest": {},
        f"{package}.DeviceIdentifier": {"pool_name": (1, "string"), "device_name": (2, "string")},
        f"{package}.DeviceHealth": {
            "device": (1, f"{package}.DeviceIdentifier"),
            "health": (2, f"enum {package}.HealthStatus"),
            "last_updated_time": (3, "int64"),
            "health_check_timeout_seconds": (4, "int64"),
            "message": (5, "string"),
        },
        f"{package}.NodeWatchResourcesResponse": {
            "devices": (1, f"repeated {package}.DeviceHealth")
        },
    }


UPSTREAM_MESSAGES = {
    **_dra("k8s.io.kubelet.pkg.apis.dra.v1", share_id=True),
    **_dra("k8s.io.kubelet.pkg.apis.dra.v1beta1", share_id=False),
    **_health("v1alpha1"),
    **_health("v1"),
    "pluginregistration.PluginInfo": {
        "type": (1, "string"),
        "name": (2, "string"),
        "endpoint": (3, "string"),
        "supported_versions": (4, "repeated string"),
    },
    "pluginregistration.RegistrationStatus": {
        "plugin_registered": (1, "bool"),
        "error": (2, "string"),
    },
    "pluginregistration.RegistrationStatusResponse": {},
    "pluginregistration.InfoRequest": {},
}
UPSTREAM_ENUMS = {
    f"{p}.HealthStatus": {"UNKNOWN": 0, "HEALTHY": 1, "UNHEALTHY": 2} for p in ("v1alpha1", "v1")
}
UPSTREAM_METHODS = {
    "k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin": {
        "NodePrepareResources": False,
        "NodeUnprepareResources": False,
    },
    "k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin": {
        "NodePrepareResources": False,
        "NodeUnprepareResources": False,
    },
    "v1alpha1.DRAResourceHealth": {"NodeWatchResources": True},
    "v1.DRAResourceHealth": {"NodeWatchResources": True},
    "pluginregistration.Registration": {"GetInfo": False, "NotifyRegistrationStatus": False},
}

_SCALARS = {9: "string", 8: "bool", 3: "int64"}


def _field_type(field: Any) -> str:
    if field.message_type is not None:
        kind = field.message_type.full_name
    elif field.enum_type is not None:
        kind = f"enum {field.enum_type.full_name}"
    else:
        kind = _SCALARS[field.type]
    if field.is_repeated:
        return f"repeated {kind}"
    if field.has_presence and field.containing_oneof is not None:
        return f"optional {kind}"  # proto3 "optional" is a synthetic oneof
    return kind


def _fields(message: Any) -> dict[str, tuple[int, str]]:
    return {f.name: (f.number, _field_type(f)) for f in message.fields}


def _check(find_message: Any, find_enum: Any, find_service: Any) -> None:
    for name, expected in UPSTREAM_MESSAGES.items():
        assert _fields(find_message(name)) == expected, name
    for name, values in UPSTREAM_ENUMS.items():
        assert {v.name: v.number for v in find_enum(name).values} == values, name
    for name, methods in UPSTREAM_METHODS.items():
        service = find_service(name)
        assert {m.name: m.server_streaming for m in service.methods} == methods, name
        for method in service.methods:
            assert not method.client_streaming


def test_proto_sources_match_upstream(proto_pool: descriptor_pool.DescriptorPool):
    _check(
        proto_pool.FindMessageTypeByName,
        proto_pool.FindEnumTypeByName,
        proto_pool.FindServiceByName,
    )


def test_committed_bindings_match_upstream():
    modules = [
        kubedra_dra_v1_pb2,
        kubedra_dra_v1beta1_pb2,
        kubedra_dra_health_v1alpha1_pb2,
        kubedra_dra_health_v1_pb2,
        kubedra_pluginregistration_v1_pb2,
    ]
    pool = modules[0].DESCRIPTOR.pool
    assert all(m.DESCRIPTOR.pool is pool for m in modules)
    _check(pool.FindMessageTypeByName, pool.FindEnumTypeByName, pool.FindServiceByName)


@pytest.mark.parametrize("version", ["v1", "v1beta1"])
def test_the_share_id_reaches_the_driver_and_the_kubelet(
    drivers, driver_dirs, kubelet_client, version
):
    from kubedra.driver.store_dir import ClusterDirectory

    claim = build_claim("c", "uid-c", [("gpu", "gpu-0")])
    claim["status"]["allocation"]["devices"]["results"][0]["shareID"] = "share-1"
    ClusterDirectory(driver_dirs.cluster).put(claim)
    drivers.start()
    response = kubelet_client.prepare(driver_dirs.dra_socket, [("default", "c", "uid-c")], version)
    entry = response.claims["uid-c"]
    assert entry.error == ""
    (device,) = entry.devices
    if version == "v1":
        assert device.HasField("share_id") and device.share_id == "share-1"
    else:
        assert "share_id" not in device.DESCRIPTOR.fields_by_name


def test_claims_without_a_share_id_leave_it_unset(drivers, driver_dirs, kubelet_client):
    from kubedra.driver.store_dir import ClusterDirectory

    ClusterDirectory(driver_dirs.cluster).put(build_claim("c", "uid-c", [("gpu", "gpu-0")]))
    drivers.start()
    response = kubelet_client.prepare(driver_dirs.dra_socket, [("default", "c", "uid-c")])
    (device,) = response.claims["uid-c"].devices
    assert not device.HasField("share_id")


def test_allocated_devices_carry_the_share_id():
    from kubedra.driver.claims import allocated_devices

    claim = build_claim("c", "uid-c", [("gpu", "gpu-0"), ("gpu", "gpu-1")])
    claim["status"]["allocation"]["devices"]["results"][0]["shareID"] = "a-share"
    first, second = allocated_devices(claim, "gpu.example.com")
    assert (first.share_id, second.share_id) == ("a-share", None)
