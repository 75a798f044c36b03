"""ResourcePoolStatusRequest decoding and validation (resource.k8s.io/v1alpha3, KEP-5677).

Sources: kubernetes/kubernetes pkg/apis/resource/validation/
validation_resourcepoolstatusrequest.go (``validateResourcePoolStatusRequestSpec`` messages),
k8s.io/api resource/v1alpha3/types.go at v0.36.0 and on the 1.37 development branch
(kubernetes/api master of 2026-07-24: ``defaultPartitionTypeAttribute``, ``partitionSummary``
and ``shareableSummary`` are new in 1.37; ``limit`` defaults to 100).
"""

from __future__ import annotations

from typing import Any

from kubedra.api.defaults import apply_defaults
from kubedra.api.io import load_text
from kubedra.api.validation import validate_update
from validation_fixtures import rendered_errors


def _request(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1alpha3",
        "kind": "ResourcePoolStatusRequest",
        "metadata": {"name": "gpus"},
        "spec": {"driver": "gpu.example.com", **spec},
    }


def test_a_valid_request_is_defaulted_to_a_limit_of_100() -> None:
    request = apply_defaults(_request())
    assert request["spec"]["limit"] == 100
    assert rendered_errors(request) == []


def test_spec_rules() -> None:
    assert rendered_errors(_request(driver="")) == [
        "spec.driver: Required value: driver name is required"
    ]
    assert rendered_errors(_request(poolName="")) == [
        'spec.poolName: Invalid value: "": must not be empty when specified'
    ]
    assert rendered_errors(_request(limit=0)) == [
        "spec.limit: Invalid value: 0: must be at least 1"
    ]
    assert rendered_errors(_request(limit=1001)) == [
        "spec.limit: Invalid value: 1001: must not exceed 1000"
    ]
    assert rendered_errors(_request(defaultPartitionTypeAttribute="profile")) == [
        'spec.defaultPartitionTypeAttribute: Invalid value: "profile": a fully qualified name '
        "must be a domain and a name separated by a slash"
    ]


def test_spec_and_an_answered_status_are_immutable() -> None:
    old = apply_defaults(_request())
    changed = {**old, "spec": {**old["spec"], "limit": 5}}
    assert next(str(e) for e in validate_update(changed, old)).startswith("spec: Invalid value: ")
    answered = {**old, "status": {"poolCount": 0}}
    again = {**old, "status": {"poolCount": 1}}
    assert [str(e).split(": ")[0] for e in validate_update(again, answered)] == ["status"]
    assert validate_update(answered, old) == []


def test_1_36_serves_the_kind_without_the_1_37_fields() -> None:
    text = (
        "apiVersion: resource.k8s.io/v1alpha3\nkind: ResourcePoolStatusRequest\n"
        "metadata: {name: gpus}\n"
        "spec: {driver: gpu.example.com, defaultPartitionTypeAttribute: gpu.example.com/profile}\n"
    )
    [entry] = load_text(text, kubernetes_version="1.36").objects
    assert entry.strict_errors == (
        'unknown field "spec.defaultPartitionTypeAttribute" (a Kubernetes 1.37 field; '
        "selected release: 1.36)",
    )
    assert load_text(text, kubernetes_version="1.37").objects[0].strict_errors == ()
    [error] = load_text(text, kubernetes_version="1.35").errors
    assert 'no matches for kind "ResourcePoolStatusRequest"' in error.message
