"""Workloads: pod templates validated at the workload's paths, and expanded into pods."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from kubedra.api.workloads import (
    SAFE_ALPHABET,
    Taken,
    check_workload,
    expand_pods,
    pod_count,
    pod_spec_of,
    safe_encode,
    template_hash,
)

SUFFIX = f"[{SAFE_ALPHABET}]{{5}}"


def _template(claims: list[dict[str, Any]] | None = None, **spec: Any) -> dict[str, Any]:
    pod_spec: dict[str, Any] = {
        "containers": [{"name": "app", "image": "x", "resources": {"claims": [{"name": "gpu"}]}}]
    }
    pod_spec["resourceClaims"] = (
        claims if claims is not None else [{"name": "gpu", "resourceClaimTemplateName": "t"}]
    )
    pod_spec |= spec
    return {"metadata": {"labels": {"app": "web"}}, "spec": pod_spec}


def _workload(kind: str, api_version: str = "apps/v1", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": "web", "namespace": "ml", "uid": "uid-1"},
        "spec": {"template": _template()} | spec,
    }


def test_template_errors_carry_the_workload_paths() -> None:
    deployment = _workload("Deployment")
    deployment["spec"]["template"]["spec"]["resourceClaims"] = [{"name": "other"}]
    check = check_workload(deployment)
    assert check.decode_error is None
    assert [str(error) for error in check.errors] == [
        "spec.template.spec.resourceClaims[0]: Invalid value: "
        '{"Name":"other","ResourceClaimName":null,"ResourceClaimTemplateName":null}: '
        "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`",
        'spec.template.spec.containers[0].resources.claims[0]: Not found: "gpu": '
        "must be one of the names in pod.spec.resourceClaims: other",
    ]
    cron = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "nightly"},
        "spec": {"jobTemplate": {"spec": {"template": _template(claims=[])}}},
    }
    [error] = check_workload(cron).errors
    assert error.field == "spec.jobTemplate.spec.template.spec.containers[0].resources.claims[0]"


def test_valid_template_and_wrong_types() -> None:
    assert check_workload(_workload("StatefulSet")).errors == []
    broken = _workload("Job", "batch/v1")
    broken["spec"]["template"]["spec"]["resourceClaims"] = "gpu"
    check = check_workload(broken)
    assert check.decode_error is not None
    assert check.decode_error.startswith(
        'Job.batch "ml/web": pod template (spec.template) cannot be decoded: '
    )
    assert "spec.resourceClaims" in check.decode_error


def test_pod_spec_of() -> None:
    assert pod_spec_of(_workload("DaemonSet"))["containers"][0]["name"] == "app"  # type: ignore[index]
    assert pod_spec_of({"apiVersion": "v1", "kind": "Service", "spec": {}}) is None


def test_deployment_pods_are_named_as_the_controllers_name_them() -> None:
    deployment = _workload("Deployment", replicas=3)
    pods = expand_pods(deployment)
    pod_hash = template_hash(deployment["spec"]["template"])
    assert re.fullmatch(f"[{SAFE_ALPHABET}]+", pod_hash)
    assert len(pods) == 3
    for pod in pods:
        assert re.fullmatch(f"web-{pod_hash}-{SUFFIX}", pod["metadata"]["name"])
        assert pod["metadata"]["namespace"] == "ml"
        assert pod["metadata"]["labels"] == {"app": "web", "pod-template-hash": pod_hash}
        [owner] = pod["metadata"]["ownerReferences"]
        assert (owner["kind"], owner["name"], owner["controller"]) == (
            "ReplicaSet",
            f"web-{pod_hash}",
            True,
        )
        assert pod["spec"]["resourceClaims"] == [{"name": "gpu", "resourceClaimTemplateName": "t"}]
    assert len({pod["metadata"]["name"] for pod in pods}) == 3
    assert expand_pods(deployment) == pods  # deterministic
    other = expand_pods(deployment, rng=random.Random(7))
    assert [p["metadata"]["name"] for p in other] != [p["metadata"]["name"] for p in pods]
    # The pods are independent copies of the template.
    pods[0]["spec"]["containers"].clear()
    assert deployment["spec"]["template"]["spec"]["containers"]


def test_replica_counts_and_other_controllers() -> None:
    assert len(expand_pods(_workload("ReplicaSet"))) == 1  # replicas defaults to 1
    assert expand_pods(_workload("ReplicaSet", replicas=0)) == []
    rc = expand_pods(_workload("ReplicationController", "v1", replicas=2))
    assert all(re.fullmatch(f"web-{SUFFIX}", p["metadata"]["name"]) for p in rc)
    stateful = expand_pods(_workload("StatefulSet", replicas=2, serviceName="svc"))
    assert [p["metadata"]["name"] for p in stateful] == ["web-0", "web-1"]
    assert stateful[1]["metadata"]["labels"]["apps.kubernetes.io/pod-index"] == "1"
    assert stateful[1]["spec"]["hostname"] == "web-1"
    assert stateful[1]["spec"]["subdomain"] == "svc"


def test_jobs() -> None:
    job = _workload("Job", "batch/v1", parallelism=4, completions=2)
    pods = expand_pods(job)
    assert len(pods) == 2  # never more than the completions left
    assert pods[0]["metadata"]["labels"]["batch.kubernetes.io/job-name"] == "web"
    assert pods[0]["metadata"]["labels"]["batch.kubernetes.io/controller-uid"] == "uid-1"
    indexed = expand_pods(_workload("Job", "batch/v1", parallelism=3, completionMode="Indexed"))
    names = [p["metadata"]["name"] for p in indexed]
    assert [name.rsplit("-", 1)[0] for name in names] == ["web-0", "web-1", "web-2"]
    assert indexed[2]["metadata"]["annotations"] == {
        "batch.kubernetes.io/job-completion-index": "2"
    }
    assert expand_pods(_workload("Job", "batch/v1", suspend=True)) == []
    cron = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c"}, "spec": {}}
    assert expand_pods(cron) == []


def test_daemon_set_pods_are_pinned_to_matching_nodes() -> None:
    daemon_set = _workload("DaemonSet")
    daemon_set["spec"]["template"]["spec"]["nodeSelector"] = {"gpu": "true"}
    nodes = [
        {"metadata": {"name": "n1", "labels": {"gpu": "true"}}},
        {"metadata": {"name": "n2", "labels": {}}},
        {"metadata": {"name": "n3", "labels": {"gpu": "true"}}},
    ]
    pods = expand_pods(daemon_set, nodes=nodes)
    terms = [
        p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
            "nodeSelectorTerms"
        ]
        for p in pods
    ]
    assert [term[0]["matchFields"][0]["values"] for term in terms] == [["n1"], ["n3"]]
    tolerations = pods[0]["spec"]["tolerations"]
    assert {
        "key": "node.kubernetes.io/unschedulable",
        "operator": "Exists",
        "effect": "NoSchedule",
    } in tolerations
    assert expand_pods(daemon_set) == []  # no nodes, no daemon pods


def test_pods_and_other_kinds() -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {}}
    assert expand_pods(pod) == [pod]
    assert expand_pods({"apiVersion": "v1", "kind": "Service"}) == []


def test_safe_encode_matches_upstream_alphabet() -> None:
    # rand.SafeEncodeString maps each byte onto the alphabet by its value modulo 27.
    assert safe_encode("0123") == "".join(SAFE_ALPHABET[ord(c) % 27] for c in "0123")
    assert template_hash({"a": 1}) == template_hash({"a": 1})
    assert template_hash({"a": 1}) != template_hash({"a": 1}, collision_count=1)


@pytest.mark.parametrize(
    ("kind", "api_version", "spec", "message"),
    [
        ("ReplicationController", "v1", {"replicas": 2147483648}, "spec.replicas: integer "
         "2147483648 does not fit in 32 bits"),
        ("Deployment", "apps/v1", {"replicas": "3"}, 'spec.replicas: expected integer, got a '
         'string "3"'),
        ("ReplicaSet", "apps/v1", {"replicas": 1.5}, "spec.replicas: expected integer, got a "
         "number 1.5"),
        ("Job", "batch/v1", {"completions": True}, "spec.completions: expected integer, got a "
         "boolean true"),
        ("Job", "batch/v1", {"suspend": "yes"}, 'spec.suspend: expected boolean, got a string '
         '"yes"'),
        ("StatefulSet", "apps/v1", {"ordinals": {"start": 1e10}}, "spec.ordinals.start: integer "
         "10000000000 does not fit in 32 bits"),
    ],
)  # fmt: skip
def test_read_fields_decode_as_the_apiserver_decodes(
    kind: str, api_version: str, spec: dict[str, Any], message: str
) -> None:
    check = check_workload(_workload(kind, api_version, **spec))
    assert (
        check.decode_error == f'{kind}{_GROUP[api_version]} "ml/web" cannot be decoded: {message}'
    )


_GROUP = {"v1": "", "apps/v1": ".apps", "batch/v1": ".batch"}


@pytest.mark.parametrize(
    ("kind", "api_version", "obj", "errors"),
    [
        ("Deployment", "apps/v1", {"spec": {"replicas": -1}},
         ["spec.replicas: Invalid value: -1: must be greater than or equal to 0"]),
        ("ReplicationController", "v1", {"spec": {"replicas": -1}},
         ["spec.replicas: Invalid value: -1: must be greater than or equal to 0"]),
        ("Job", "batch/v1", {"spec": {"completions": -4, "parallelism": -1}},
         ["spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
          "spec.completions: Invalid value: -4: must be greater than or equal to 0"]),
        ("Job", "batch/v1", {"spec": {"completionMode": "Sometimes"}},
         ['spec.completionMode: Unsupported value: "Sometimes": supported values: '
          '"NonIndexed", "Indexed"']),
        ("Job", "batch/v1", {"spec": {"completionMode": "Indexed", "parallelism": 100001}},
         ["spec.completions: Required value: when completion mode is Indexed",
          "spec.parallelism: Invalid value: 100001: must be less than or equal to 100000 when "
          "completion mode is Indexed"]),
        ("StatefulSet", "apps/v1", {"spec": {"ordinals": {"start": -2}}},
         ["spec.ordinals.start: Invalid value: -2: must be greater than or equal to 0"]),
        ("Deployment", "apps/v1", {"status": {"collisionCount": -1}},
         ["status.collisionCount: Invalid value: -1: must be greater than or equal to 0"]),
    ],
)  # fmt: skip
def test_read_fields_validate_as_the_apiserver_validates(
    kind: str, api_version: str, obj: dict[str, Any], errors: list[str]
) -> None:
    workload = _workload(kind, api_version)
    workload["spec"] |= obj.get("spec", {})
    if "status" in obj:
        workload["status"] = obj["status"]
    check = check_workload(workload)
    assert check.decode_error is None
    assert [str(error) for error in check.errors] == errors


def test_an_integral_float_count_is_that_many() -> None:
    """YAML ``2.0`` reaches the apiserver's decoder as 2 (it was taken for 1)."""
    workload = _workload("ReplicaSet", replicas=2.0)
    assert check_workload(workload).errors == []
    assert len(expand_pods(workload)) == pod_count(workload) == 2


def test_ten_thousand_replicas_get_ten_thousand_names() -> None:
    """Random suffixes collide (two of 10,000 here): drawn again, as the apiserver draws a
    generateName again, and never one of the names already taken."""
    deployment = _workload("Deployment", replicas=10_000)
    taken: Taken = set()
    pods = expand_pods(deployment, taken=taken)
    names = {pod["metadata"]["name"] for pod in pods}
    assert len(names) == 10_000
    assert taken == {("ml", name) for name in names}
    first = pods[0]["metadata"]["name"]
    again = expand_pods(deployment, taken={("ml", first)})  # a Pod of that name is in the input
    again_names = [pod["metadata"]["name"] for pod in again]
    assert first not in again_names and len(set(again_names)) == 10_000


@pytest.mark.parametrize(
    ("kind", "api_version", "spec", "count"),
    [
        ("Deployment", "apps/v1", {"replicas": 7}, 7),
        ("Deployment", "apps/v1", {}, 1),
        ("ReplicationController", "v1", {"replicas": 2147483647}, 2147483647),
        ("StatefulSet", "apps/v1", {"replicas": 3, "ordinals": {"start": 5}}, 3),
        ("Job", "batch/v1", {"parallelism": 4, "completions": 2}, 2),
        ("Job", "batch/v1", {"parallelism": 4, "suspend": True}, 0),
        ("DaemonSet", "apps/v1", {}, 2),
        ("CronJob", "batch/v1", {}, 0),
    ],
)
def test_pod_count_is_known_before_the_pods_are_made(
    kind: str, api_version: str, spec: dict[str, Any], count: int
) -> None:
    workload = _workload(kind, api_version, **spec)
    nodes = [{"metadata": {"name": f"n{i}"}} for i in range(2)]
    assert pod_count(workload, nodes) == count
    if count < 100:
        assert len(expand_pods(workload, nodes=nodes)) == count
