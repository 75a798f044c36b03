"""The official Python client through the kubeconfig; Status errors; pages; watches."""

from __future__ import annotations

import http.client
import json
import time
import urllib.request
from typing import Any

import pytest
from kubernetes import client, config, watch

from conftest import Served

POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web", "labels": {"app": "web"}},
    "spec": {"containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10"}]},
}


def api_client(served: Served) -> client.ApiClient:
    return config.new_client_from_config(config_file=str(served.kubeconfig))


def test_python_client_lists_and_watches_a_pod_until_running(served: Served) -> None:
    with api_client(served) as api:
        core = client.CoreV1Api(api)
        nodes = core.list_node()
        assert [node.metadata.name for node in nodes.items] == ["node-1"]
        slices = client.ResourceV1Api(api).list_resource_slice()
        assert [s.spec.driver for s in slices.items] == ["gpu.example.com"]
        listed = core.list_namespaced_pod("default")
        assert listed.items == []
        core.create_namespaced_pod("default", POD)
        seen: list[tuple[str, str | None, str | None]] = []
        stream = watch.Watch()
        for event in stream.stream(
            core.list_namespaced_pod,
            "default",
            resource_version=listed.metadata.resource_version,
            timeout_seconds=5,
        ):
            pod = event["object"]
            seen.append((event["type"], pod.spec.node_name, pod.status.phase))
            if pod.status.phase == "Running":
                stream.stop()
        assert seen[0] == ("ADDED", None, "Pending")
        assert seen[-1] == ("MODIFIED", "node-1", "Running")
        assert all(kind == "MODIFIED" for kind, _, _ in seen[1:])


def test_python_client_pages_with_limit_and_continue(served: Served) -> None:
    with api_client(served) as api:
        core = client.CoreV1Api(api)
        for name in ("a", "b", "c"):
            core.create_namespaced_pod("default", {**POD, "metadata": {"name": name}})
        first = core.list_namespaced_pod("default", limit=2)
        assert [pod.metadata.name for pod in first.items] == ["a", "b"]
        assert first.metadata.remaining_item_count == 1
        rest = core.list_namespaced_pod("default", limit=2, _continue=first.metadata._continue)
        assert [pod.metadata.name for pod in rest.items] == ["c"]
        assert rest.metadata._continue is None


def test_label_and_field_selectors(served: Served) -> None:
    with api_client(served) as api:
        core = client.CoreV1Api(api)
        core.create_namespaced_pod("default", POD)
        core.create_namespaced_pod(
            "default", {**POD, "metadata": {"name": "db", "labels": {"app": "db"}}}
        )

        def names(**kwargs: Any) -> list[str]:
            return [pod.metadata.name for pod in core.list_pod_for_all_namespaces(**kwargs).items]

        assert names(label_selector="app=web") == ["web"]
        assert names(label_selector="app in (db, cache)") == ["db"]
        assert names(label_selector="app,app!=web") == ["db"]
        assert names(label_selector="!app") == []
        assert names(field_selector="metadata.name=db") == ["db"]
        assert names(field_selector="spec.nodeName=node-1,status.phase=Running") == ["web", "db"]
        with pytest.raises(client.ApiException) as raised:
            names(field_selector="spec.image=x")
        assert raised.value.status == 400
        assert json.loads(raised.value.body)["message"] == "field label not supported: spec.image"


def test_not_found_status(served: Served) -> None:
    code, body = served.request(
        "GET", "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/x"
    )
    assert code == 404
    assert body == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'resourceclaims.resource.k8s.io "x" not found',
        "reason": "NotFound",
        "details": {"name": "x", "group": "resource.k8s.io", "kind": "resourceclaims"},
        "code": 404,
    }
    code, body = served.request("GET", "/api/v1/namespaces/default/configmaps")
    assert (code, body["reason"], body["message"]) == (
        404,
        "NotFound",
        "the server could not find the requested resource",
    )


def test_already_exists_status(served: Served) -> None:
    assert served.request("POST", "/api/v1/namespaces/default/pods", POD)[0] == 201
    code, body = served.request("POST", "/api/v1/namespaces/default/pods", POD)
    assert code == 409
    assert body == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'pods "web" already exists',
        "reason": "AlreadyExists",
        "details": {"name": "web", "kind": "pods"},
        "code": 409,
    }


def test_invalid_status_carries_field_causes(served: Served) -> None:
    claim = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "bad"},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {}}]}},
    }
    code, body = served.request(
        "POST", "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims", claim
    )
    assert code == 422
    assert body["reason"] == "Invalid"
    assert body["message"] == (
        'ResourceClaim.resource.k8s.io "bad" is invalid: '
        "spec.devices.requests[0].exactly.deviceClassName: Required value"
    )
    assert body["details"] == {
        "name": "bad",
        "group": "resource.k8s.io",
        "kind": "ResourceClaim",
        "causes": [
            {
                "reason": "FieldValueRequired",
                "message": "Required value",
                "field": "spec.devices.requests[0].exactly.deviceClassName",
            }
        ],
    }


def test_conflict_on_stale_resource_version(served: Served) -> None:
    _, pod = served.request("POST", "/api/v1/namespaces/default/pods", POD)
    stale = {**pod, "metadata": {**pod["metadata"], "resourceVersion": "1"}}
    stale["metadata"]["labels"] = {"app": "changed"}
    code, body = served.request("PUT", "/api/v1/namespaces/default/pods/web", stale)
    assert (code, body["reason"]) == (409, "Conflict")
    assert body["message"].startswith('Operation cannot be fulfilled on pods "web"')


def test_merge_patch_changes_labels(served: Served) -> None:
    served.request("POST", "/api/v1/namespaces/default/pods", POD)
    code, body = served.request(
        "PATCH",
        "/api/v1/namespaces/default/pods/web",
        {"metadata": {"labels": {"tier": "front"}}},
        {"Content-Type": "application/merge-patch+json"},
    )
    assert code == 200
    assert body["metadata"]["labels"] == {"app": "web", "tier": "front"}
    assert body["spec"]["nodeName"] == "node-1"


def watch_lines(served: Served, path: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(served.url + path, timeout=10) as response:
        return [json.loads(line) for line in response.read().splitlines() if line.strip()]


def test_watch_with_initial_events_ends_them_with_a_bookmark(served: Served) -> None:
    served.request("POST", "/api/v1/namespaces/default/pods", POD)
    events = watch_lines(
        served,
        "/api/v1/pods?watch=true&sendInitialEvents=true&allowWatchBookmarks=true"
        "&resourceVersionMatch=NotOlderThan&timeoutSeconds=1",
    )
    assert [(e["type"], e["object"]["metadata"].get("name")) for e in events] == [
        ("ADDED", "web"),
        ("BOOKMARK", None),
    ]
    marker = events[1]["object"]["metadata"]
    assert marker["annotations"] == {"k8s.io/initial-events-end": "true"}


def test_watch_resumes_after_a_resource_version_and_reports_deletion(served: Served) -> None:
    _, created = served.request("POST", "/api/v1/namespaces/default/pods", POD)
    version = created["metadata"]["resourceVersion"]
    served.request("DELETE", "/api/v1/namespaces/default/pods/web")
    events = watch_lines(
        served,
        f"/api/v1/namespaces/default/pods?watch=1&resourceVersion={version}&timeoutSeconds=1",
    )
    types = [event["type"] for event in events]
    assert types[-1] == "DELETED"
    assert set(types[:-1]) == {"MODIFIED"}
    versions = [int(event["object"]["metadata"]["resourceVersion"]) for event in events]
    assert versions == sorted(versions)
    assert versions[0] > int(version)


def test_table_output_for_a_single_object(served: Served) -> None:
    served.request("POST", "/api/v1/namespaces/default/pods", POD)
    code, table = served.request(
        "GET",
        "/api/v1/namespaces/default/pods/web",
        headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"},
    )
    assert code == 200
    assert table["kind"] == "Table"
    assert [c["name"] for c in table["columnDefinitions"] if c["priority"] == 0] == [
        "Name",
        "Ready",
        "Status",
        "Restarts",
        "Age",
    ]
    assert table["rows"][0]["cells"][:5] == ["web", "1/1", "Running", "0", "0s"]
    assert table["rows"][0]["object"]["kind"] == "PartialObjectMetadata"


def test_bad_requests_are_status_objects(served: Served) -> None:
    pods = "/api/v1/namespaces/default/pods"
    unknown = {**POD, "spec": {**POD["spec"], "bogus": 1}}
    claim = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "c"},
        "spec": {"devices": {}, "bogus": 1},
    }
    code, body = served.request(
        "POST", "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims", claim
    )
    assert (code, body["reason"]) == (400, "BadRequest")
    assert "bogus" in body["message"]
    assert served.request("POST", pods, unknown)[0] == 201  # Pod is partially modeled
    code, body = served.request("POST", pods, {**POD, "kind": "Node"})
    assert (code, body["message"]) == (
        400,
        "the kind in the data (Node) does not match the expected kind (Pod)",
    )
    code, body = served.request("POST", pods + "?dryRun=Everything", POD)
    assert (code, body["reason"]) == (422, "Invalid")
    assert body["message"] == (
        'CreateOptions.meta.k8s.io "" is invalid: dryRun[0]: Unsupported value: "Everything": '
        'supported values: "All"'
    )
    code, body = served.request(
        "PATCH", pods + "/web", [{"op": "add"}], {"Content-Type": "application/json-patch+json"}
    )
    assert (code, body["reason"]) == (415, "UnsupportedMediaType")


def test_status_subresource_changes_only_status(served: Served) -> None:
    _, pod = served.request("POST", "/api/v1/namespaces/default/pods", POD)
    _, pod = served.request("GET", "/api/v1/namespaces/default/pods/web")
    changed = {
        **pod,
        "metadata": {**pod["metadata"], "labels": {"ignored": "yes"}},
        "status": {**pod["status"], "nominatedNodeName": "node-1"},
    }
    code, body = served.request("PUT", "/api/v1/namespaces/default/pods/web/status", changed)
    assert code == 200
    assert body["status"]["nominatedNodeName"] == "node-1"
    assert body["metadata"]["labels"] == {"app": "web"}
    changed = {**body, "status": {"phase": "Failed"}, "metadata": dict(body["metadata"])}
    changed["metadata"]["labels"] = {"app": "web", "new": "label"}
    code, body = served.request("PUT", "/api/v1/namespaces/default/pods/web", changed)
    assert code == 200
    assert body["metadata"]["labels"] == {"app": "web", "new": "label"}
    assert body["status"]["phase"] == "Running"


def test_keep_alive_answers_do_not_wait_for_delayed_acks(served: Served) -> None:
    """Without TCP_NODELAY each answer on a kept-alive connection took ~40 ms."""
    host, port = served.url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port))
    try:
        start = time.perf_counter()
        for _ in range(30):
            conn.request("GET", "/version")
            conn.getresponse().read()
        assert time.perf_counter() - start < 0.6
    finally:
        conn.close()


def test_watch_as_table_sends_one_row_tables(served: Served) -> None:
    """What `kubectl get pods -w` reads: each event's object is a Table with one row."""
    served.request("POST", "/api/v1/namespaces/default/pods", POD)
    request = urllib.request.Request(
        served.url + "/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=1",
        headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        events = [json.loads(line) for line in response.read().splitlines()]
    assert [event["type"] for event in events] == ["ADDED"]
    table = events[0]["object"]
    assert table["kind"] == "Table"
    assert [row["cells"][:3] for row in table["rows"]] == [["web", "1/1", "Running"]]


def test_updates_are_validated_like_creates(served: Served) -> None:
    served.request("POST", "/api/v1/namespaces/default/pods", POD)
    code, body = served.request(
        "PATCH",
        "/api/v1/namespaces/default/pods/web",
        {"metadata": {"labels": {"bad key": "x"}}},
        {"Content-Type": "application/merge-patch+json"},
    )
    assert (code, body["reason"]) == (422, "Invalid")
    assert body["details"]["causes"][0]["field"] == "metadata.labels"
    assert body["message"].startswith('Pod "web" is invalid: metadata.labels: Invalid value:')


def test_discovery_aggregated_when_asked_legacy_otherwise(served: Served) -> None:
    accept = (
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
        "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
        "application/json"
    )
    request = urllib.request.Request(served.url + "/apis", headers={"Accept": accept})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.headers["Content-Type"] == (
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
        )
        groups = json.loads(response.read())
    assert [item["metadata"]["name"] for item in groups["items"]] == [
        "scheduling.k8s.io",
        "resource.k8s.io",
        "policy",
        "coordination.k8s.io",
    ]
    resource = next(
        item for item in groups["items"] if item["metadata"]["name"] == "resource.k8s.io"
    )
    claims = next(
        r for r in resource["versions"][0]["resources"] if r["resource"] == "resourceclaims"
    )
    assert claims["scope"] == "Namespaced"
    assert claims["responseKind"] == {
        "group": "resource.k8s.io",
        "version": "v1",
        "kind": "ResourceClaim",
    }
    assert claims["subresources"][0]["subresource"] == "status"
    code, legacy = served.request("GET", "/api")
    assert (code, legacy["kind"], legacy["versions"]) == (200, "APIVersions", ["v1"])
    code, core = served.request("GET", "/api/v1")
    pods = next(r for r in core["resources"] if r["name"] == "pods")
    assert (pods["shortNames"], pods["namespaced"], pods["categories"]) == (["po"], True, ["all"])


def test_scheduling_events_are_listed_and_watched(served: Served) -> None:
    _, events = served.request("GET", "/api/v1/namespaces/default/events")
    version = events["metadata"]["resourceVersion"]
    assert events["items"] == []
    served.request("POST", "/api/v1/namespaces/default/pods", POD)
    query = f"watch=true&resourceVersion={version}&timeoutSeconds=1"
    watched = watch_lines(served, f"/api/v1/namespaces/default/events?{query}")
    assert [(e["type"], e["object"]["reason"]) for e in watched] == [("ADDED", "Scheduled")]
    event = watched[0]["object"]
    assert event["message"] == "Successfully assigned default/web to node-1"
    assert event["involvedObject"]["name"] == "web"
    selector = "involvedObject.name=web,involvedObject.kind=Pod"
    _, listed = served.request("GET", f"/api/v1/events?fieldSelector={selector}")
    assert [e["reason"] for e in listed["items"]] == ["Scheduled"]


def test_delete_collection_by_label(served: Served) -> None:
    with api_client(served) as api:
        core = client.CoreV1Api(api)
        core.create_namespaced_pod("default", POD)
        core.create_namespaced_pod(
            "default", {**POD, "metadata": {"name": "db", "labels": {"app": "db"}}}
        )
        core.delete_collection_namespaced_pod("default", label_selector="app=web")
        assert [pod.metadata.name for pod in core.list_namespaced_pod("default").items] == ["db"]


TEMPLATES = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaimtemplates"
DONE_TEMPLATE = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceClaimTemplate",
    "metadata": {"name": "one-gpu"},
    "spec": {
        "spec": {
            "devices": {
                "requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]
            }
        }
    },
}


@pytest.mark.parametrize("phase", ["Succeeded", "Failed"])
def test_a_pod_done_with_a_template_returns_and_frees_the_server(
    served: Served, phase: str
) -> None:
    """Issue 23 item 1: a finished pod whose claim comes from a template made the control loop
    spin while holding the cluster lock, so its request never returned. Through the API a pod
    is done only once its status says so: a POST starts every pod Pending whatever status it
    carries (upstream's PrepareForCreate), so it gets its claim; the status update that ends it
    returns, and the claim generated for it goes (it will not run again)."""
    assert served.request("POST", TEMPLATES, DONE_TEMPLATE)[0] == 201
    done = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "done"},
        "spec": {
            "containers": [{"name": "c", "image": "x", "resources": {"claims": [{"name": "gpu"}]}}],
            "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}],
        },
        "status": {"phase": phase},
    }
    pod_path = "/api/v1/namespaces/default/pods"
    claims_path = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims"
    code, body = served.request("POST", pod_path, done)
    assert (code, body["status"]["phase"]) == (201, "Pending"), body
    code, claims = served.request("GET", claims_path)
    assert code == 200
    assert [c["metadata"]["name"].startswith("done-gpu-") for c in claims["items"]] == [True]
    _, current = served.request("GET", f"{pod_path}/done")
    ended = {**current, "status": {**current["status"], "phase": phase}}  # as its kubelet says
    code, body = served.request("PUT", f"{pod_path}/done/status", ended)
    assert (code, body["status"]["phase"]) == (200, phase), body
    code, claims = served.request("GET", claims_path)
    assert (code, claims["items"]) == (200, [])
    assert served.request("GET", "/version")[0] == 200
