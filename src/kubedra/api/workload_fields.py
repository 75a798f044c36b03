"""The workload fields kubedra reads, decoded and validated as the apiserver does.

Expanding a Deployment, Job or StatefulSet into pods reads its replica counts (``replicas``,
``parallelism``, ``completions``, ``ordinals.start``), ``suspend``, ``completionMode`` and a
Deployment's ``status.collisionCount``. The apiserver decodes them into int32, bool and
string fields (a string ``"3"``, ``1.5`` or ``2147483648`` is a decoding error, reported like
a Pod's) and validates them (negative counts, an unknown completion mode, an Indexed Job
without completions). Only these fields are checked here: the pod template is validated as
a PodSpec by ``kubedra.api.workloads.check_workload``.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from kubedra.api.io.decoding import describe_validation_error
from kubedra.api.models.base import Int32, KubeModel
from kubedra.api.validation.errors import FieldError, invalid, not_supported, required
from kubedra.api.validation.meta import NEGATIVE_ERROR_MSG

MAX_PARALLELISM_FOR_INDEXED_JOB = 100_000
"""``maxParallelismForIndexedJob`` in the Job validation."""


class _Replicated(KubeModel):
    replicas: Int32 | None = None


class _Ordinals(KubeModel):
    start: Int32 | None = None


class _StatefulSetSpec(_Replicated):
    ordinals: _Ordinals | None = None
    service_name: str | None = None


class _JobSpec(KubeModel):
    parallelism: Int32 | None = None
    completions: Int32 | None = None
    suspend: bool | None = None
    completion_mode: str | None = None


class _DeploymentStatus(KubeModel):
    collision_count: Int32 | None = None


class _ReplicatedObject(KubeModel):
    spec: _Replicated | None = None


class _Deployment(_ReplicatedObject):
    status: _DeploymentStatus | None = None


class _StatefulSet(KubeModel):
    spec: _StatefulSetSpec | None = None


class _Job(KubeModel):
    spec: _JobSpec | None = None


_MODELS: dict[tuple[str, str], type[KubeModel]] = {
    ("apps/v1", "Deployment"): _Deployment,
    ("apps/v1", "ReplicaSet"): _ReplicatedObject,
    ("v1", "ReplicationController"): _ReplicatedObject,
    ("apps/v1", "StatefulSet"): _StatefulSet,
    ("batch/v1", "Job"): _Job,
}


def decode_error(obj: dict[str, Any]) -> str | None:
    """``<Kind "ns/name"> cannot be decoded: <field>: <problem>`` for a read field of the
    wrong type or out of int32's range; None when they decode (or the kind reads none)."""
    model = _MODELS.get((obj.get("apiVersion"), obj.get("kind")))  # type: ignore[arg-type]
    if model is None:
        return None
    try:
        model.model_validate(obj)
    except ValidationError as error:
        return describe_validation_error(obj, model, error)
    return None


def validate_fields(obj: dict[str, Any]) -> list[FieldError]:
    """The apiserver's errors for the read fields of a workload that decodes."""
    kind = obj.get("kind")
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    assert isinstance(spec, dict)
    errors: list[FieldError] = []
    if kind in ("Deployment", "ReplicaSet", "ReplicationController", "StatefulSet"):
        errors += _nonnegative(spec, "replicas", "spec.replicas")
    if kind == "StatefulSet" and isinstance(spec.get("ordinals"), dict):
        errors += _nonnegative(spec["ordinals"], "start", "spec.ordinals.start")
    if kind == "Deployment" and isinstance(obj.get("status"), dict):
        errors += _nonnegative(obj["status"], "collisionCount", "status.collisionCount")
    if kind == "Job":
        errors += _job(spec)
    return errors


def _nonnegative(parent: dict[str, Any], key: str, path: str) -> list[FieldError]:
    value = parent.get(key)
    if isinstance(value, int | float) and not isinstance(value, bool) and value < 0:
        return [invalid(path, int(value), NEGATIVE_ERROR_MSG)]
    return []


def _job(spec: dict[str, Any]) -> list[FieldError]:
    errors = _nonnegative(spec, "parallelism", "spec.parallelism")
    errors += _nonnegative(spec, "completions", "spec.completions")
    mode = spec.get("completionMode")
    if mode is None:
        return errors
    if mode not in ("NonIndexed", "Indexed"):
        errors.append(not_supported("spec.completionMode", mode, ["NonIndexed", "Indexed"]))
    if mode == "Indexed":
        if spec.get("completions") is None:
            errors.append(required("spec.completions", "when completion mode is Indexed"))
        parallelism = spec.get("parallelism")
        if isinstance(parallelism, int | float) and parallelism > MAX_PARALLELISM_FOR_INDEXED_JOB:
            errors.append(
                invalid(
                    "spec.parallelism",
                    int(parallelism),
                    f"must be less than or equal to {MAX_PARALLELISM_FOR_INDEXED_JOB} "
                    "when completion mode is Indexed",
                )
            )
    return errors
