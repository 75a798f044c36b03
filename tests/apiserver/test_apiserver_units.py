"""The pieces on their own: ages, claim states, selectors, the change feed, patches."""

from __future__ import annotations

from typing import Any

import pytest

from kubedra.apiserver.selectors import field_matcher, label_matcher
from kubedra.apiserver.status import ApiError
from kubedra.apiserver.strategic import strategic_merge_patch
from kubedra.apiserver.tables import claim_state, human_duration
from kubedra.apiserver.watch import ChangeFeed
from kubedra.cluster.events import Event


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (-5, "<invalid>"),
        (-0.5, "0s"),
        (0, "0s"),
        (119, "119s"),
        (121, "2m1s"),
        (300, "5m"),
        (601, "10m"),
        (3 * 3600 + 60, "3h1m"),
        (5 * 3600, "5h"),
        (9 * 3600, "9h"),
        (49 * 3600, "2d1h"),
        (72 * 3600, "3d"),
        (9 * 86400, "9d"),
        (3 * 365 * 86400, "3y"),
        (3 * 365 * 86400 + 5 * 86400, "3y5d"),
        (9 * 365 * 86400, "9y"),
    ],
)
def test_human_duration_matches_apimachinery(seconds: float, text: str) -> None:
    assert human_duration(seconds) == text


def claim(status: dict[str, Any], deleted: bool = False) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "c"}
    if deleted:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {"metadata": meta, "status": status}


def test_claim_state_as_upstream_prints_it() -> None:
    allocation = {"devices": {"results": []}}
    assert claim_state(claim({})) == "pending"
    assert claim_state(claim({"allocation": allocation})) == "allocated"
    reserved = {"allocation": allocation, "reservedFor": [{"name": "p"}]}
    assert claim_state(claim(reserved)) == "allocated,reserved"
    assert claim_state(claim({}, deleted=True)) == "deleted"
    assert claim_state(claim(reserved, deleted=True)) == "deleted,allocated,reserved"


def pod(name: str, labels: dict[str, str], node: str = "") -> dict[str, Any]:
    return {"metadata": {"name": name, "labels": labels}, "spec": {"nodeName": node}}


def test_label_selector_syntax() -> None:
    pods = [pod("a", {"app": "web", "tier": "1"}), pod("b", {"app": "db"}), pod("c", {})]

    def names(selector: str) -> list[str]:
        match = label_matcher(selector)
        return [p["metadata"]["name"] for p in pods if match(p)]

    assert names("") == ["a", "b", "c"]
    assert names("app==web") == ["a"]
    assert names("app!=web") == ["b", "c"]
    assert names("app notin (web),app") == ["b"]
    assert names("app in (web,db), tier") == ["a"]
    assert names("!tier") == ["b", "c"]
    with pytest.raises(ApiError) as raised:
        label_matcher("a b c")
    assert raised.value.code == 400


def test_field_selector_fields_per_kind() -> None:
    bound = pod("a", {}, node="n1")
    assert field_matcher("spec.nodeName=n1", "Pod")(bound)
    assert field_matcher("spec.nodeName!=n2,metadata.name==a", "Pod")(bound)
    assert not field_matcher("spec.nodeName=", "Pod")(bound)
    with pytest.raises(ApiError) as raised:
        field_matcher("spec.nodeName=n1", "DeviceClass")
    assert raised.value.message == "field label not supported: spec.nodeName"


def event(type_: str, name: str, version: int) -> Event:
    obj = {"metadata": {"name": name, "resourceVersion": str(version)}}
    return Event(type_, "Pod", obj, None)  # type: ignore[arg-type]


def test_change_feed_resumes_after_a_version_and_trims_old_history() -> None:
    feed = ChangeFeed(start=0, history=2)
    feed.record(event("ADDED", "a", 1), 1)
    feed.record(event("MODIFIED", "a", 2), 2)
    feed.record(event("DELETED", "a", 2), 2)
    events, end = feed.read(feed.position_after(1))
    assert [(e.type, e.seq) for e in events] == [("MODIFIED", 2), ("DELETED", 2)]
    assert events[1].obj["metadata"]["resourceVersion"] == "2"
    assert feed.read(end) == ([], end)
    assert not feed.expired(0)
    for version in range(3, 7):
        feed.record(event("ADDED", f"p{version}", version), version)
    assert feed.expired(1)
    events, _ = feed.read(feed.position_after(5))
    assert [e.seq for e in events] == [6]


def test_strategic_merge_patch_merges_maps_and_drops_nulls() -> None:
    patch = {
        "metadata": {"labels": {"a": "1", "b": None}},
        "spec": {"$setElementOrder/containers": [{"name": "main"}], "priority": 5},
    }
    target = {"metadata": {"labels": {"b": "2", "c": "3"}}, "spec": {"priority": 1}}
    merged = strategic_merge_patch(target, patch, "Pod")
    assert merged == {"metadata": {"labels": {"a": "1", "c": "3"}}, "spec": {"priority": 5}}
    assert target == {"metadata": {"labels": {"b": "2", "c": "3"}}, "spec": {"priority": 1}}


POD = {
    "metadata": {"finalizers": ["a"], "ownerReferences": [{"uid": "u1", "name": "x"}]},
    "spec": {
        "containers": [
            {"name": "main", "image": "v1", "resources": {"claims": [{"name": "gpu"}]}},
            {"name": "side", "image": "s1", "env": [{"name": "A", "value": "1"}]},
        ],
        "tolerations": [{"key": "t1"}],
    },
}


def test_strategic_merge_patch_merges_lists_by_their_upstream_keys() -> None:
    """kubectl apply's patch for a changed image names only that container and its image."""
    patch = {
        "spec": {
            "$setElementOrder/containers": [{"name": "side"}, {"name": "main"}],
            "containers": [
                {"name": "main", "image": "v2"},
                {"name": "side", "env": [{"name": "B", "value": "2"}]},
            ],
            "tolerations": [{"key": "t2"}],  # no merge key upstream: replaced whole
        }
    }
    spec = strategic_merge_patch(POD, patch, "Pod")["spec"]
    assert spec["containers"] == [
        {
            "name": "side",
            "image": "s1",
            "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
        },
        {"name": "main", "image": "v2", "resources": {"claims": [{"name": "gpu"}]}},
    ]
    assert spec["tolerations"] == [{"key": "t2"}]


def test_strategic_merge_patch_directives() -> None:
    deleted = strategic_merge_patch(
        POD, {"spec": {"containers": [{"name": "side", "$patch": "delete"}]}}, "Pod"
    )
    assert [c["name"] for c in deleted["spec"]["containers"]] == ["main"]
    replaced = strategic_merge_patch(
        POD, {"spec": {"containers": [{"name": "new"}, {"$patch": "replace"}]}}, "Pod"
    )
    assert replaced["spec"]["containers"] == [{"name": "new"}]
    meta = strategic_merge_patch(
        POD,
        {
            "metadata": {
                "finalizers": ["b"],
                "$deleteFromPrimitiveList/finalizers": ["a"],
                "ownerReferences": [{"uid": "u2", "name": "y"}],
            }
        },
        "Pod",
    )["metadata"]
    assert meta["finalizers"] == ["b"]
    assert [r["uid"] for r in meta["ownerReferences"]] == ["u1", "u2"]
    whole = strategic_merge_patch(POD, {"spec": {"$patch": "replace", "containers": []}}, "Pod")
    assert whole["spec"] == {"containers": []}
    kept = strategic_merge_patch(
        {"spec": {"a": 1, "b": 2}}, {"spec": {"$retainKeys": ["b"], "b": 3}}, "Pod"
    )
    assert kept == {"spec": {"b": 3}}
    # resource.k8s.io types declare no merge keys: their lists are replaced
    claim = {"spec": {"devices": {"requests": [{"name": "a"}, {"name": "b"}]}}}
    patched = strategic_merge_patch(
        claim, {"spec": {"devices": {"requests": [{"name": "b"}]}}}, "ResourceClaim"
    )
    assert patched["spec"]["devices"]["requests"] == [{"name": "b"}]
    with pytest.raises(ApiError, match="Unknown patch type: merge-ish"):
        strategic_merge_patch(POD, {"spec": {"$patch": "merge-ish"}}, "Pod")


def test_version_follows_the_chosen_release() -> None:
    from kubedra.apiserver import discovery as discovery_module

    # none chosen: the default release, whose kinds and fields are the ones served
    assert discovery_module.version_info()["gitVersion"] == "v1.37.0+kubedra"
    chosen = discovery_module.version_info("1.37")
    assert (chosen["major"], chosen["minor"], chosen["gitVersion"]) == (
        "1",
        "37",
        "v1.37.0+kubedra",
    )


def test_failed_claim_creation_is_an_event_as_upstream_records_it() -> None:
    """A pod whose claim template is missing gets the ResourceClaim controller's
    FailedResourceClaimCreation warning; a pod naming a missing claim gets none (upstream's
    controller leaves that claim to the user, and PreEnqueue records no event)."""
    from kubedra.apiserver.backend import LiveCluster
    from kubedra.apiserver.discovery import EVENT
    from kubedra.scheduler import new_simulation

    def pod(name: str, entry: dict[str, str]) -> dict[str, Any]:
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {
                "resourceClaims": [{"name": "gpu", **entry}],
                "containers": [{"name": "main", "image": "busybox"}],
            },
        }

    simulation = new_simulation()
    assert not simulation.load(
        [
            pod("from-template", {"resourceClaimTemplateName": "nope"}),
            pod("named", {"resourceClaimName": "missing"}),
        ]
    )
    events, _ = LiveCluster(simulation).list(EVENT, "default")
    assert [(e["involvedObject"]["name"], e["type"], e["reason"]) for e in events] == [
        ("from-template", "Warning", "FailedResourceClaimCreation")
    ]
    (event,) = events
    assert event["message"].startswith('PodResourceClaim gpu: resource claim template "nope"')
    assert event["source"] == {"component": "resource_claim"}
