"""scheduling.k8s.io/v1alpha2 Workload and PodGroup: loaded and validated (KEP-4671)."""

from __future__ import annotations

from typing import Any

from kubedra.api.io import load_text
from kubedra.api.validation import validate_object


def group(min_count: Any) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": "g", "namespace": "default"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}},
    }


def test_pod_group_min_count_must_be_positive() -> None:
    assert validate_object(group(2)) == []
    (error,) = validate_object(group(0))
    assert error.field == "spec.schedulingPolicy.gang.minCount"
    assert error.detail == "must be greater than or equal to 1"


def test_workload_template_names_are_unique_dns_labels() -> None:
    policy = {"gang": {"minCount": 1}}
    workload = {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "Workload",
        "metadata": {"name": "job", "namespace": "default"},
        "spec": {
            "podGroupTemplates": [
                {"name": "worker", "schedulingPolicy": policy},
                {"name": "worker", "schedulingPolicy": policy},
                {"name": "Bad_Name", "schedulingPolicy": {}},
            ]
        },
    }
    fields = [e.field for e in validate_object(workload)]
    assert fields == [
        "spec.podGroupTemplates[1].name",
        "spec.podGroupTemplates[2].name",
        "spec.podGroupTemplates[2].schedulingPolicy",
    ]


def test_loaded_from_yaml() -> None:
    text = """
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {name: g, namespace: default}
spec:
  schedulingPolicy:
    gang: {minCount: 4}
"""
    (entry,) = load_text(text, "test").entries
    assert entry.wire["spec"]["schedulingPolicy"]["gang"]["minCount"] == 4  # type: ignore[union-attr]


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
