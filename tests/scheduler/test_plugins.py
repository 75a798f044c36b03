"""Plugin functions on their own: tolerations, NodeName, requests, normalization."""

from __future__ import annotations

from sched_builders import claim, cluster, node, pod

from kubedra.scheduler import plugins as P
from kubedra.scheduler.nodeinfo import NodeState
from kubedra.scheduler.resources import QuantityCache, is_extended_resource, pod_requests


def _state(**kwargs: object) -> NodeState:
    return NodeState(node("n1", **kwargs), QuantityCache())  # type: ignore[arg-type]


def test_toleration_matching() -> None:
    taint = {"key": "gpu", "value": "a100", "effect": "NoSchedule"}
    assert P.tolerates({"key": "gpu", "operator": "Exists"}, taint)
    assert P.tolerates({"operator": "Exists"}, taint)
    assert P.tolerates({"key": "gpu", "value": "a100", "effect": "NoSchedule"}, taint)
    assert not P.tolerates({"key": "gpu", "value": "h100"}, taint)
    assert not P.tolerates({"key": "gpu", "operator": "Exists", "effect": "NoExecute"}, taint)
    tainted = _state(taints=[taint, {"key": "soft", "effect": "PreferNoSchedule"}])
    assert P.taint_toleration([], tainted) is not None
    assert P.taint_toleration([{"key": "gpu", "operator": "Exists"}], tainted) is None
    assert P.taint_toleration_score([], tainted) == 1


def test_node_name_and_unschedulable() -> None:
    state = _state(unschedulable=True)
    status = P.node_name("n2", state)
    assert status is not None and status.reasons == (
        "node(s) didn't match the requested node name",
    )
    assert P.node_name("n1", state) is None
    assert P.node_unschedulable([], state) is not None
    cordon = [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists"}]
    assert P.node_unschedulable(cordon, state) is None


def test_pod_requests_with_init_containers_sidecars_and_overhead() -> None:
    q = QuantityCache()
    p = pod("p", cpu="500m", memory="1Gi")
    p["spec"]["initContainers"] = [
        {"name": "init", "image": "x", "resources": {"requests": {"cpu": "2"}}},
        {
            "name": "side",
            "image": "x",
            "restartPolicy": "Always",
            "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}},
        },
    ]
    p["spec"]["overhead"] = {"cpu": "10m"}
    req = pod_requests(p, q)
    # containers 500m + sidecar 100m = 600m; init max(2000m) wins; plus 10m overhead.
    assert req["cpu"] == 2010
    assert req["memory"] == 1024**3 + 64 * 1024**2
    assert pod_requests(pod("empty"), q, non_zero=True) == {"cpu": 100, "memory": 200 * 1024**2}


def test_fit_reasons_and_resolvability() -> None:
    state = _state(cpu="2", extra={"example.com/foo": "1"})
    status = P.node_resources_fit({"cpu": 3000, "example.com/foo": 1}, state)
    assert status is not None
    assert status.reasons == ("Insufficient cpu",)
    assert status.code == 3  # more than the node has: preemption cannot help
    assert (
        P.node_resources_fit({"example.com/bar": 1}, state, frozenset({"example.com/bar"})) is None
    )
    assert is_extended_resource("example.com/foo")
    assert is_extended_resource("deviceclass.resource.kubernetes.io/gpu")
    assert not is_extended_resource("kubernetes.io/foo") and not is_extended_resource("cpu")


def test_normalize() -> None:
    assert P.default_normalize([0, 2, 4], reverse=False) == [0, 50, 100]
    assert P.default_normalize([0, 2, 4], reverse=True) == [100, 50, 0]
    assert P.default_normalize([0, 0], reverse=True) == [100, 100]


def test_pre_enqueue_messages() -> None:
    _, scheduler = cluster(node("n1"), pod("p", claims=["missing"]))
    assert scheduler.queue.pods["default/p"].gate == (
        'resourceclaim.resource.k8s.io "missing" not found'
    )
    other = claim("stolen")
    store, scheduler = cluster(node("n1"), other, pod("q", templates={"gpu": "t"}))
    q = store.get("Pod", "q", "default")
    assert q is not None
    status = {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "stolen"}]}
    store.update({**q, "status": {**q["status"], **status}})
    assert scheduler.queue.pods["default/q"].gate == (
        "ResourceClaim default/stolen was not created for pod default/q (pod is not owner)"
    )
