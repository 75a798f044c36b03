"""Device metadata for workloads (KEP-5304, beta in 1.37): the files the kit writes per
prepared claim and request, their CDI mounts, updates, clean-up and reading.

Upstream sources: k8s.io/dynamic-resource-allocation ``kubeletplugin/metadata.go`` and
``kubeletplugin/draplugin.go`` (NodePrepareResources/NodeUnprepareResources) at the
conformance pin 3d036712930c, ``api/metadata`` (paths, v1alpha1 types), kubernetes/kubernetes
``staging/src/k8s.io/dynamic-resource-allocation/api/metadata/v1beta1/types.go`` and
``testdata/HEAD/metadata.json`` (the v1beta1-then-v1alpha1 stream), and the 1.37 page
"Observability of Dynamic Resources", section "DRA device metadata in containers".
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from conftest import build_claim, build_pod
from kubedra.driver import DeviceMetadata, MetadataError, read_device_metadata, start
from kubedra.driver.driver_api import Driver
from kubedra.driver.helper import PluginHelper
from kubedra.driver.kubelet_sim import KubeletSim
from kubedra.driver.metadata import MetadataWriter, check_versions
from kubedra.driver.store_dir import ClusterDirectory
from kubedra.driver.types import ClaimRef, PrepareClaim, PreparedDevice, PrepareResult

DRIVER = "gpu.example.com"
UID = "7d1c0a4e-0b35-4cf4-9a8f-0d2b3c4e5f60"


class MetadataDriver(Driver):
    """Prepares every allocated device with one attribute; ``requests`` overrides the request
    names it answers with (to play a driver that gets them wrong)."""

    name = DRIVER

    def __init__(self) -> None:
        self.requests: tuple[str, ...] | None = None

    def prepare(self, claims: Sequence[PrepareClaim]) -> Mapping[str, PrepareResult | Exception]:
        return {
            claim.ref.uid: PrepareResult(
                devices=tuple(
                    PreparedDevice(
                        d.pool,
                        d.device,
                        self.requests or (d.request,),
                        (f"k8s.{DRIVER}/gpu={d.device}",),
                        metadata=DeviceMetadata(
                            attributes={"model": {"string": "A<B>&C"}, "index": {"int": 0}}
                        ),
                    )
                    for d in claim.devices
                )
            )
            for claim in claims
        }

    def unprepare(self, claims: Sequence[ClaimRef]) -> Mapping[str, Exception | None]:
        return {c.uid: None for c in claims}


@pytest.fixture
def dirs(tmp_path: Path) -> dict[str, Path]:
    return {"cluster": tmp_path / "cluster", "plugin": tmp_path / "plugin", "cdi": tmp_path / "cdi"}


@pytest.fixture
def driver() -> MetadataDriver:
    return MetadataDriver()


@pytest.fixture
def helper(driver: MetadataDriver, dirs: dict[str, Path]) -> PluginHelper:
    writer = MetadataWriter(DRIVER, dirs["plugin"], dirs["cdi"], ("v1beta1", "v1alpha1"))
    return PluginHelper(
        driver, DRIVER, ClusterDirectory(dirs["cluster"]), dirs["plugin"], metadata=writer
    )


def _put(dirs: dict[str, Path], claim: dict) -> ClaimRef:
    ClusterDirectory(dirs["cluster"]).put(claim)
    meta = claim["metadata"]
    return ClaimRef(meta["namespace"], meta["name"], meta["uid"])


EXPECTED_V1BETA1 = """{
  "kind": "DeviceMetadata",
  "apiVersion": "metadata.resource.k8s.io/v1beta1",
  "metadata": {
    "name": "train",
    "namespace": "ml",
    "uid": "7d1c0a4e-0b35-4cf4-9a8f-0d2b3c4e5f60",
    "generation": 1
  },
  "requests": [
    {
      "name": "gpu",
      "devices": [
        {
          "driver": "gpu.example.com",
          "pool": "node-1",
          "name": "gpu-0",
          "attributes": {
            "index": {
              "int": 0
            },
            "model": {
              "string": "A\\u003cB\\u003e\\u0026C"
            }
          }
        },
        {
          "driver": "gpu.example.com",
          "pool": "node-1",
          "name": "gpu-1",
          "attributes": {
            "index": {
              "int": 0
            },
            "model": {
              "string": "A\\u003cB\\u003e\\u0026C"
            }
          }
        }
      ]
    }
  ]
}
"""


def test_prepare_writes_the_stream_and_a_cdi_mount_per_request(helper, dirs):
    """metadata.go writeMetadataFile/encodeMetadataStream: per request one file under
    ``dra-device-metadata/<ns>_<claim>/<request>/metadata.json``, the object once per version
    in the configured order, as Go's pretty JSON (map keys sorted, HTML characters escaped);
    writeCDISpec: ``<driver>_metadata_<uid>_<request>.json`` of kind ``<driver>/metadata``
    mounting it read-only at ``resourceclaims/<claim>/<request>/<driver>-metadata.json``;
    draplugin.go: the CDI ID is added to the first device of the request only."""
    ref = _put(
        dirs, build_claim("train", UID, [("gpu", "gpu-0"), ("gpu", "gpu-1")], namespace="ml")
    )
    result = helper.prepare([ref])[UID]
    assert not result.error
    metadata_id = f"{DRIVER}/metadata={UID}_gpu"
    assert [d.cdi_device_ids for d in result.devices] == [
        (f"k8s.{DRIVER}/gpu=gpu-0", metadata_id),
        (f"k8s.{DRIVER}/gpu=gpu-1",),
    ]
    host = dirs["plugin"] / "dra-device-metadata" / "ml_train" / "gpu" / "metadata.json"
    text = host.read_text()
    alpha = EXPECTED_V1BETA1.replace("/v1beta1", "/v1alpha1")
    assert text == EXPECTED_V1BETA1 + alpha
    assert host.stat().st_mode & 0o777 == 0o644
    spec_path = dirs["cdi"] / f"{DRIVER}_metadata_{UID}_gpu.json"
    spec = json.loads(spec_path.read_text())
    assert spec == {
        "cdiVersion": "0.5.0",  # the device name starts with a digit (the claim UID)
        "kind": f"{DRIVER}/metadata",
        "devices": [
            {
                "name": f"{UID}_gpu",
                "containerEdits": {
                    "mounts": [
                        {
                            "hostPath": str(host),
                            "containerPath": "/var/run/kubernetes.io/dra-device-attributes/"
                            f"resourceclaims/train/gpu/{DRIVER}-metadata.json",
                            "options": ["ro", "bind"],
                        }
                    ]
                },
            }
        ],
    }
    # A repeated prepare is answered from the checkpoint, metadata ID included.
    assert helper.prepare([ref])[UID].devices == result.devices


def test_template_claims_and_subrequests(helper, dirs):
    """A claim from a template (annotation ``resource.kubernetes.io/pod-claim-name``) is
    mounted under ``resourceclaimtemplates/<pod claim name>`` and names it in
    ``podClaimName``; a subrequest keeps its full name in the file, the path only the
    top-level request (api/metadata doc.go)."""
    claim = build_claim("pod-gpu-x7k2q", "uid-t", [("gpu/big", "gpu-0")])
    claim["metadata"]["annotations"] = {"resource.kubernetes.io/pod-claim-name": "gpu"}
    ref = _put(dirs, claim)
    assert not helper.prepare([ref])["uid-t"].error
    host = (
        dirs["plugin"] / "dra-device-metadata" / "default_pod-gpu-x7k2q" / "gpu" / "metadata.json"
    )
    content = read_device_metadata(host)
    assert content["apiVersion"] == "metadata.resource.k8s.io/v1beta1"
    assert content["podClaimName"] == "gpu"
    assert content["requests"][0]["name"] == "gpu/big"
    spec = json.loads((dirs["cdi"] / f"{DRIVER}_metadata_uid-t_gpu.json").read_text())
    assert spec["cdiVersion"] == "0.3.0"  # nothing beyond the first CDI version is used
    mount = spec["devices"][0]["containerEdits"]["mounts"][0]
    assert mount["containerPath"] == (
        f"/var/run/kubernetes.io/dra-device-attributes/resourceclaimtemplates/gpu/gpu/{DRIVER}-metadata.json"
    )


def test_unprepare_removes_the_claims_files_only(helper, dirs):
    """metadata.go cleanupClaim: the claim's directory and its CDI specs go; a claim whose UID
    extends this one's (``<uid>_x``) keeps its spec."""
    a = _put(dirs, build_claim("a", "uid-a", [("gpu", "gpu-0")]))
    b = _put(dirs, build_claim("b", "uid-a_x", [("gpu", "gpu-1")]))
    helper.prepare([a, b])
    assert helper.unprepare([a]) == {"uid-a": ""}
    assert not (dirs["plugin"] / "dra-device-metadata" / "default_a").exists()
    assert sorted(p.name for p in dirs["cdi"].iterdir()) == [f"{DRIVER}_metadata_uid-a_x_gpu.json"]
    assert (
        dirs["plugin"] / "dra-device-metadata" / "default_b" / "gpu" / "metadata.json"
    ).is_file()


def test_update_request_raises_the_generation(helper, dirs):
    """metadata.go updateRequestMetadata: the file is rewritten with the new devices, one
    generation later, keeping podClaimName; an unknown request is an error naming it."""
    claim = build_claim("net", "uid-n", [("nic", "gpu-0")])
    claim["metadata"]["annotations"] = {"resource.kubernetes.io/pod-claim-name": "eth"}
    ref = _put(dirs, claim)
    helper.prepare([ref])
    device = PreparedDevice(
        "node-1",
        "gpu-0",
        ("nic",),
        metadata=DeviceMetadata(
            network_data={"interfaceName": "net1", "ips": ["10.0.0.2/24"], "hardwareAddress": ""}
        ),
    )
    assert helper.update_request_metadata(ref, "nic", [device]) == 2
    assert helper.update_request_metadata(ref, "nic", [device]) == 3
    host = dirs["plugin"] / "dra-device-metadata" / "default_net" / "nic" / "metadata.json"
    content = read_device_metadata(host, versions=("v1alpha1",))
    assert content["metadata"]["generation"] == 3 and content["podClaimName"] == "eth"
    assert content["requests"][0]["devices"][0]["networkData"] == {
        "interfaceName": "net1",
        "ips": ["10.0.0.2/24"],
    }
    with pytest.raises(
        MetadataError, match='request "gpu" not found in prepared claim default/net'
    ):
        helper.update_request_metadata(ref, "gpu", [device])
    off = PluginHelper(MetadataDriver(), DRIVER, ClusterDirectory(dirs["cluster"]), dirs["plugin"])
    with pytest.raises(MetadataError, match="device metadata is not enabled"):
        off.update_request_metadata(ref, "nic", [device])


def test_a_bad_request_name_leaves_the_claim_prepared_without_metadata(
    helper, driver, dirs, caplog
):
    """draplugin.go NodePrepareResources: a metadata write that fails is logged and the claim
    is still prepared, without the metadata CDI ID; nothing is written outside the plugin
    directory for a hostile request name."""
    driver.requests = ("../../escape",)
    ref = _put(dirs, build_claim("c", "uid-c", [("gpu", "gpu-0")]))
    with caplog.at_level(logging.ERROR):
        result = helper.prepare([ref])["uid-c"]
    assert not result.error
    assert result.devices[0].cdi_device_ids == (f"k8s.{DRIVER}/gpu=gpu-0",)
    assert "failed to write device metadata for claim default/c" in caplog.text
    assert not (dirs["plugin"] / "dra-device-metadata").exists()
    assert not dirs["cdi"].exists() or not list(dirs["cdi"].iterdir())


def test_lost_metadata_specs_make_the_claim_prepare_again(helper, dirs):
    """A CDI directory on a tmpfs loses its specs on reboot: a checkpointed claim whose
    metadata spec is gone is prepared again (kubedra's checkpoint; upstream's helper keeps
    none and writes on every NodePrepareResources)."""
    ref = _put(dirs, build_claim("c", "uid-r", [("gpu", "gpu-0")]))
    helper.prepare([ref])
    spec = dirs["cdi"] / f"{DRIVER}_metadata_uid-r_gpu.json"
    spec.unlink()
    helper.prepare([ref])
    assert spec.is_file()


@pytest.mark.parametrize(
    ("versions", "message"),
    [
        ((), "no API version given; v1beta1 is required"),
        (("v1alpha1",), "API version v1beta1 is required"),
        (("v1beta1", "v2"), 'unknown API version "v2"'),
    ],
)
def test_versions_are_checked_before_anything_is_served(versions, message, tmp_path):
    """The 1.37 docs: enabling device metadata with no versions, without v1beta1 or with an
    unknown version fails the plugin's start."""
    with pytest.raises(MetadataError, match=message):
        check_versions(versions)
    with pytest.raises(ValueError, match=message):
        start(
            MetadataDriver(),
            node_name="node-1",
            registry_dir=tmp_path / "reg",
            plugin_dir=tmp_path / "plugins",
            device_metadata=versions,
        )
    assert not (tmp_path / "reg").exists()


UPSTREAM_STREAM = """{
  "kind": "DeviceMetadata",
  "apiVersion": "metadata.resource.k8s.io/v2",
  "metadata": {"name": "claim", "namespace": "default", "uid": "claim-uid", "generation": 7}
}
{
  "kind": "DeviceMetadata",
  "apiVersion": "metadata.resource.k8s.io/v1beta1",
  "metadata": {"name": "claim", "namespace": "default", "uid": "claim-uid", "generation": 7},
  "requests": [
    {"name": "request", "devices": [{"driver": "gpu.example.com", "pool": "w", "name": "gpu-0"}]}
  ]
}
{
  "kind": "DeviceMetadata",
  "apiVersion": "metadata.resource.k8s.io/v1alpha1",
  "metadata": {"name": "claim", "namespace": "default", "uid": "claim-uid", "generation": 7}
}
"""


def test_readers_take_the_first_version_they_know(tmp_path):
    """The protocol: consumers skip versions they do not know and use the first they can
    decode; a malformed or empty stream is an error naming the file."""
    path = tmp_path / "metadata.json"
    path.write_text(UPSTREAM_STREAM)
    assert read_device_metadata(path)["apiVersion"].endswith("/v1beta1")
    assert read_device_metadata(path, versions=("v1alpha1",))["apiVersion"].endswith("/v1alpha1")
    path.write_text("")
    with pytest.raises(MetadataError, match=f"{path}: the stream is empty"):
        read_device_metadata(path)
    path.write_text('{"apiVersion": "metadata.resource.k8s.io/v1beta1", ')
    with pytest.raises(MetadataError, match=f"{path}: object 1: "):
        read_device_metadata(path)
    path.write_text('{"kind": "DeviceMetadata", "apiVersion": "other/v1"}\n')
    with pytest.raises(MetadataError, match="no object of a known version"):
        read_device_metadata(path)
    with pytest.raises(MetadataError, match="read device metadata"):
        read_device_metadata(tmp_path / "missing.json")


def test_kubelet_sim_shows_what_the_example_driver_mounts(drivers, driver_dirs):
    """``kubedra driver example-gpu --device-metadata`` with kubelet-sim: the report lists,
    per prepared claim, the metadata each container would read (the device's published
    attributes) at the protocol's path; no contract violations; unprepare removes it."""
    cluster = ClusterDirectory(driver_dirs.cluster)
    cluster.register_node("node-1")
    drivers.start("--device-metadata")
    pod = build_pod("p", "pod-uid", ["c1"])
    cluster.put(pod)
    claim = build_claim("c1", "uid-1", [("gpu", "gpu-2")])
    claim["status"]["reservedFor"] = [{"resource": "pods", "name": "p", "uid": "pod-uid"}]
    cluster.put(claim)
    sim = KubeletSim("node-1", driver_dirs.registry, cluster, driver_dirs.cdi)
    try:
        sim.step()
        report = sim.report()
        assert report["violations"] == [] and report["failures"] == []
        (mount,) = report["prepared"]["uid-1"]["deviceMetadata"]
        assert mount["cdiDeviceID"] == f"{DRIVER}/metadata=uid-1_gpu"
        assert mount["containerPath"] == (
            f"/var/run/kubernetes.io/dra-device-attributes/resourceclaims/c1/gpu/{DRIVER}-metadata.json"
        )
        (device,) = mount["content"]["requests"][0]["devices"]
        assert device["name"] == "gpu-2"
        assert device["attributes"]["index"] == {"int": 2}
        assert device["attributes"]["model"] == {"string": "LATEST-GPU-MODEL"}
        pod["status"]["phase"] = "Succeeded"
        cluster.put(pod)
        sim.step()
        assert sim.prepared == {}
        assert list(driver_dirs.cdi.iterdir()) == []
    finally:
        sim.close()
