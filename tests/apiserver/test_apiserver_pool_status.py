"""ResourcePoolStatusRequest (resource.k8s.io/v1alpha3, KEP-5677) through serve-api and kubectl.

Sources: k8s.io/api resource/v1alpha3/types.go (kubernetes/api master of 2026-07-24, the 1.37
development branch: spec immutable, status written once by the controller, ``limit`` default
100 and maximum 1000), kubernetes/kubernetes pkg/apis/resource/validation
(``validateResourcePoolStatusRequestSpec`` messages) and pkg/controller/
resourcepoolstatusrequest (controller.go, views.go at 46b63193b6c6). The kind is alpha behind
DRAResourcePoolStatus (off by default): without the gate it is not served at all.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import DATA, Served, simulation_from
from kubedra.apiserver import ApiServer, write_kubeconfig
from kubedra.features import FeatureGates

REQUEST = """
apiVersion: resource.k8s.io/v1alpha3
kind: ResourcePoolStatusRequest
metadata:
  name: gpus
spec:
  driver: gpu.example.com
"""


def _serve(tmp_path: Path, gates: str | None) -> Iterator[Served]:
    enabled = FeatureGates.for_release("1.37", gates).enabled
    server = ApiServer(simulation_from(DATA / "cluster.yaml"), gate_enabled=enabled)
    server.start()
    try:
        yield Served(server.url, write_kubeconfig(tmp_path / "kubeconfig", server.url), tmp_path)
    finally:
        server.stop()


@pytest.fixture
def gated(tmp_path: Path) -> Iterator[Served]:
    yield from _serve(tmp_path, "DRAResourcePoolStatus=true")


@pytest.fixture
def ungated(tmp_path: Path) -> Iterator[Served]:
    yield from _serve(tmp_path, None)


def test_kubectl_creates_a_request_and_reads_the_status_the_controller_fills(
    gated: Served,
) -> None:
    gated.kubectl("create", "-f", "-", stdin=REQUEST)
    request = json.loads(gated.kubectl("get", "resourcepoolstatusrequest", "gpus", "-o", "json"))
    assert request["spec"]["limit"] == 100  # +default=100
    status = request["status"]
    assert status["poolCount"] == 1
    [pool] = status["pools"]
    assert pool["driver"] == "gpu.example.com"
    assert (
        pool["totalDevices"]
        == pool["availableDevices"] + pool["allocatedDevices"] + pool["unavailableDevices"]
    )
    assert pool["resourceSliceCount"] >= 1 and pool["generation"] >= 0
    [condition] = status["conditions"]
    assert (condition["type"], condition["status"], condition["reason"]) == (
        "Complete",
        "True",
        "CalculationComplete",
    )
    assert condition["message"] == "Calculated status for 1 pools"


def test_the_spec_is_immutable_and_so_is_an_answered_status(gated: Served) -> None:
    gated.kubectl("create", "-f", "-", stdin=REQUEST)
    out = gated.kubectl(
        "patch", "resourcepoolstatusrequest", "gpus", "--type=merge",
        "-p", '{"spec":{"limit":5}}', check=False,
    )  # fmt: skip
    assert "spec: Invalid value" in out and "field is immutable" in out
    code, body = gated.request(
        "PATCH",
        "/apis/resource.k8s.io/v1alpha3/resourcepoolstatusrequests/gpus/status",
        {"status": {"poolCount": 7}},
        {"Content-Type": "application/merge-patch+json"},
    )
    assert code == 422
    assert "status: Invalid value" in body["message"] and "field is immutable" in body["message"]


def test_a_bad_limit_is_refused_with_upstreams_message(gated: Served) -> None:
    bad = REQUEST + "  limit: 1001\n"
    out = gated.kubectl("create", "-f", "-", stdin=bad, check=False)
    assert "spec.limit: Invalid value: 1001: must not exceed 1000" in out


def test_without_the_gate_the_kind_is_not_served(ungated: Served) -> None:
    out = ungated.kubectl("create", "--validate=false", "-f", "-", stdin=REQUEST, check=False)
    assert (
        'no matches for kind "ResourcePoolStatusRequest" in version "resource.k8s.io/v1alpha3"'
        in out
    )
    code, _ = ungated.request("GET", "/apis/resource.k8s.io/v1alpha3/resourcepoolstatusrequests")
    assert code == 404
