"""The page's JSON API over HTTP, every endpoint with good and bad input."""

from __future__ import annotations

import json
import socket
import threading
import urllib.error
import urllib.request
from typing import Any

import pytest

import kubedra.web.app as app_module
from kubedra.web import WebServer
from kubedra.web.app import MAX_BODY_BYTES

CLAIM = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: extra
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        selectors:
        - cel:
            expression: device.capacity["gpu.example.com"].memory.compareTo(quantity("10Gi")) >= 0
---
apiVersion: v1
kind: Pod
metadata:
  name: extra
spec:
  resourceClaims:
  - name: gpu
    resourceClaimName: extra
  containers:
  - name: c
    image: x
    resources:
      claims:
      - name: gpu
"""
BAD_CLAIM = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: bad
spec:
  devices:
    requests:
    - name: Big_GPU
      exactly: {}
"""
MEM = 'device.capacity["gpu.example.com"].memory.compareTo(quantity("10Gi")) >= 0'


def test_state_has_nodes_devices_claims_pods_and_the_decision(client: Any) -> None:
    status, state = client.get("/api/state")
    assert status == 200
    assert [n["name"] for n in state["nodes"]] == ["worker-1", "worker-2", "worker-3"]
    devices = {d["name"]: d for d in state["devices"]}
    assert devices["gpu-b"]["capacity"] == {"memory": "24Gi"}
    assert devices["gpu-b"]["capacityNumbers"] == {"memory": 24 * 2**30}
    assert devices["gpu-b"]["classes"] == ["gpu.example.com"]
    assert devices["gpu-a"]["keyAttributes"]["model"] == "LATEST-GPU-MODEL-8G"
    assert not devices["gpu-a"]["networkAttached"]
    (claim,) = state["claims"]
    assert claim["state"] == "reserved"
    assert claim["results"][0]["device"] == "gpu.example.com/worker-2/gpu-b"
    (pod,) = state["pods"]
    assert pod["node"] == "worker-2" and pod["claims"] == ["default/training-gpu"]
    (step,) = state["steps"]
    assert step["pod"] == "default/training" and step["result"] == "Scheduled"
    request = step["claims"][0]["requests"][0]
    names = [d["name"] for d in state["devices"]]
    assert [names[i] for i in request["candidates"]] == ["gpu-b"]
    assert request["devices"] == 3
    (rejected,) = request["rejected"]
    assert [names[i] for i in rejected["devices"]] == ["gpu-a", "gpu-c"]
    assert rejected["reason"] == (
        'selector device.capacity["gpu.example.com"].memory.compareTo(quantity("16Gi")) >= 0'
        " is false"
    )
    assert step["claims"][0]["chosen"][0]["device"] == "gpu.example.com/worker-2/gpu-b"


def test_selector_preview_matches_and_errors(client: Any) -> None:
    status, body = client.post("/api/selector", {"expression": MEM})
    assert status == 200 and body["ok"]
    assert body["matches"] == ["gpu.example.com/worker-2/gpu-b", "gpu.example.com/worker-3/gpu-c"]
    status, body = client.post("/api/selector", {"expression": "device.nope == 1"})
    assert status == 200 and not body["ok"]
    assert (body["line"], body["column"]) == (1, 7)
    assert "undefined field 'nope'" in body["error"]
    status, body = client.post("/api/selector", {"expression": 'device.attributes["x"].y == 1'})
    assert body["ok"] and body["matches"] == []
    assert len(body["errors"]) == 3  # no such attribute: a runtime error per device


def nested_all(items: int, levels: int = 5) -> str:
    """``levels`` nested all() over ``items`` literals: ``items**levels`` steps per device."""
    values = "[" + ", ".join(str(i) for i in range(items)) + "]"
    return "".join(f"{values}.all(x{i}, " for i in range(levels)) + "true" + ")" * levels


def test_selector_preview_checks_the_estimate_first(client: Any) -> None:
    """Estimated at 1,063,187 (> 1,000,000): validation refuses it in a claim, so the
    preview refuses it too, without running it on any device."""
    status, body = client.post("/api/selector", {"expression": nested_all(12)})
    assert status == 200 and not body["ok"]
    assert body["error"] == "Forbidden: too complex, exceeds cost limit"
    assert body["matches"] == [] and body["errors"] == {}


def test_selector_preview_spends_one_cost_budget_per_request(client: Any) -> None:
    """Estimated at 708,620, 547,570 per device: the first two devices spend the budget of
    one evaluation, the third is not tried (the budget was a full one per device)."""
    status, body = client.post("/api/selector", {"expression": nested_all(11)})
    assert status == 200 and body["ok"]
    assert body["matches"] == ["gpu.example.com/worker-1/gpu-a", "gpu.example.com/worker-2/gpu-b"]
    assert list(body["errors"]) == ["gpu.example.com/worker-3/gpu-c"]
    assert body["errors"]["gpu.example.com/worker-3/gpu-c"].startswith(
        "not tried: the devices before it spent this preview's cost budget (1000000)"
    )


def test_selector_preview_runs_outside_the_cluster_lock(
    client: Any, server: WebServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page's other endpoints wait on the lock: the preview only copies the device
    list under it."""
    held: list[bool] = []
    preview = app_module.preview_selector

    def watching(devices: Any, expression: str) -> dict[str, Any]:
        def try_lock() -> None:  # from another thread: the lock may be reentrant
            free = server.cluster.lock.acquire(blocking=False)
            if free:
                server.cluster.lock.release()
            held.append(not free)

        other = threading.Thread(target=try_lock)
        other.start()
        other.join()
        return preview(devices, expression)

    monkeypatch.setattr(app_module, "preview_selector", watching)
    status, body = client.post("/api/selector", {"expression": MEM})
    assert status == 200 and len(body["matches"]) == 2
    assert held == [False]


def test_selector_rejects_bad_bodies(client: Any) -> None:
    status, body = client.post("/api/selector", {"expr": MEM})
    assert status == 422 and body["errors"][0]["field"] == "expression"
    status, body = client.post("/api/selector", {"expression": "x" * 20_000})
    assert status == 422 and "at most" in body["error"]
    status, body = client.post("/api/selector", raw=b"{not json")
    assert status == 422 and "error" in body


def test_validate_reports_field_paths(client: Any) -> None:
    status, body = client.post("/api/validate", {"manifest": BAD_CLAIM})
    assert status == 200 and not body["ok"]
    fields = [e["field"] for e in body["errors"]]
    assert fields == [
        "spec.devices.requests[0].name",
        "spec.devices.requests[0].exactly.deviceClassName",
    ]
    assert body["errors"][1]["message"] == "Required value"
    assert body["errors"][0]["object"] == "ResourceClaim/bad"
    status, body = client.post("/api/validate", {"manifest": CLAIM})
    assert status == 200 and body == {
        "ok": True,
        "objects": ["ResourceClaim/extra", "Pod/extra"],
        "errors": [],
    }


@pytest.mark.parametrize(
    ("manifest", "wanted"),
    [
        ("", "no objects given"),
        ("a: [", "editor"),
        ("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n", "Secret"),
        ("---\n".join(["apiVersion: v1\nkind: Namespace\nmetadata: {name: n}\n"] * 21), "at most"),
    ],
)
def test_validate_bad_text(client: Any, manifest: str, wanted: str) -> None:
    status, body = client.post("/api/validate", {"manifest": manifest})
    assert status == 200 and not body["ok"]
    assert wanted in json.dumps(body["errors"])


def test_apply_creates_and_schedules(client: Any) -> None:
    status, body = client.post("/api/apply", {"manifest": CLAIM})
    assert status == 200 and body["created"] == ["ResourceClaim/extra", "Pod/extra"]
    _, state = client.get("/api/state")
    pods = {p["name"]: p for p in state["pods"]}
    assert pods["extra"]["node"] == "worker-3"  # gpu-b is taken; gpu-c has 12Gi
    assert [s["pod"] for s in state["steps"]] == ["default/training", "default/extra"]
    status, body = client.post("/api/apply", {"manifest": CLAIM})
    assert status == 409 and "already exists" in body["error"]
    assert body["created"] == []
    # every conflict is reported, as kubectl create -f does, not only the first
    assert [(e["object"], e["message"]) for e in body["errors"]] == [
        ("ResourceClaim/extra", 'resourceclaims.resource.k8s.io "extra" already exists'),
        ("Pod/extra", 'pods "extra" already exists'),
    ]


def test_apply_creates_what_it_can_and_names_what_it_cannot(client: Any) -> None:
    pod_only = CLAIM.split("---")[1]
    assert client.post("/api/apply", {"manifest": pod_only})[0] == 200
    status, body = client.post("/api/apply", {"manifest": CLAIM})
    assert status == 409 and not body["ok"]
    assert body["created"] == ["ResourceClaim/extra"]
    assert [(e["object"], e["message"]) for e in body["errors"]] == [
        ("Pod/extra", 'pods "extra" already exists')
    ]


def test_state_has_each_pools_status_at_the_live_state(client: Any) -> None:
    """The utilisation panel's pool status is what a ResourcePoolStatusRequest for the pool
    reports (KEP-5677; kubernetes/kubernetes pkg/controller/resourcepoolstatusrequest)."""
    _, state = client.get("/api/state")
    pools = {s["poolName"]: s for s in state["poolStatus"]}
    assert sorted(pools) == ["worker-1", "worker-2", "worker-3"]
    assert (pools["worker-2"]["allocatedDevices"], pools["worker-2"]["availableDevices"]) == (1, 0)
    assert pools["worker-3"]["allocatedDevices"] == 0
    client.post("/api/apply", {"manifest": CLAIM})
    _, state = client.get("/api/state")
    pools = {s["poolName"]: s for s in state["poolStatus"]}
    assert (pools["worker-3"]["allocatedDevices"], pools["worker-3"]["nodeName"]) == (1, "worker-3")


DONE_POD = """apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: one-gpu
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
---
apiVersion: v1
kind: Pod
metadata:
  name: done
spec:
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: one-gpu
  containers:
  - name: c
    image: x
    resources:
      claims:
      - name: gpu
status:
  phase: Succeeded
"""


def test_apply_of_a_done_pod_with_a_template_returns(client: Any) -> None:
    """Issue 23 item 1: the page's apply of a finished pod whose claim comes from a template
    never returned. Like ``kubectl create -f``, the apply starts the pod Pending whatever
    status it carries (upstream's PrepareForCreate), so it gets a claim of its own and runs;
    the page keeps answering."""
    status, body = client.post("/api/apply", {"manifest": DONE_POD})
    assert status == 200, body
    assert body["created"] == ["ResourceClaimTemplate/one-gpu", "Pod/done"]
    status, state = client.get("/api/state")
    assert status == 200
    names = [c["name"] for c in state["claims"]]
    assert names[0] == "training-gpu" and len(names) == 2
    assert names[1].startswith("done-gpu-")
    [done] = [p for p in state["pods"] if p["name"] == "done"]
    assert done["phase"] == "Running", done


def test_apply_refuses_invalid_objects_without_creating(client: Any) -> None:
    status, body = client.post("/api/apply", {"manifest": BAD_CLAIM})
    assert status == 422 and not body["ok"]
    assert body["error"].startswith("ResourceClaim/bad: spec.devices.requests[0].name: Invalid")
    _, state = client.get("/api/state")
    assert [c["name"] for c in state["claims"]] == ["training-gpu"]


def test_explain_pending_placed_and_missing(client: Any) -> None:
    status, body = client.get("/api/explain/default/training")
    assert status == 200 and body["node"] == "worker-2"
    big = CLAIM.replace("10Gi", "80Gi").replace("extra", "big")
    assert client.post("/api/apply", {"manifest": big})[0] == 200
    status, body = client.get("/api/explain/default/big")
    assert status == 200 and body["found"]
    assert any("80Gi" in line or "node" in line for line in body["summary"])
    status, body = client.get("/api/explain/default/nope")
    assert status == 404 and body == {"error": "pod default/nope not found"}
    status, body = client.get("/api/explain/default/" + "x" * 300)
    assert status == 400


def test_page_static_openapi_and_unknown_paths(client: Any, server: WebServer) -> None:
    status, page = client.get("/")
    assert status == 200 and '<script src="/static/app.js">' in page
    assert client.get("/static/app.css")[0] == 200
    status, schema = client.get("/api/openapi.json")
    assert status == 200
    assert set(schema["paths"]) == {
        "/api/state",
        "/api/explain/{ns}/{name}",
        "/api/validate",
        "/api/apply",
        "/api/selector",
        "/api/changes",
        "/api/events",
    }
    assert client.get("/api/nothing") == (404, {"error": "Not Found"})
    assert client.get("/static/../../pyproject.toml")[0] == 404
    status, body = client.call("DELETE", "/api/state")
    assert status == 405 and "error" in body


def test_body_size_limit_covers_the_kubernetes_api(client: Any) -> None:
    big = {"manifest": "#" * (MAX_BODY_BYTES + 10)}
    status, body = client.post("/api/apply", big)
    assert status == 413 and "larger than" in body["error"]
    status, body = client.post("/k8s/api/v1/namespaces/default/pods", big)
    assert status == 413


def test_body_size_limit_on_streamed_body(server: WebServer) -> None:
    """A chunked body with no Content-Length is cut off at the limit too."""
    with socket.create_connection((server.host, server.port), timeout=10) as conn:
        conn.sendall(
            b"POST /api/validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        chunk = b"x" * 65536
        for _ in range(5):
            conn.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        conn.sendall(b"0\r\n\r\n")
        answer = conn.recv(4096)
    assert answer.startswith(b"HTTP/1.1 413")


def test_changes_gives_the_resource_version_at_once(client: Any) -> None:
    status, before = client.get("/api/changes")
    assert status == 200 and isinstance(before["resourceVersion"], int)
    assert client.post("/api/apply", {"manifest": CLAIM})[0] == 200
    _, after = client.get("/api/changes")
    assert after["resourceVersion"] > before["resourceVersion"]


def test_events_stream_announces_changes(server: WebServer, client: Any) -> None:
    with urllib.request.urlopen(server.url + "/api/events", timeout=10) as stream:
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        assert stream.readline() == b"event: hello\n"
        stream.readline()
        stream.readline()
        assert client.post("/api/apply", {"manifest": CLAIM})[0] == 200
        assert stream.readline() == b"event: change\n"
        assert b"resourceVersion" in stream.readline()


def test_kubernetes_api_is_served_under_k8s(client: Any) -> None:
    status, body = client.get("/k8s/api/v1/namespaces/default/pods/training")
    assert status == 200 and body["spec"]["nodeName"] == "worker-2"
    status, body = client.get("/k8s/api/v1/namespaces/default/pods/nope")
    assert status == 404 and body["kind"] == "Status"


def test_the_pages_kubernetes_api_has_serve_apis_request_checks(client: Any) -> None:
    """/k8s is the same router: a PATCH naming another pod is refused there too."""
    patch = {"metadata": {"name": "other", "labels": {"x": "y"}}}
    request = urllib.request.Request(
        client.base + "/k8s/api/v1/namespaces/default/pods/training",
        data=json.dumps(patch).encode(),
        method="PATCH",
        headers={"Content-Type": "application/merge-patch+json"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    body = json.loads(refused.value.read())
    assert (refused.value.code, body["message"]) == (
        400,
        "the name of the object (other) does not match the name on the URL (training)",
    )
    status, events = client.post("/k8s/api/v1/namespaces/default/events", {"kind": "Event"})
    assert status == 405 and events["reason"] == "MethodNotAllowed"
