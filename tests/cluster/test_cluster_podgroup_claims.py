"""PodGroup resourceClaims (KEP-5729): one claim, reserved for the PodGroup, shared by the gang.

The field belongs to DRAWorkloadResourceClaims (beta and off by default in 1.37,
kubernetes/kubernetes ``pkg/features`` scheduler gates; k8s.io/api ``scheduling/v1beta1/types.go``
``+featureGate=DRAWorkloadResourceClaims``): the cluster here turns it on, except where a test
shows what the default does.
"""

from __future__ import annotations

from typing import Any

from cluster_builders import claim, device_class, gpu_slice, node, pod

from kubedra.api.validation import validate_object
from kubedra.cluster.admission import AdmissionConfig
from kubedra.cluster.simulation import Simulation
from kubedra.scheduler import new_simulation

WITH_GROUP_CLAIMS = AdmissionConfig(gates={"DRAWorkloadResourceClaims": True})

GROUP_REF = {"apiGroup": "scheduling.k8s.io", "resource": "podgroups", "name": "trainers"}


def pod_group(claims: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "trainers", "namespace": "default"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}, "resourceClaims": claims},
    }


def member(name: str) -> dict[str, Any]:
    obj = pod(name, claim="fabric")
    obj["spec"]["schedulingGroup"] = {"podGroupName": "trainers"}
    return obj


def cluster(
    group_claims: list[dict[str, Any]], admission: AdmissionConfig = WITH_GROUP_CLAIMS
) -> Simulation:
    sim = new_simulation(admission=admission)
    objects = [node("n1"), device_class(), gpu_slice("n1", "g0"), claim("fabric")]
    group = pod_group(group_claims)
    assert sim.load([*objects, group, member("t0"), member("t1")]) == []
    sim.run()
    return sim


def reserved(sim: Simulation) -> list[dict[str, Any]]:
    got = sim.store.get("ResourceClaim", "fabric", "default")
    assert got is not None and got["status"].get("allocation")
    return list(got["status"]["reservedFor"])


def test_group_claim_is_reserved_for_the_pod_group_and_shared() -> None:
    sim = cluster([{"name": "gpu", "resourceClaimName": "fabric"}])
    group = sim.store.get("PodGroup", "trainers", "default")
    assert group is not None
    assert reserved(sim) == [{**GROUP_REF, "uid": group["metadata"]["uid"]}]
    for name in ("t0", "t1"):
        got = sim.store.get("Pod", name, "default")
        assert got is not None and got["spec"]["nodeName"] == "n1"
        assert got["status"]["phase"] == "Running"
    # Pods leaving do not release it: the claim stays the PodGroup's while the group exists.
    sim.apply(lambda s: s.store.delete("Pod", "t0"), "t0 gone")
    assert reserved(sim) == [{**GROUP_REF, "uid": group["metadata"]["uid"]}]
    sim.apply(lambda s: s.store.delete("PodGroup", "trainers", "default"), "group gone")
    got = sim.store.get("ResourceClaim", "fabric", "default")
    assert got is not None and "reservedFor" not in got["status"]


def test_a_claim_the_group_does_not_list_is_reserved_for_each_pod() -> None:
    sim = cluster([])
    assert sorted(r["name"] for r in reserved(sim)) == ["t0", "t1"]
    assert all(r["resource"] == "pods" for r in reserved(sim))


def test_with_the_gate_off_the_group_claims_are_dropped_and_each_pod_reserves() -> None:
    """Upstream's PodGroup strategy drops ``spec.resourceClaims`` on create while
    DRAWorkloadResourceClaims is off (its default in 1.37, kubernetes/kubernetes#139240's
    release): the pods then consume the claim each for itself."""
    sim = cluster([{"name": "gpu", "resourceClaimName": "fabric"}], AdmissionConfig())
    group = sim.store.get("PodGroup", "trainers", "default")
    assert group is not None and "resourceClaims" not in group["spec"]
    assert sorted(r["name"] for r in reserved(sim)) == ["t0", "t1"]


def test_pod_group_claims_are_validated() -> None:
    """Declarative rules of k8s.io/api ``scheduling/v1beta1`` PodGroupResourceClaim: a union of
    the claim and the template (``validate.Union``), a map-list keyed by name whose repeated
    entry is the Duplicate (``validate.ValSliceUnique``), checked before the items."""
    bad = pod_group([{"name": "x"}, {"name": "x", "resourceClaimName": "a"}])
    assert [str(e) for e in validate_object(bad)] == [
        'spec.resourceClaims[1]: Duplicate value: "x"',
        'spec.resourceClaims[0]: Invalid value: "": must specify one of: `resourceClaimName`, '
        "`resourceClaimTemplateName`",
    ]


def test_group_template_makes_one_claim_for_the_pod_group() -> None:
    sim = new_simulation(admission=WITH_GROUP_CLAIMS)
    template = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "fabric-template", "namespace": "default"},
        "spec": {"spec": claim("x")["spec"]},
    }
    members = []
    for name in ("t0", "t1"):
        obj = pod(name, template="fabric-template")
        obj["spec"]["schedulingGroup"] = {"podGroupName": "trainers"}
        members.append(obj)
    group = pod_group([{"name": "gpu", "resourceClaimTemplateName": "fabric-template"}])
    objects = [node("n1"), device_class(), gpu_slice("n1", "g0"), template, group]
    assert sim.load([*objects, *members]) == []
    sim.run()
    stored_group = sim.store.get("PodGroup", "trainers", "default")
    assert stored_group is not None
    [status] = stored_group["status"]["resourceClaimStatuses"]
    assert status["name"] == "gpu"
    name = status["resourceClaimName"]
    assert name.startswith("trainers-gpu-")
    claims = sim.store.list("ResourceClaim")
    assert [c["metadata"]["name"] for c in claims] == [name]
    [owner] = claims[0]["metadata"]["ownerReferences"]
    assert (owner["apiVersion"], owner["kind"], owner["name"]) == (
        "scheduling.k8s.io/v1beta1",
        "PodGroup",
        "trainers",
    )
    group_uid = stored_group["metadata"]["uid"]
    assert claims[0]["status"]["reservedFor"] == [{**GROUP_REF, "uid": group_uid}]
    for pod_name in ("t0", "t1"):
        got = sim.store.get("Pod", pod_name, "default")
        assert got is not None and got["status"]["phase"] == "Running"
        assert got["status"]["resourceClaimStatuses"] == [
            {"name": "gpu", "resourceClaimName": name}
        ]
