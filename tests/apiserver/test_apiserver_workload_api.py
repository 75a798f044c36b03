"""serve-api: the Workload API's versions per release, and Priority admission on create.

Sources: k8s.io/api ``scheduling/v1beta1/register.go`` and ``scheduling/v1alpha3/register.go``
(commit 10b39a39b, 1.37: Workload and PodGroup in both, CompositePodGroup in v1alpha3 only,
PodGroup with a ``/status`` subresource), ``scheduling/v1alpha2`` at v0.36.0 (1.36), removed
in 1.37 (kubernetes/kubernetes#138572); ``plugin/pkg/admission/priority/admission.go``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from conftest import DATA, Served, simulation_from
from kubedra.apiserver import ApiServer, discovery

GROUP = "/apis/scheduling.k8s.io"


def names(resources: dict[str, Any] | None) -> list[str]:
    assert resources is not None
    return [r["name"] for r in resources["resources"]]


def test_discovery_lists_each_releases_versions() -> None:
    assert names(discovery.resource_list("scheduling.k8s.io/v1beta1", "1.37")) == [
        "workloads",
        "podgroups",
        "podgroups/status",
    ]
    assert names(discovery.resource_list("scheduling.k8s.io/v1alpha3", "1.37")) == [
        "workloads",
        "compositepodgroups",
        "compositepodgroups/status",
        "podgroups",
        "podgroups/status",
    ]
    assert discovery.resource_list("scheduling.k8s.io/v1alpha2", "1.37") is None
    assert names(discovery.resource_list("scheduling.k8s.io/v1alpha2", "1.36")) == [
        "workloads",
        "podgroups",
        "podgroups/status",
    ]
    assert discovery.resource_list("scheduling.k8s.io/v1beta1", "1.36") is None
    group = discovery.api_group("scheduling.k8s.io", "1.37")
    assert [v["version"] for v in group["versions"]] == ["v1", "v1beta1", "v1alpha3"]
    assert group["preferredVersion"]["version"] == "v1"
    assert [v["version"] for v in discovery.api_group("scheduling.k8s.io", "1.35")["versions"]] == [
        "v1"
    ]


@pytest.fixture
def served_137(tmp_path: Any) -> Iterator[Served]:
    from kubedra.apiserver import write_kubeconfig

    server = ApiServer(simulation_from(DATA / "cluster.yaml"), release="1.37")
    server.start()
    try:
        yield Served(server.url, write_kubeconfig(tmp_path / "kubeconfig", server.url), tmp_path)
    finally:
        server.stop()


def pod_group(version: str) -> dict[str, Any]:
    return {
        "apiVersion": f"scheduling.k8s.io/{version}",
        "kind": "PodGroup",
        "metadata": {"name": "trainers"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}},
    }


def test_a_pod_group_created_as_v1alpha3_reads_in_both_versions(served_137: Served) -> None:
    code, created = served_137.request(
        "POST", f"{GROUP}/v1alpha3/namespaces/default/podgroups", pod_group("v1alpha3")
    )
    assert code == 201, created
    assert created["apiVersion"] == "scheduling.k8s.io/v1alpha3"
    assert created["spec"]["disruptionMode"] == {"single": {}}  # v1beta1's +default
    for version in ("v1beta1", "v1alpha3"):
        code, got = served_137.request(
            "GET", f"{GROUP}/{version}/namespaces/default/podgroups/trainers"
        )
        assert (code, got["apiVersion"]) == (200, f"scheduling.k8s.io/{version}")
    code, listed = served_137.request("GET", f"{GROUP}/v1alpha3/namespaces/default/podgroups")
    assert [i["apiVersion"] for i in listed["items"]] == ["scheduling.k8s.io/v1alpha3"]
    code, _ = served_137.request("GET", f"{GROUP}/v1alpha2/namespaces/default/podgroups")
    assert code == 404
    code, status = served_137.request(
        "POST", f"{GROUP}/v1beta1/namespaces/default/podgroups", pod_group("v1alpha2")
    )
    assert code == 400
    assert (
        "does not match the expected API version (scheduling.k8s.io/v1beta1)" in (status["message"])
    )


def test_a_pod_naming_a_missing_priority_class_is_forbidden(served: Served) -> None:
    """admitPod: ``no PriorityClass with name ... was found`` as a 403 Forbidden Status."""
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web"},
        "spec": {
            "priorityClassName": "gold",
            "containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10"}],
        },
    }
    code, status = served.request("POST", "/api/v1/namespaces/default/pods", pod)
    assert code == 403
    assert (status["reason"], status["message"]) == (
        "Forbidden",
        'pods "web" is forbidden: no PriorityClass with name gold was found',
    )
    pod["spec"]["priorityClassName"] = ""
    code, created = served.request("POST", "/api/v1/namespaces/default/pods", pod)
    assert code == 201
    assert (created["spec"]["priority"], created["spec"]["preemptionPolicy"]) == (
        0,
        "PreemptLowerPriority",
    )
