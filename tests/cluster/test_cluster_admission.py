"""Priority admission on create, as kube-apiserver's Priority plugin
(kubernetes ``plugin/pkg/admission/priority/admission.go``: ``admitPod``,
``validatePriorityClass``, ``getDefaultPriority``), and DefaultPreemption reading what it wrote
(``pkg/scheduler/framework/plugins/defaultpreemption``: ``PodEligibleToPreemptOthers``)."""

from __future__ import annotations

from typing import Any

import pytest
from cluster_builders import node

from kubedra.cluster.admission import AdmissionConfig
from kubedra.cluster.simulation import Simulation
from kubedra.cluster.store import StoreError
from kubedra.scheduler import new_simulation


def priority_class(
    name: str, value: int, policy: str | None = None, default: bool = False
) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
    }
    if policy:
        obj["preemptionPolicy"] = policy
    if default:
        obj["globalDefault"] = True
    return obj


def pod(name: str, cpu: str = "1", **spec: Any) -> dict[str, Any]:
    container = {"name": "main", "image": "busybox", "resources": {"requests": {"cpu": cpu}}}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"containers": [container], **spec},
    }


def created(*objects: dict[str, Any], sim: Simulation | None = None) -> dict[str, Any]:
    """Load ``objects`` and return the stored last one (a pod)."""
    sim = sim or new_simulation()
    assert sim.load(list(objects)) == []
    last = objects[-1]
    got = sim.store.get(last["kind"], last["metadata"]["name"], "default")
    assert got is not None
    return got


def refused(*objects: dict[str, Any]) -> str:
    problems = new_simulation().load(list(objects))
    assert len(problems) == 1, problems
    return problems[0].message


def test_class_value_and_preemption_policy_are_copied_into_the_pod() -> None:
    got = created(priority_class("batch", 10, "Never"), pod("p", priorityClassName="batch"))
    assert (got["spec"]["priority"], got["spec"]["preemptionPolicy"]) == (10, "Never")


def test_a_never_preempting_class_keeps_its_pod_from_preempting() -> None:
    """The issue's case: the class says ``preemptionPolicy: Never``; upstream copies it into the
    pod, so DefaultPreemption finds the pod not eligible and evicts nobody."""
    sim = new_simulation()
    objects = [
        node("n1"),
        priority_class("low", 1),
        priority_class("urgent-but-polite", 1000, "Never"),
        pod("low", cpu="8", priorityClassName="low", nodeName="n1"),
        pod("high", cpu="8", priorityClassName="urgent-but-polite"),
    ]
    assert sim.load(objects) == []
    sim.run()
    assert sim.store.get("Pod", "low", "default") is not None
    high = sim.store.get("Pod", "high", "default")
    assert high is not None and not high["spec"].get("nodeName")
    [scheduled] = [c for c in high["status"]["conditions"] if c["type"] == "PodScheduled"]
    assert scheduled["message"].endswith("preemption: not eligible due to preemptionPolicy=Never.")


def test_a_missing_class_is_forbidden_with_upstreams_message() -> None:
    assert refused(pod("web", priorityClassName="gold")) == (
        'pods "web" is forbidden: no PriorityClass with name gold was found'
    )
    nameless = pod("x", priorityClassName="gold")
    nameless["metadata"] = {"generateName": "web-", "namespace": "default"}
    assert refused(nameless) == "pods is forbidden: no PriorityClass with name gold was found"


def test_without_a_class_the_global_default_applies_and_is_named() -> None:
    got = created(priority_class("a", 7, default=True), priority_class("b", 9), pod("p"))
    spec = got["spec"]
    assert (spec["priorityClassName"], spec["priority"], spec["preemptionPolicy"]) == (
        "a",
        7,
        "PreemptLowerPriority",
    )
    bare = created(pod("q"))["spec"]
    assert "priorityClassName" not in bare
    assert (bare["priority"], bare["preemptionPolicy"]) == (0, "PreemptLowerPriority")


def test_a_given_priority_or_policy_must_agree_with_the_class() -> None:
    cls = priority_class("batch", 10, "Never")
    assert created(cls, pod("ok", priorityClassName="batch", priority=10))["spec"]["priority"] == 10
    assert refused(cls, pod("p", priorityClassName="batch", priority=99)) == (
        'pods "p" is forbidden: the integer value of priority (99) must not be provided in pod '
        "spec; priority admission controller computed 10 from the given PriorityClass name"
    )
    assert refused(
        cls, pod("p", priorityClassName="batch", preemptionPolicy="PreemptLowerPriority")
    ) == (
        'pods "p" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must '
        "not be provided in pod spec; priority admission controller computed Never from the "
        "given PriorityClass name"
    )


def test_system_classes_resolve_without_being_stored() -> None:
    """The apiserver bootstraps system-node-critical (2000001000) and system-cluster-critical."""
    got = created(pod("kube-proxy", priorityClassName="system-node-critical"))
    assert got["spec"]["priority"] == 2_000_001_000


def test_only_one_global_default_class() -> None:
    assert refused(priority_class("a", 1, default=True), priority_class("b", 2, default=True)) == (
        'priorityclasses.scheduling.k8s.io "b" is forbidden: PriorityClass a is already marked '
        "as default. Only one default can exist"
    )


@pytest.mark.parametrize(("release", "resolved"), [("1.37", 50), ("1.36", None)])
def test_pod_group_priority_is_resolved_from_1_37(release: str, resolved: int | None) -> None:
    """kubernetes/kubernetes#139240 (1.37): PodGroups get ``spec.priority`` from their class."""
    version = "v1beta1" if release == "1.37" else "v1alpha2"
    group = {
        "apiVersion": f"scheduling.k8s.io/{version}",
        "kind": "PodGroup",
        "metadata": {"name": "g", "namespace": "default"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 1}}, "priorityClassName": "mid"},
    }
    sim = new_simulation(admission=AdmissionConfig(release=release))
    got = created(priority_class("mid", 50), group, sim=sim)
    assert got["spec"].get("priority") == resolved


def test_timeline_steps_are_admitted_too() -> None:
    sim = new_simulation()
    with pytest.raises(StoreError) as caught:
        sim.apply(lambda s: s.store.create(pod("late", priorityClassName="nope")), "late pod")
    assert (caught.value.code, caught.value.reason) == (403, "Forbidden")


def test_an_export_is_restored_without_admission() -> None:
    """An object with a ``metadata.uid`` exists in the cluster it was exported from and passed
    admission there: loading it restores it (its priority is kept even though its class is not
    in the input), as a snapshot of a live cluster needs."""
    exported = pod("old", priorityClassName="gone", priority=5)
    exported["metadata"]["uid"] = "0b5b7c1e-0000-4000-8000-000000000001"
    got = created(exported)
    assert (got["spec"]["priority"], got["spec"].get("preemptionPolicy")) == (5, None)
