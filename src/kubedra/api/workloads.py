"""Workloads (Deployment, Job, StatefulSet, ...) seen through their pod templates.

``kubedra validate`` checks a workload's pod template as the apiserver validates the
template's PodSpec (claims, containers' claim references, node selection); ``expand_pods``
makes the pods its controller would create, for the simulation. Names follow the controllers:
a Deployment's pods are ``<deployment>-<pod-template-hash>-<5 random>``, a ReplicaSet's,
DaemonSet's and Job's ``<owner>-<5 random>``, a StatefulSet's ``<set>-<ordinal>``, an indexed
Job's ``<job>-<index>-<5 random>``; the random parts come from a seeded RNG, so the same input
gives the same names. The template hash is FNV-1a of the template's canonical JSON, encoded as
upstream encodes its hash (``rand.SafeEncodeString``), not upstream's hash of the Go struct.
"""

from __future__ import annotations

import copy
import json
import random
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from kubedra.api import workload_fields
from kubedra.api.defaults import apply_defaults
from kubedra.api.io.decoding import DecodeError, decode, object_name
from kubedra.api.validation import FieldError, validate_object

TEMPLATE_PATHS: dict[tuple[str, str], tuple[str, ...]] = {
    ("apps/v1", "Deployment"): ("spec", "template"),
    ("apps/v1", "ReplicaSet"): ("spec", "template"),
    ("apps/v1", "StatefulSet"): ("spec", "template"),
    ("apps/v1", "DaemonSet"): ("spec", "template"),
    ("batch/v1", "Job"): ("spec", "template"),
    ("batch/v1", "CronJob"): ("spec", "jobTemplate", "spec", "template"),
    ("v1", "ReplicationController"): ("spec", "template"),
    ("v1", "PodTemplate"): ("template",),
}
"""Where each workload kind keeps its pod template."""

WORKLOAD_KINDS = frozenset(TEMPLATE_PATHS)

SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
"""``k8s.io/apimachinery/pkg/util/rand``'s alphabet (no vowels, no confusable characters)."""

DAEMONSET_TOLERATIONS = (
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
)
"""What the DaemonSet controller adds to every daemon pod (``util.AddOrUpdateDaemonPodTolerations``;
``network-unavailable`` only for host-network pods)."""


def is_workload(obj: dict[str, Any]) -> bool:
    return (obj.get("apiVersion"), obj.get("kind")) in WORKLOAD_KINDS


def _at(obj: Any, path: Iterable[str]) -> Any:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def template_path(obj: dict[str, Any]) -> tuple[str, ...] | None:
    return TEMPLATE_PATHS.get((obj.get("apiVersion"), obj.get("kind")))  # type: ignore[arg-type]


def pod_spec_of(obj: dict[str, Any]) -> dict[str, Any] | None:
    """The pod spec of a Pod or of a workload's template; None for other kinds."""
    if obj.get("apiVersion") == "v1" and obj.get("kind") == "Pod":
        spec = obj.get("spec")
        return spec if isinstance(spec, dict) else None
    path = template_path(obj)
    spec = _at(obj, (*path, "spec")) if path is not None else None
    return spec if isinstance(spec, dict) else None


def _child(obj: dict[str, Any], key: str) -> dict[str, Any]:
    """``obj[key]`` when it is a mapping, else an empty one."""
    value = obj.get(key)
    return value if isinstance(value, dict) else {}


def _metadata(obj: dict[str, Any]) -> dict[str, Any]:
    return _child(obj, "metadata")


def template_pod(obj: dict[str, Any]) -> dict[str, Any]:
    """The workload's template as a v1 Pod named like the workload (for validation)."""
    path = template_path(obj)
    template = _at(obj, path) if path is not None else None
    template = template if isinstance(template, dict) else {}
    owner = _metadata(obj)
    metadata = {key: owner[key] for key in ("name", "generateName", "namespace") if key in owner}
    if not metadata.get("name") and not metadata.get("generateName"):
        metadata["name"] = "template"
    pod: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": metadata}
    pod["spec"] = _child(template, "spec")
    return pod


@dataclass(frozen=True)
class TemplateCheck:
    """The workload's verdict: field errors at its paths, or a decoding error (the whole
    message, naming the object)."""

    errors: list[FieldError]
    decode_error: str | None = None


def check_workload(obj: dict[str, Any]) -> TemplateCheck:
    """Validate the fields kubedra reads (replica counts...) and the pod template as the
    apiserver validates ``spec.template.spec``."""
    path = template_path(obj)
    assert path is not None, "not a workload"
    fields = check_fields(obj)
    if fields.decode_error is not None:
        return fields
    prefix = ".".join(path)
    try:
        pod = decode(template_pod(obj))
    except DecodeError as error:
        detail = str(error).split(" cannot be decoded: ", 1)[-1]
        message = f"{object_name(obj)}: pod template ({prefix}) cannot be decoded: {detail}"
        return TemplateCheck([], message)
    errors = validate_object(apply_defaults(pod))
    moved = [
        FieldError(error.type, f"{prefix}.{error.field}", error.bad_value, error.detail)
        for error in errors
        if error.field == "spec" or error.field.startswith(("spec.", "spec["))
    ]
    return TemplateCheck(fields.errors + moved)


def check_fields(obj: dict[str, Any]) -> TemplateCheck:
    """Only the workload fields that expanding it into pods reads (not its template)."""
    problem = workload_fields.decode_error(obj)
    if problem is not None:
        return TemplateCheck([], problem)
    return TemplateCheck(workload_fields.validate_fields(obj))


# --- expanding workloads into pods ---------------------------------------------------------


def _fnv1a_32(data: bytes) -> int:
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


def safe_encode(text: str) -> str:
    """``rand.SafeEncodeString``: each character mapped onto the safe alphabet."""
    return "".join(SAFE_ALPHABET[ord(char) % len(SAFE_ALPHABET)] for char in text)


def template_hash(template: dict[str, Any], collision_count: int = 0) -> str:
    """The ``pod-template-hash`` label value of a template."""
    data = json.dumps(template, sort_keys=True, separators=(",", ":")).encode()
    if collision_count:
        data += collision_count.to_bytes(4, "little")
    return safe_encode(str(_fnv1a_32(data)))


def random_suffix(rng: random.Random, length: int = 5) -> str:
    """``utilrand.String(5)`` from a seeded RNG."""
    return "".join(rng.choice(SAFE_ALPHABET) for _ in range(length))


def _rng_for(obj: dict[str, Any]) -> random.Random:
    metadata = _metadata(obj)
    seed = f"{obj.get('kind')}/{metadata.get('namespace', '')}/{metadata.get('name', '')}"
    return random.Random(seed)


def _uid(obj: dict[str, Any], rng: random.Random) -> str:
    uid = _metadata(obj).get("uid")
    return uid if isinstance(uid, str) and uid else str(uuid.UUID(int=rng.getrandbits(128)))


def _owner_reference(api_version: str, kind: str, name: str, uid: str) -> dict[str, Any]:
    return {
        "apiVersion": api_version,
        "kind": kind,
        "name": name,
        "uid": uid,
        "controller": True,
        "blockOwnerDeletion": True,
    }


def _replicas(value: Any, default: int = 1) -> int:
    """A count as decoded (YAML's ``2.0`` is 2); anything else (absent, invalid) is the
    default, invalid values being refused by ``check_fields`` first."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return (
        value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default
    )


def _pod_from_template(
    template: dict[str, Any],
    name: str,
    namespace: str | None,
    owner: dict[str, Any],
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
) -> dict[str, Any]:
    template_meta = _child(template, "metadata")
    metadata: dict[str, Any] = {"name": name}
    if namespace:
        metadata["namespace"] = namespace
    all_labels = dict(template_meta.get("labels") or {}) | (labels or {})
    if all_labels:
        metadata["labels"] = all_labels
    all_annotations = dict(template_meta.get("annotations") or {}) | (annotations or {})
    if all_annotations:
        metadata["annotations"] = all_annotations
    metadata["ownerReferences"] = [owner]
    spec = copy.deepcopy(_child(template, "spec"))
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


GENERATE_NAME_ATTEMPTS = 8
"""How often a generated name is drawn before giving up on a collision: the apiserver draws
``generateName``'s suffix again up to 7 times when the name is taken (RetryGenerateName)."""

Taken = set[tuple[str | None, str]]
"""Pod names in use, by (namespace, name)."""

NameFn = Callable[[str], str]
"""``prefix -> prefix + 5 random characters``, a name not yet taken."""


def expand_pods(
    obj: dict[str, Any],
    *,
    nodes: Iterable[dict[str, Any]] = (),
    rng: random.Random | None = None,
    taken: Taken | None = None,
) -> list[dict[str, Any]]:
    """The pods the object's controller would create, as v1 wire dicts.

    A Pod is returned as itself. A DaemonSet gets one pod per node in ``nodes`` whose labels
    match its template's ``nodeSelector``. A CronJob makes no pods until its schedule fires, and
    a PodTemplate none at all, so both give ``[]``; kinds that are not workloads give ``[]``
    too. ``rng`` defaults to one seeded with the object's kind, namespace and name. Random
    name suffixes are drawn again while the name is in ``taken`` (names already in use, which
    the new pods' names join) or among the new pods, as the apiserver does for generateName.
    """
    if obj.get("apiVersion") == "v1" and obj.get("kind") == "Pod":
        return [obj]
    key = (obj.get("apiVersion"), obj.get("kind"))
    expander = _EXPANDERS.get(key)  # type: ignore[arg-type]
    if expander is None:
        return []
    rng = rng if rng is not None else _rng_for(obj)
    used: Taken = taken if taken is not None else set()
    namespace = _parts(obj)[1]

    def generate(prefix: str) -> str:
        for _ in range(GENERATE_NAME_ATTEMPTS):
            name = f"{prefix}{random_suffix(rng)}"
            if (namespace, name) not in used:
                break
        used.add((namespace, name))  # a last collision stays: the store refuses it
        return name

    pods = expander(obj, list(nodes), rng, generate)
    used.update((namespace, str(pod["metadata"]["name"])) for pod in pods)
    return pods


def pod_count(obj: dict[str, Any], nodes: Iterable[dict[str, Any]] = ()) -> int:
    """How many pods ``expand_pods`` makes of the object, without making them (for a bound
    checked first: a ReplicationController may ask for two billion)."""
    if obj.get("apiVersion") == "v1" and obj.get("kind") == "Pod":
        return 1
    kind = obj.get("kind")
    spec = _child(obj, "spec")
    if (obj.get("apiVersion"), kind) not in _EXPANDERS or kind in ("CronJob", "PodTemplate"):
        return 0
    if kind == "DaemonSet":
        selector = _child(_child(spec, "template"), "spec").get("nodeSelector")
        return sum(
            1
            for node in nodes
            if isinstance(_metadata(node).get("name"), str) and _node_matches(node, selector)
        )
    if kind == "Job":
        return _job_pod_count(spec)
    return _replicas(spec.get("replicas"))


def _job_pod_count(spec: dict[str, Any]) -> int:
    if spec.get("suspend") is True:
        return 0
    parallelism = _replicas(spec.get("parallelism"))
    completions = spec.get("completions")
    return min(parallelism, _replicas(completions)) if completions is not None else parallelism


def _parts(obj: dict[str, Any]) -> tuple[str, str | None, dict[str, Any], dict[str, Any]]:
    metadata = _metadata(obj)
    spec = _child(obj, "spec")
    namespace = metadata.get("namespace")
    namespace = namespace if isinstance(namespace, str) else None
    return str(metadata.get("name", "")), namespace, spec, _child(spec, "template")


def _expand_replica_set(
    obj: dict[str, Any], _nodes: list[dict[str, Any]], rng: random.Random, names: NameFn
) -> list[dict[str, Any]]:
    name, namespace, spec, template = _parts(obj)
    owner = _owner_reference(obj["apiVersion"], obj["kind"], name, _uid(obj, rng))
    return [
        _pod_from_template(template, names(f"{name}-"), namespace, owner)
        for _ in range(_replicas(spec.get("replicas")))
    ]


def _expand_deployment(
    obj: dict[str, Any], _nodes: list[dict[str, Any]], rng: random.Random, names: NameFn
) -> list[dict[str, Any]]:
    name, namespace, spec, template = _parts(obj)
    status = _child(obj, "status")
    pod_hash = template_hash(template, _replicas(status.get("collisionCount"), 0))
    replica_set = f"{name}-{pod_hash}"
    rs_uid = str(uuid.UUID(int=rng.getrandbits(128)))
    owner = _owner_reference("apps/v1", "ReplicaSet", replica_set, rs_uid)
    labels = {"pod-template-hash": pod_hash}
    return [
        _pod_from_template(template, names(f"{replica_set}-"), namespace, owner, labels)
        for _ in range(_replicas(spec.get("replicas")))
    ]


def _expand_stateful_set(
    obj: dict[str, Any], _nodes: list[dict[str, Any]], rng: random.Random, _names: NameFn
) -> list[dict[str, Any]]:
    name, namespace, spec, template = _parts(obj)
    owner = _owner_reference("apps/v1", "StatefulSet", name, _uid(obj, rng))
    revision = f"{name}-{template_hash(template)}"
    ordinals = _child(spec, "ordinals")
    start = _replicas(ordinals.get("start"), 0)
    pods = []
    for ordinal in range(start, start + _replicas(spec.get("replicas"))):
        pod_name = f"{name}-{ordinal}"
        labels = {
            "apps.kubernetes.io/pod-index": str(ordinal),
            "controller-revision-hash": revision,
            "statefulset.kubernetes.io/pod-name": pod_name,
        }
        pod = _pod_from_template(template, pod_name, namespace, owner, labels)
        pod["spec"]["hostname"] = pod_name
        if isinstance(spec.get("serviceName"), str) and spec["serviceName"]:
            pod["spec"]["subdomain"] = spec["serviceName"]
        pods.append(pod)
    return pods


def _expand_job(
    obj: dict[str, Any], _nodes: list[dict[str, Any]], rng: random.Random, names: NameFn
) -> list[dict[str, Any]]:
    name, namespace, spec, template = _parts(obj)
    count = _job_pod_count(spec)
    if count == 0 and spec.get("suspend") is True:
        return []
    uid = _uid(obj, rng)
    owner = _owner_reference("batch/v1", "Job", name, uid)
    labels = {
        "batch.kubernetes.io/controller-uid": uid,
        "batch.kubernetes.io/job-name": name,
        "controller-uid": uid,
        "job-name": name,
    }
    indexed = spec.get("completionMode") == "Indexed"
    pods = []
    for index in range(count):
        if indexed:
            pod_labels = labels | {"batch.kubernetes.io/job-completion-index": str(index)}
            annotations = {"batch.kubernetes.io/job-completion-index": str(index)}
            pod_name = names(f"{name}-{index}-")
            pod = _pod_from_template(template, pod_name, namespace, owner, pod_labels, annotations)
            pod["spec"]["hostname"] = f"{name}-{index}"
        else:
            pod = _pod_from_template(template, names(f"{name}-"), namespace, owner, labels)
        pods.append(pod)
    return pods


def _node_matches(node: dict[str, Any], selector: Any) -> bool:
    labels = _metadata(node).get("labels") or {}
    if not isinstance(selector, dict):
        return True
    return all(labels.get(key) == value for key, value in selector.items())


def _expand_daemon_set(
    obj: dict[str, Any], nodes: list[dict[str, Any]], rng: random.Random, names: NameFn
) -> list[dict[str, Any]]:
    name, namespace, _spec, template = _parts(obj)
    owner = _owner_reference("apps/v1", "DaemonSet", name, _uid(obj, rng))
    template_spec = _child(template, "spec")
    pods = []
    for node in nodes:
        node_name = _metadata(node).get("name")
        if not isinstance(node_name, str) or not _node_matches(
            node, template_spec.get("nodeSelector")
        ):
            continue
        pod = _pod_from_template(template, names(f"{name}-"), namespace, owner)
        _pin_to_node(pod["spec"], node_name)
        pods.append(pod)
    return pods


def _pin_to_node(spec: dict[str, Any], node_name: str) -> None:
    """As the DaemonSet controller does: a required ``metadata.name`` node affinity term
    (replacing any required node affinity) and the daemon tolerations."""
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}
    affinity = spec.setdefault("affinity", {})
    node_affinity = affinity.setdefault("nodeAffinity", {})
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [term]}
    tolerations = list(spec.get("tolerations") or [])
    present = {(t.get("key"), t.get("effect")) for t in tolerations if isinstance(t, dict)}
    for key, effect in DAEMONSET_TOLERATIONS:
        if (key, effect) not in present:
            tolerations.append({"key": key, "operator": "Exists", "effect": effect})
    spec["tolerations"] = tolerations


def _expand_nothing(
    _obj: dict[str, Any], _nodes: list[dict[str, Any]], _rng: random.Random, _names: NameFn
) -> list[dict[str, Any]]:
    return []


_EXPANDERS = {
    ("apps/v1", "Deployment"): _expand_deployment,
    ("apps/v1", "ReplicaSet"): _expand_replica_set,
    ("v1", "ReplicationController"): _expand_replica_set,
    ("apps/v1", "StatefulSet"): _expand_stateful_set,
    ("apps/v1", "DaemonSet"): _expand_daemon_set,
    ("batch/v1", "Job"): _expand_job,
    ("batch/v1", "CronJob"): _expand_nothing,
    ("v1", "PodTemplate"): _expand_nothing,
}
