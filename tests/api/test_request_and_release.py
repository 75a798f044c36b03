"""What the request carries: the namespace (filled in as the apiserver does) and the release
whose fields decode; and unknown fields reported together with the validation errors."""

from __future__ import annotations

import pytest

from kubedra.api.checking import check_loaded
from kubedra.api.io import load_text
from kubedra.api.releases import (
    DEFAULT,
    SUPPORTED,
    UnsupportedVersionError,
    at_least,
    parse_version,
)

CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: claim
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
"""

CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
  namespace: stray
"""

SLICE_1_36 = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-cpu}
spec:
  driver: cpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: cpu-0
    capacity: {cores: {value: "8"}}
    nodeAllocatableResourceMappings:
      cpu: {capacityKey: cores, allocationMultiplier: "2"}
"""

SLICE_1_37 = SLICE_1_36.replace(
    """    nodeAllocatableResourceMappings:
      cpu: {capacityKey: cores, allocationMultiplier: "2"}""",
    """    nodeAllocatableResources:
      cpu: {mapping: {capacityKey: cores, capacityMultiplier: "2"}}""",
)


def test_namespaced_object_without_namespace_gets_the_request_namespace() -> None:
    report = check_loaded(load_text(CLAIM))
    [verdict] = report.verdicts
    assert verdict.defaulted["metadata"]["namespace"] == "default"
    assert report.ok
    [obj] = load_text(CLAIM, namespace="gpu-test").objects
    assert obj.wire["metadata"]["namespace"] == "gpu-test"


def test_object_keeps_its_namespace_unless_another_is_enforced() -> None:
    text = CLAIM.replace("  name: claim\n", "  name: claim\n  namespace: team-a\n")
    [obj] = load_text(text, namespace="other").objects
    assert obj.wire["metadata"]["namespace"] == "team-a"
    [error] = load_text(text, namespace="other", enforce_namespace=True).errors
    assert error.message == (
        'ResourceClaim.resource.k8s.io "team-a/claim": the namespace of the provided object '
        "does not match the namespace sent on the request"
    )
    assert load_text(text, namespace="team-a", enforce_namespace=True).errors == []


def test_cluster_scoped_object_has_a_stray_namespace_cleared() -> None:
    report = check_loaded(load_text(CLASS, namespace="x", enforce_namespace=True))
    [verdict] = report.verdicts
    assert "namespace" not in verdict.defaulted["metadata"]
    assert report.ok


def test_versions_parse_to_supported_releases() -> None:
    assert SUPPORTED == ("1.34", "1.35", "1.36", "1.37") and DEFAULT == "1.37"
    assert [parse_version(v) for v in ("1.36", "v1.36", "1.36.2", "v1.34.0-rc.1")] == [
        "1.36",
        "1.36",
        "1.36",
        "1.34",
    ]
    assert at_least("1.37", "1.36") and not at_least("1.34", "1.35")
    with pytest.raises(UnsupportedVersionError, match=r"1\.33 is not supported"):
        parse_version("1.33")
    with pytest.raises(UnsupportedVersionError, match="invalid Kubernetes version"):
        parse_version("latest")


def test_a_field_of_1_36_decodes_for_1_36() -> None:
    report = check_loaded(load_text(SLICE_1_36, kubernetes_version="1.36"))
    assert report.ok, [str(e) for e in report.load_errors]
    [verdict] = report.verdicts
    mappings = verdict.loaded.wire["spec"]["devices"][0]["nodeAllocatableResourceMappings"]
    assert mappings == {"cpu": {"capacityKey": "cores", "allocationMultiplier": "2"}}


def test_a_field_of_another_release_is_reported_as_such() -> None:
    result = load_text(SLICE_1_36)  # the newest release: renamed after 1.36
    [obj] = result.objects
    assert "nodeAllocatableResourceMappings" not in obj.wire["spec"]["devices"][0]
    [error] = result.errors
    assert error.message == (
        'ResourceSlice.resource.k8s.io "node-1-cpu": strict decoding error: unknown field '
        '"spec.devices[0].nodeAllocatableResourceMappings" (a Kubernetes 1.36 field, renamed '
        "to nodeAllocatableResources in 1.37; selected release: 1.37)"
    )
    [error] = load_text(SLICE_1_37, kubernetes_version="1.35").errors
    assert 'unknown field "spec.devices[0].nodeAllocatableResources" (a Kubernetes 1.37' in (
        error.message
    )
    assert load_text(SLICE_1_37).errors == []


def test_a_kind_not_served_by_the_release_is_no_match() -> None:
    rule = "apiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\nmetadata: {name: r}\n"
    assert load_text(rule).errors == []
    [error] = load_text(rule, kubernetes_version="1.36").errors
    assert error.message == (
        'no matches for kind "DeviceTaintRule" in version "resource.k8s.io/v1" '
        "(served by Kubernetes 1.37; selected release: 1.36)"
    )


def test_unknown_field_and_validation_errors_are_both_reported() -> None:
    text = CLAIM.replace("name: gpu", "name: GPU").replace(
        "deviceClassName: gpu.example.com", "deviceClassName: gpu.example.com\n        colour: 1"
    )
    report = check_loaded(load_text(text))
    [verdict] = report.verdicts
    assert not report.ok and report.invalid == [verdict]
    assert verdict.strict_error is not None
    assert verdict.strict_error.message.endswith(
        'strict decoding error: unknown field "spec.devices.requests[0].exactly.colour"'
    )
    assert [error.field for error in verdict.errors] == ["spec.devices.requests[0].name"]
