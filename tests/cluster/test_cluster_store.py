"""The store behaves like the apiserver: filled-in fields, errors, finalizers, GC, events."""

from __future__ import annotations

from typing import Any

import pytest

from kubedra.cluster import DELETE_PROTECTION_FINALIZER, Event, SimClock, Store, StoreError


def claim(name: str = "c", **meta: Any) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, **meta},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "g"}}]}},
    }


def pod(name: str = "p", **meta: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, **meta},
        "spec": {"containers": [{"name": "c", "image": "i"}]},
    }


def test_create_fills_server_fields_and_defaults() -> None:
    store = Store(SimClock(), namespace="team")
    created = store.create(claim())
    meta = created["metadata"]
    assert meta["namespace"] == "team"
    assert meta["resourceVersion"] == "1"
    assert meta["creationTimestamp"] == "2026-01-01T00:00:00Z"
    assert len(meta["uid"]) == 36
    exactly = created["spec"]["devices"]["requests"][0]["exactly"]
    assert exactly == {"deviceClassName": "g", "allocationMode": "ExactCount", "count": 1}
    assert store.get("ResourceClaim", "c", "team") is created
    second = store.create(pod())
    assert second["metadata"]["resourceVersion"] == "2"
    assert second["status"] == {"phase": "Pending", "qosClass": "BestEffort"}


def test_uids_and_generated_names_are_seeded() -> None:
    def names(seed: int) -> list[str]:
        store = Store(SimClock(), seed=seed)
        objs = [store.create(pod("", generateName="web-")) for _ in range(3)]
        return [o["metadata"]["name"] + o["metadata"]["uid"] for o in objs]

    assert names(1) == names(1)
    assert names(1) != names(2)
    name = names(1)[0][:9]
    assert name.startswith("web-") and len(name) == 9


def test_already_exists_and_not_found_messages() -> None:
    store = Store(SimClock())
    store.create(claim("x"))
    with pytest.raises(StoreError) as error:
        store.create(claim("x"))
    assert (error.value.code, error.value.reason) == (409, "AlreadyExists")
    assert error.value.message == 'resourceclaims.resource.k8s.io "x" already exists'
    with pytest.raises(StoreError) as error:
        store.update(pod("nope"))
    assert (error.value.code, error.value.message) == (404, 'pods "nope" not found')


def test_invalid_has_field_causes() -> None:
    store = Store(SimClock())
    bad = claim("Bad_Name")
    with pytest.raises(StoreError) as error:
        store.create(bad)
    assert error.value.code == 422
    assert error.value.message.startswith('ResourceClaim.resource.k8s.io "Bad_Name" is invalid: ')
    assert error.value.causes[0]["field"] == "metadata.name"
    assert error.value.causes[0]["reason"] == "FieldValueInvalid"


def test_update_conflict_and_modified_event() -> None:
    store = Store(SimClock())
    events: list[Event] = []
    store.subscribe(events.append)
    created = store.create(claim())
    updated = store.update(created | {"status": {"reservedFor": []}})
    assert updated["metadata"]["resourceVersion"] == "2"
    with pytest.raises(StoreError) as error:
        store.update(created)
    assert error.value.reason == "Conflict"
    assert [e.type for e in events] == ["ADDED", "MODIFIED"]
    assert events[1].old is created and events[1].obj is updated


def test_finalizers_delay_deletion_until_removed() -> None:
    store = Store(SimClock())
    created = store.create(claim(finalizers=[DELETE_PROTECTION_FINALIZER]))
    marked = store.delete("ResourceClaim", "c")
    assert marked is not None and marked["metadata"]["deletionTimestamp"]
    assert store.get("ResourceClaim", "c") is marked
    store.update(marked | {"metadata": marked["metadata"] | {"finalizers": []}})
    assert store.get("ResourceClaim", "c") is None
    assert created["metadata"]["uid"] not in {o["metadata"]["uid"] for o in store.list("Pod")}


def test_garbage_collection_of_dependents() -> None:
    store = Store(SimClock())
    owner = store.create(pod("owner"))
    other = store.create(pod("other"))

    def ref(obj: dict[str, Any]) -> dict[str, Any]:
        meta = obj["metadata"]
        return {"apiVersion": "v1", "kind": "Pod", "name": meta["name"], "uid": meta["uid"]}

    store.create(claim("only", ownerReferences=[ref(owner)]))
    store.create(claim("both", ownerReferences=[ref(owner), ref(other)]))
    events: list[Event] = []
    store.subscribe(events.append)
    store.delete("Pod", "owner")
    assert store.get("ResourceClaim", "only") is None
    both = store.get("ResourceClaim", "both")
    assert both is not None
    assert [r["name"] for r in both["metadata"]["ownerReferences"]] == ["other"]
    assert [(e.type, e.kind) for e in events] == [
        ("DELETED", "Pod"),
        ("MODIFIED", "ResourceClaim"),
        ("DELETED", "ResourceClaim"),
    ]


def test_list_is_in_creation_order_and_filters_namespace() -> None:
    store = Store(SimClock())
    for name in ("b", "a", "c"):
        store.create(pod(name, namespace="x" if name == "a" else "default"))
    assert [p["metadata"]["name"] for p in store.list("Pod")] == ["b", "a", "c"]
    assert [p["metadata"]["name"] for p in store.list("Pod", "default")] == ["b", "c"]
