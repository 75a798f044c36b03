"""Hostile requests to serve-api (issue 23 items 7-10): upstream's codes and messages, no
write to another object, bounded bodies, no 500 and no blocked server."""

from __future__ import annotations

import base64
import http.client
import json
import threading
import time
from typing import Any
from urllib.parse import urlsplit

import pytest

from conftest import Served

PODS = "/api/v1/namespaces/default/pods"


def pod(name: str, image: str = "registry.k8s.io/pause:3.10") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "main", "image": image}]},
    }


def send(
    served: Served,
    method: str,
    path: str,
    body: bytes | None = None,
    content_type: str = "application/json",
    headers: dict[str, str] | None = None,
) -> tuple[int, Any]:
    """One raw request (any bytes, any content type); the status and the decoded answer."""
    where = urlsplit(served.url)
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=30)
    try:
        all_headers = {"Content-Type": content_type, **(headers or {})}
        connection.request(method, path, body=body, headers=all_headers)
        response = connection.getresponse()
        payload = response.read()
    finally:
        connection.close()
    try:
        return response.status, json.loads(payload)
    except ValueError:
        return response.status, payload.decode(errors="replace")


def send_json(served: Served, method: str, path: str, body: Any, content_type: str = "") -> Any:
    return send(served, method, path, json.dumps(body).encode(), content_type or "application/json")


def bad_request(status: int, body: Any, message: str) -> None:
    assert (status, body["reason"], body["message"]) == (400, "BadRequest", message), body


@pytest.fixture
def two_pods(served: Served) -> Served:
    for name in ("victim", "attacker"):
        status, _ = send_json(served, "POST", PODS, pod(name))
        assert status == 201
    return served


MISMATCH = "the name of the object (victim) does not match the name on the URL (attacker)"


@pytest.mark.parametrize(
    "content_type",
    [
        "application/merge-patch+json",
        "application/strategic-merge-patch+json",
        "application/apply-patch+yaml",
    ],
)
def test_a_patch_cannot_rewrite_another_object(two_pods: Served, content_type: str) -> None:
    """PATCH pods/attacker naming victim (with victim's resourceVersion) rewrote victim."""
    served = two_pods
    _, victim = send(served, "GET", f"{PODS}/victim")
    patch = {
        "metadata": {
            "name": "victim",
            "resourceVersion": victim["metadata"]["resourceVersion"],
            "labels": {"owned": "yes"},
        }
    }
    status, body = send_json(served, "PATCH", f"{PODS}/attacker", patch, content_type)
    bad_request(status, body, MISMATCH)
    _, after = send(served, "GET", f"{PODS}/victim")
    assert after == victim


def test_an_apply_patch_cannot_create_another_name(served: Served) -> None:
    status, body = send_json(
        served, "PATCH", f"{PODS}/url-name", pod("other-name"), "application/apply-patch+yaml"
    )
    bad_request(
        status,
        body,
        "the name of the object (other-name) does not match the name on the URL (url-name)",
    )
    assert send(served, "GET", f"{PODS}/other-name")[0] == 404
    assert send(served, "GET", f"{PODS}/url-name")[0] == 404


def test_every_write_verb_checks_name_and_namespace(two_pods: Served) -> None:
    served = two_pods
    _, victim = send(served, "GET", f"{PODS}/victim")
    status, body = send_json(served, "PUT", f"{PODS}/attacker", victim)
    bad_request(status, body, MISMATCH)
    elsewhere = {**pod("victim"), "metadata": {"name": "victim", "namespace": "kube-system"}}
    namespace_mismatch = (
        "the namespace of the provided object does not match the namespace sent on the request"
    )
    for method, path in (("POST", PODS), ("PUT", f"{PODS}/victim")):
        status, body = send_json(served, method, path, elsewhere)
        bad_request(status, body, namespace_mismatch)
    patch = {"metadata": {"namespace": "kube-system"}}
    status, body = send_json(
        served, "PATCH", f"{PODS}/victim", patch, "application/merge-patch+json"
    )
    bad_request(status, body, namespace_mismatch)
    assert send(served, "GET", f"{PODS}/victim")[1] == victim


def _alias_bomb() -> bytes:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]")
    return ("\n".join(lines) + "\n").encode()


def test_a_yaml_alias_bomb_is_refused_in_linear_time(served: Served) -> None:
    """570 bytes that expand to 9**9 nodes stopped the whole server (RSS past 2 GB)."""
    bomb = _alias_bomb()
    assert len(bomb) < 600
    started = time.perf_counter()
    status, body = send(served, "POST", PODS, bomb, "application/yaml")
    assert status == 400, body
    assert body["message"] == (
        "the body of the request could not be decoded: YAML document contains excessive aliasing"
    )
    assert time.perf_counter() - started < 10
    assert send(served, "GET", "/version")[0] == 200


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (("a: " + "[" * 10_000 + "]" * 10_000).encode(), "application/yaml"),
        (("[" * 20_000 + "]" * 20_000).encode(), "application/json"),
        (('{"a":' * 5_000 + "1" + "}" * 5_000).encode(), "application/json"),
    ],
)
def test_deep_nesting_is_a_400_at_once(served: Served, body: bytes, content_type: str) -> None:
    """10,000 levels of YAML blocked the server for minutes, then 500 RecursionError;
    20,000 levels of JSON were an immediate 500."""
    status, answer = send(served, "POST", PODS, body, content_type)
    assert status == 400, answer
    assert answer["message"].startswith("the body of the request could not be decoded: ")
    assert "Recursion" not in answer["message"]


def test_decoding_does_not_block_other_requests(served: Served) -> None:
    """Bodies are decoded in a worker thread: /version answers at once while a YAML body
    that takes seconds to parse (PyYAML reads the YAML 1.1 ``y``) is being decoded; it
    waited for the whole decoding before (6 s for this one)."""
    big = ("items:\n" + "- {a: 1, b: [x, y, z], c: {d: e}}\n" * 10_000).encode()
    done = threading.Event()
    worker = threading.Thread(
        target=lambda: (send(served, "POST", PODS, big, "application/yaml"), done.set()),
        daemon=True,
    )
    worker.start()
    time.sleep(0.2)
    started = time.perf_counter()
    status, _ = send(served, "GET", "/version")
    waited = time.perf_counter() - started
    overlapped = not done.is_set()
    worker.join(timeout=60)
    assert status == 200 and done.is_set()
    assert overlapped, "the body decoded too fast to tell"
    assert waited < 1.0, f"/version waited {waited:.1f} s for another request's body"


def test_delete_options_of_the_wrong_type_are_a_400(two_pods: Served) -> None:
    """DELETE with {"preconditions": "x"} was a 500 (AttributeError)."""
    served = two_pods
    for options, problem in (
        ({"preconditions": "x"}, 'preconditions: expected object, got a string "x"'),
        ({"gracePeriodSeconds": "soon"}, "gracePeriodSeconds: expected integer, got a string"),
        ([1, 2], None),
    ):
        for path in (f"{PODS}/victim", PODS):
            status, body = send_json(served, "DELETE", path, options)
            assert status == 400, body
            if problem:
                assert problem in body["message"], body
    assert send(served, "GET", f"{PODS}/victim")[0] == 200


@pytest.mark.parametrize(
    "token",
    [
        {"offset": 1e999, "uid": "x"},
        {"offset": "3", "uid": "x"},
        {"offset": -1, "uid": "x"},
        {"offset": 1, "uid": 7},
        [1, 2],
    ],
)
def test_a_forged_continue_token_is_a_400(two_pods: Served, token: Any) -> None:
    """A continue token holding 1e999 was a 500 (OverflowError)."""
    raw = json.dumps(token).replace("Infinity", "1e999").encode()
    forged = base64.urlsafe_b64encode(raw).decode()
    status, body = send(two_pods, "GET", f"{PODS}?limit=1&continue={forged}")
    assert status == 400, body
    assert body["message"].startswith("continue key is not valid")


@pytest.mark.parametrize(
    ("method", "verb"), [("POST", "create"), ("PUT", "update"), ("PATCH", "patch")]
)
def test_writes_to_events_are_405(served: Served, method: str, verb: str) -> None:
    """POST/PUT/PATCH on events were 500s (KeyError, StoreError)."""
    event = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e"}}
    path = "/api/v1/namespaces/default/events" + ("" if method == "POST" else "/e")
    status, body = send_json(served, method, path, event, "application/merge-patch+json")
    assert (status, body["reason"]) == (405, "MethodNotAllowed"), body
    assert body["message"] == f'{verb} is not supported on resources of kind "events"'


def test_bodies_past_3_mib_are_413_without_being_read(served: Served) -> None:
    """A 200 MB body was read in full (650 MB RSS)."""
    limit = 3 * 1024 * 1024
    message = f"Request entity too large: limit is {limit}"
    status, body = send(served, "POST", PODS, b"{" + b" " * limit + b"}")
    assert (status, body["reason"], body["message"]) == (413, "RequestEntityTooLarge", message)
    # A chunked body (no Content-Length) is cut off as soon as it passes the limit.
    where = urlsplit(served.url)
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=30)
    try:
        connection.putrequest("POST", PODS)
        connection.putheader("Content-Type", "application/json")
        connection.putheader("Transfer-Encoding", "chunked")
        connection.endheaders()
        chunk = b" " * 65536
        try:
            for _ in range(200):  # 12.5 MiB offered
                connection.send(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            connection.send(b"0\r\n\r\n")
        except OSError:
            pass  # the server answered and closed early
        response = connection.getresponse()
        assert response.status == 413
        assert json.loads(response.read())["message"] == message
    finally:
        connection.close()
    assert send(served, "GET", "/version")[0] == 200
