"""The wire models: field names match upstream, objects round-trip, types are strict."""

from __future__ import annotations

import re
from typing import Any, get_args

import kubernetes.client.models as upstream
import pytest
from pydantic import BaseModel, ValidationError

from kubedra.api import models
from kubedra.api.io.release_fields import RELEASE_FIELDS
from kubedra.api.models import KINDS, KubeModel
from kubedra.api.releases import DEFAULT

OLDER_RELEASE_FIELDS = {spec.path[-1] for spec in RELEASE_FIELDS if DEFAULT not in spec.releases}
"""Fields the models keep for an older release only: the client (newest release) lacks them."""

# Our model -> the official Python client's class for the same Go type (generated from the
# upstream OpenAPI, so its attribute_map holds upstream's JSON field names).
UPSTREAM_ROOTS = {
    models.ResourceSlice: "V1ResourceSlice",
    models.ResourceClaim: "ResourceV1ResourceClaim",
    models.DeviceClass: "V1DeviceClass",
    models.ResourceClaimTemplate: "V1ResourceClaimTemplate",
    models.DeviceTaintRule: "V1DeviceTaintRule",
}


def _model_of(annotation: Any) -> type[BaseModel] | None:
    """The model class inside ``X | None``, ``list[X]`` or ``dict[str, X]``, if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _model_of(arg)
        if found is not None:
            return found
    return None


def _upstream_class(type_text: str) -> Any:
    names = [name for name in re.findall(r"[A-Z]\w+", type_text) if hasattr(upstream, name)]
    return getattr(upstream, names[0]) if names else None


def _compare(ours: type[BaseModel], theirs: Any, path: str, seen: set[str]) -> list[str]:
    """Every upstream field exists in our model (by wire name) and vice versa, recursively."""
    if path in seen or ours in (models.ObjectMeta,):
        return []
    seen.add(path)
    our_fields = {info.alias or name: info for name, info in ours.model_fields.items()}
    their_fields = {theirs.attribute_map[attr]: typ for attr, typ in theirs.openapi_types.items()}
    problems = [
        f"{path}: {name} is {'missing' if name in their_fields else 'not upstream'}"
        for name in sorted(set(our_fields) ^ set(their_fields))
        if name not in OLDER_RELEASE_FIELDS
    ]
    for name, type_text in their_fields.items():
        if name not in our_fields:
            continue
        our_child = _model_of(our_fields[name].annotation)
        their_child = _upstream_class(type_text)
        if (our_child is None) != (their_child is None):
            problems.append(f"{path}.{name}: object on one side only")
        elif our_child is not None:
            problems += _compare(our_child, their_child, f"{path}.{name}", seen)
    return problems


@pytest.mark.parametrize("model", list(UPSTREAM_ROOTS), ids=lambda m: m.__name__)
def test_field_names_match_upstream_api(model: type[BaseModel]) -> None:
    theirs = getattr(upstream, UPSTREAM_ROOTS[model])
    assert _compare(model, theirs, model.__name__, set()) == []


def test_object_meta_has_every_upstream_field() -> None:
    ours = {info.alias or name for name, info in models.ObjectMeta.model_fields.items()}
    assert ours == set(upstream.V1ObjectMeta.attribute_map.values())


SLICE: dict[str, Any] = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceSlice",
    "metadata": {"name": "node-1-gpu", "labels": {"a": "b"}},
    "spec": {
        "driver": "gpu.example.com",
        "pool": {"name": "node-1", "generation": 2, "resourceSliceCount": 1},
        "nodeName": "node-1",
        "devices": [
            {
                "name": "gpu-0",
                "attributes": {
                    "model": {"string": "x"},
                    "index": {"int": 0},
                    "ok": {"bool": True},
                    "v": {"version": "1.0.0"},
                    "l": {"ints": [1, 2]},
                },
                "capacity": {
                    "memory": {
                        "value": "80Gi",
                        "requestPolicy": {
                            "default": "1Gi",
                            "validRange": {"min": "1Gi", "max": "80Gi", "step": "1Gi"},
                        },
                    }
                },
                "allowMultipleAllocations": True,
                "taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}],
                "bindsToNode": True,
                "bindingConditions": ["Ready"],
                "bindingFailureConditions": ["Failed"],
            }
        ],
    },
}


def test_slice_round_trips_unchanged() -> None:
    parsed = models.ResourceSlice.model_validate(SLICE, extra="forbid")
    assert parsed.to_wire() == SLICE
    device = parsed.spec.devices[0]  # type: ignore[union-attr,index]
    assert device.attributes["index"].int_value == 0  # type: ignore[index]
    assert device.capacity["memory"].request_policy.valid_range.step == "1Gi"  # type: ignore[index,union-attr]


def test_unknown_fields_are_kept_by_default() -> None:
    wire = {**SLICE, "spec": {**SLICE["spec"], "futureField": {"x": 1}}}
    parsed = models.ResourceSlice.model_validate(wire)
    assert parsed.to_wire()["spec"]["futureField"] == {"x": 1}


def test_unknown_fields_are_reported_when_forbidden() -> None:
    wire = {**SLICE, "spec": {**SLICE["spec"], "futureField": 1}}
    with pytest.raises(ValidationError) as caught:
        models.ResourceSlice.model_validate(wire, extra="forbid")
    assert caught.value.errors()[0]["loc"] == ("spec", "futureField")


@pytest.mark.parametrize(
    ("field", "value"),
    [("generation", "2"), ("generation", True), ("generation", 1.5), ("name", 3)],
)
def test_types_are_strict_like_go_json(field: str, value: object) -> None:
    pool = {"name": "p", "generation": 1, "resourceSliceCount": 1, field: value}
    with pytest.raises(ValidationError):
        models.ResourcePool.model_validate(pool)


def test_integral_float_is_an_integer_as_yaml_to_json_makes_it() -> None:
    pool = models.ResourcePool.model_validate({"generation": 2.0})
    assert pool.generation == 2 and isinstance(pool.generation, int)


def test_int64_overflow_is_rejected() -> None:
    with pytest.raises(ValidationError):
        models.ResourcePool.model_validate({"generation": 2**63})


@pytest.mark.parametrize(
    ("given", "canonical"), [("1.5Gi", "1536Mi"), (3, "3"), (0.5, "500m"), ("16Gi", "16Gi")]
)
def test_quantities_are_canonical(given: object, canonical: str) -> None:
    assert models.Counter.model_validate({"value": given}).value == canonical


def test_bad_quantity_is_rejected() -> None:
    with pytest.raises(ValidationError, match="quantities must match"):
        models.Counter.model_validate({"value": "lots"})


def test_timestamps_must_be_rfc3339() -> None:
    models.DeviceTaint.model_validate({"timeAdded": "2026-01-02T03:04:05Z"})
    with pytest.raises(ValidationError):
        models.DeviceTaint.model_validate({"timeAdded": "yesterday"})


def test_python_names_work_as_well_as_wire_names() -> None:
    request = models.ExactDeviceRequest(device_class_name="gpu", allocation_mode="All")
    assert request.to_wire() == {"deviceClassName": "gpu", "allocationMode": "All"}


def test_top_level_objects_always_write_api_version_and_kind() -> None:
    claim = models.ResourceClaim(metadata=models.ObjectMeta(name="c"))
    assert list(claim.to_wire()) == ["apiVersion", "kind", "metadata"]
    assert claim.to_wire()["apiVersion"] == "resource.k8s.io/v1"


def test_every_kind_is_registered_under_its_own_api_version() -> None:
    for (api_version, kind), model in KINDS.items():
        assert model.model_fields["api_version"].default == api_version
        assert model.model_fields["kind"].default == kind
        assert issubclass(model, KubeModel)


def test_pod_subset_keeps_unmodeled_fields() -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {
            "containers": [{"name": "c", "image": "i", "ports": [{"containerPort": 80}]}],
            "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "t"}],
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "a", "operator": "In", "values": ["b"]}]}
                        ]
                    }
                }
            },
        },
    }
    parsed = models.Pod.model_validate(pod)
    assert parsed.to_wire() == pod


CORE_SUBSETS = {
    models.Pod: "V1Pod",
    models.Node: "V1Node",
    models.Namespace: "V1Namespace",
    models.PriorityClass: "V1PriorityClass",
}


def _subset_problems(ours: type[BaseModel], theirs: Any, path: str) -> list[str]:
    """Every field we model exists upstream under the same wire name, recursively."""
    their_fields = {theirs.attribute_map[attr]: typ for attr, typ in theirs.openapi_types.items()}
    problems = []
    for name, info in ours.model_fields.items():
        wire = info.alias or name
        if wire not in their_fields:
            problems.append(f"{path}.{wire} is not upstream")
            continue
        our_child, their_child = _model_of(info.annotation), _upstream_class(their_fields[wire])
        if our_child is not None and our_child is not models.ObjectMeta:
            problems += _subset_problems(our_child, their_child, f"{path}.{wire}")
    return problems


@pytest.mark.parametrize("model", list(CORE_SUBSETS), ids=lambda m: m.__name__)
def test_core_subset_uses_upstream_field_names(model: type[BaseModel]) -> None:
    theirs = getattr(upstream, CORE_SUBSETS[model])
    assert _subset_problems(model, theirs, model.__name__) == []
