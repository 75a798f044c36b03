"""The Workload API per release: scheduling.k8s.io/v1alpha2 (1.36), v1beta1 and v1alpha3 (1.37).

Sources: k8s.io/api ``scheduling/v1alpha2/types.go`` at v0.36.0, ``scheduling/v1beta1`` and
``scheduling/v1alpha3/types.go`` at commit 10b39a39b (after v0.37.0-beta.0, "Graduate WAS APIs
to beta"); v1alpha2 removed in 1.37 by kubernetes/kubernetes#138572; declarative validation
messages from apimachinery ``pkg/api/validate`` (union.go, limits.go, content/errors.go); 1.36's
hand-written rules from kubernetes ``pkg/apis/scheduling/validation/validation.go``.
"""

from __future__ import annotations

from typing import Any

import pytest

from kubedra.api.defaults import apply_defaults
from kubedra.api.io import LoadedObject, LoadError, load_text
from kubedra.api.validation import validate_object
from kubedra.cluster.clock import SimClock
from kubedra.cluster.store import Store

V1BETA1 = "scheduling.k8s.io/v1beta1"
V1ALPHA2 = "scheduling.k8s.io/v1alpha2"


def group(min_count: Any, version: str = V1BETA1, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": version,
        "kind": "PodGroup",
        "metadata": {"name": "g", "namespace": "default"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}, **spec},
    }


def workload(templates: list[dict[str, Any]], version: str = V1BETA1) -> dict[str, Any]:
    return {
        "apiVersion": version,
        "kind": "Workload",
        "metadata": {"name": "job", "namespace": "default"},
        "spec": {"podGroupTemplates": templates},
    }


def messages(obj: dict[str, Any]) -> list[str]:
    return [str(e) for e in validate_object(obj)]


def load_one(text: str, release: str) -> LoadedObject | LoadError:
    (entry,) = load_text(text, "test", kubernetes_version=release).entries
    assert isinstance(entry, LoadedObject | LoadError)
    return entry


POD_GROUP_YAML = """
apiVersion: scheduling.k8s.io/{version}
kind: PodGroup
metadata: {{name: g, namespace: default}}
spec:
  schedulingPolicy:
    gang: {{minCount: 4}}
"""


# --- which release serves which version ---------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "release", "served"),
    [
        ("v1alpha2", "1.36", True),
        ("v1alpha2", "1.37", False),
        ("v1alpha2", "1.35", False),
        ("v1beta1", "1.37", True),
        ("v1beta1", "1.36", False),
        ("v1alpha3", "1.37", True),
        ("v1alpha3", "1.36", False),
    ],
)
def test_each_release_serves_its_own_versions(version: str, release: str, served: bool) -> None:
    """1.36 serves v1alpha2 (k8s.io/api v0.36.0), 1.37 v1beta1 and v1alpha3 and no longer
    v1alpha2 (kubernetes/kubernetes#138572); 1.35's scheduling group has no PodGroup."""
    entry = load_one(POD_GROUP_YAML.format(version=version), release)
    if served:
        assert isinstance(entry, LoadedObject)
        assert entry.wire["spec"]["schedulingPolicy"]["gang"]["minCount"] == 4
    else:
        assert isinstance(entry, LoadError)
        assert entry.message.startswith(
            f'no matches for kind "PodGroup" in version "scheduling.k8s.io/{version}"'
        )
        assert f"selected release: {release}" in entry.message


def test_v1alpha3_workload_is_stored_as_v1beta1_and_composite_pod_group_as_v1alpha3() -> None:
    """v1alpha3 Workload and PodGroup have exactly v1beta1's fields (types.go at 10b39a39b);
    CompositePodGroup exists only in v1alpha3 (register.go)."""
    entry = load_one(POD_GROUP_YAML.format(version="v1alpha3"), "1.37")
    assert isinstance(entry, LoadedObject)
    assert (entry.api_version, entry.wire["apiVersion"]) == ("scheduling.k8s.io/v1alpha3", V1BETA1)
    composite = """
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata: {name: c, namespace: default}
spec:
  workloadRef: {workloadName: job, templateName: all}
  schedulingPolicy:
    gang: {minGroupCount: 2}
"""
    entry = load_one(composite, "1.37")
    assert isinstance(entry, LoadedObject)
    assert entry.wire["spec"]["schedulingPolicy"] == {"gang": {"minGroupCount": 2}}
    assert validate_object(entry.wire) == []
    assert isinstance(load_one(composite, "1.36"), LoadError)


def test_each_version_has_its_own_fields() -> None:
    """v1alpha2's ``podGroupTemplateRef`` became v1beta1's ``workloadRef`` and the string
    ``disruptionMode`` a single/all union: each is an unknown field or a type error in the
    other version, as strict decoding reports it."""
    old = POD_GROUP_YAML.format(version="v1alpha2") + (
        "  podGroupTemplateRef: {workload: {workloadName: job, podGroupTemplateName: t}}\n"
        "  disruptionMode: PodGroup\n"
    )
    entry = load_one(old, "1.36")
    assert isinstance(entry, LoadedObject) and not entry.strict_errors
    new = old.replace("v1alpha2", "v1beta1")
    entry = load_one(new, "1.37")
    assert isinstance(entry, LoadError)
    assert "spec.disruptionMode: expected object, got a string" in entry.message
    entry = load_one(new.replace("  disruptionMode: PodGroup\n", ""), "1.37")
    assert isinstance(entry, LoadedObject)
    assert entry.strict_errors == ('unknown field "spec.podGroupTemplateRef"',)
    ref = "  workloadRef: {workloadName: job, templateName: t}\n"
    entry = load_one(POD_GROUP_YAML.format(version="v1alpha2") + ref, "1.36")
    assert isinstance(entry, LoadedObject)
    assert entry.strict_errors == ('unknown field "spec.workloadRef"',)


def test_v1beta1_pod_group_disruption_mode_defaults_to_single() -> None:
    """``+default={"single": {}}`` on PodGroupSpec.disruptionMode (scheduling/v1beta1)."""
    defaulted = apply_defaults(group(2))
    assert defaulted["spec"]["disruptionMode"] == {"single": {}}
    kept = apply_defaults(group(2, disruptionMode={"all": {}}))
    assert kept["spec"]["disruptionMode"] == {"all": {}}
    assert "disruptionMode" not in apply_defaults(group(2, V1ALPHA2))["spec"]


def test_store_keeps_both_releases_versions() -> None:
    store = Store(SimClock())
    created = store.create(group(2, V1ALPHA2))
    assert created["apiVersion"] == V1ALPHA2
    store.create(group(2) | {"metadata": {"name": "h", "namespace": "default"}})
    assert [g["apiVersion"] for g in store.list("PodGroup")] == [V1ALPHA2, V1BETA1]


# --- v1beta1 validation (declarative) -----------------------------------------------------------


def test_gang_min_count_is_required_and_at_least_one() -> None:
    """``+k8s:required`` (0 reads as unset: Required) and ``+k8s:minimum=1``."""
    assert validate_object(group(2)) == []
    assert messages(group(0)) == ["spec.schedulingPolicy.gang.minCount: Required value"]
    assert messages(group(-1)) == [
        "spec.schedulingPolicy.gang.minCount: Invalid value: -1: must be greater than or equal to 1"
    ]


def test_unions_name_their_members() -> None:
    """validate.Union: ``must specify one of`` / ``must specify exactly one of``."""
    both = group(2, disruptionMode={"single": {}, "all": {}})
    both["spec"]["schedulingPolicy"]["basic"] = {}
    assert messages(both) == [
        'spec.schedulingPolicy: Invalid value: "{`basic`, `gang`}": must specify exactly one '
        "of: `basic`, `gang`",
        'spec.disruptionMode: Invalid value: "{`single`, `all`}": must specify exactly one '
        "of: `single`, `all`",
    ]
    empty = {**workload([]), "spec": {}}
    assert messages(empty) == [
        'spec: Invalid value: "": must specify one of: `podGroupTemplates`, '
        "`compositePodGroupTemplates`"
    ]


def test_workload_templates_are_unique_dns_labels_at_most_eight() -> None:
    policy = {"gang": {"minCount": 1}}
    templates = [{"name": "worker", "schedulingPolicy": policy}] * 2 + [
        {"name": "Bad_Name", "schedulingPolicy": {}}
    ]
    assert [e.field for e in validate_object(workload(templates))] == [
        "spec.podGroupTemplates[1]",
        "spec.podGroupTemplates[2].name",
        "spec.podGroupTemplates[2].schedulingPolicy",
    ]
    nine = [{"name": f"t{i}", "schedulingPolicy": policy} for i in range(9)]
    assert messages(workload(nine)) == [
        "spec.podGroupTemplates: Too many: 9: must have at most 8 items"
    ]


def test_pod_group_reference_priority_and_policy() -> None:
    bad = group(
        1,
        workloadRef={"workloadName": "job"},
        priority=1_000_000_001,
        priorityClassName="High",
        preemptionPolicy="Sometimes",
    )
    assert [e.field for e in validate_object(bad)] == [
        "spec.workloadRef.templateName",
        "spec.priorityClassName",
        "spec.priority",
        "spec.preemptionPolicy",
    ]
    assert messages(bad)[2].endswith("must be less than or equal to 1000000000")


# --- v1alpha2 validation (1.36, hand-written) ---------------------------------------------------


def test_v1alpha2_min_count_messages_are_the_hand_written_ones() -> None:
    assert messages(group(0, V1ALPHA2)) == ["spec.schedulingPolicy.gang.minCount: Required value"]
    assert messages(group(-2, V1ALPHA2)) == [
        "spec.schedulingPolicy.gang.minCount: Invalid value: -2: must be greater than zero"
    ]
    ref = {"workload": {"workloadName": "job", "podGroupTemplateName": "Bad"}}
    assert [e.field for e in validate_object(group(1, V1ALPHA2, podGroupTemplateRef=ref))] == [
        "spec.podGroupTemplateRef.workload.podGroupTemplateName"
    ]


def test_v1alpha2_workload_needs_a_template() -> None:
    assert messages(workload([], V1ALPHA2)) == [
        "spec.podGroupTemplates: Required value: must have at least one item"
    ]


# --- policy/v1 PodDisruptionBudget ----------------------------------------------------------------


def test_pod_disruption_budget_validation() -> None:
    pdb: dict[str, Any] = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "db", "namespace": "default"},
        "spec": {"minAvailable": "50%", "selector": {"matchLabels": {"app": "db"}}},
    }
    assert validate_object(pdb) == []
    pdb["spec"]["maxUnavailable"] = -1
    details = [(e.field, e.detail) for e in validate_object(pdb)]
    assert details == [
        ("spec.maxUnavailable", "must be greater than or equal to 0"),
        ("spec", "minAvailable and maxUnavailable cannot be both set"),
    ]
