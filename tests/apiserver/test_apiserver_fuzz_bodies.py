"""Fuzzing serve-api's shared request path (issue 23 items 7-10): any body, any verb, any
content type, any name on the URL: never a 500, never a write to an object the URL does
not name, every answer in bounded time.

CI runs a fixed seed with a small budget; a long run (from ``tests/apiserver``)::

    KUBEDRA_HOSTILE_FUZZ_EXAMPLES=2000 python -m pytest test_apiserver_fuzz_bodies.py -q -s

prints the number of requests and the status codes seen.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_apiserver_hostile import PODS, pod, send

from conftest import DATA, Served, simulation_from
from kubedra.apiserver import ApiServer

EXAMPLES = int(os.environ.get("KUBEDRA_HOSTILE_FUZZ_EXAMPLES", "60"))
SECONDS_PER_REQUEST = 10.0
STATS: Counter[str] = Counter()

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
)
_JSON = st.recursive(
    _SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
_NAMES = st.sampled_from(["victim", "other", "", "../x", "a" * 300, "victim/status"])


def _object_body(draw: st.DrawFn) -> bytes:
    """A pod-like object with random parts: names, namespaces, fields of any type."""
    obj: dict[str, Any] = pod(draw(_NAMES))
    if draw(st.booleans()):
        obj["metadata"]["namespace"] = draw(st.sampled_from(["default", "kube-system", "", 7]))
    if draw(st.booleans()):
        obj[draw(st.sampled_from(["spec", "status", "metadata", "kind", "apiVersion"]))] = draw(
            _JSON
        )
    if draw(st.booleans()) and isinstance(obj["metadata"], dict):
        obj["metadata"]["resourceVersion"] = draw(st.sampled_from(["1", "x", "", "99999999"]))
    return json.dumps(obj).encode()


@st.composite
def bodies(draw: st.DrawFn) -> tuple[bytes, str]:
    kind = draw(st.sampled_from(["object", "json", "yaml", "bytes", "nested", "aliases"]))
    content_type = draw(
        st.sampled_from(
            [
                "application/json",
                "application/yaml",
                "application/merge-patch+json",
                "application/strategic-merge-patch+json",
                "application/apply-patch+yaml",
                "application/json-patch+json",
                "application/vnd.kubernetes.protobuf",
                "text/plain",
            ]
        )
    )
    if kind == "object":
        return _object_body(draw), content_type
    if kind == "json":
        return json.dumps(draw(_JSON)).encode(), content_type
    if kind == "yaml":
        text = draw(st.text(alphabet="ab:- \n[]{}&*!,'\"#|>0123", max_size=120))
        return text.encode(), content_type
    if kind == "nested":
        depth = draw(st.integers(1, 3000))
        opener, closer = draw(st.sampled_from([("[", "]"), ('{"a":', "}"), ("- ", "")]))
        return (opener * depth + "1" + closer * depth).encode(), content_type
    if kind == "aliases":
        fan = draw(st.integers(1, 12))
        lines = ["a: &a [" + ", ".join(["x"] * fan) + "]"]
        for previous, name in zip("abcdefgh", "bcdefghi", strict=True):
            lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * fan) + "]")
        return ("\n".join(lines) + "\n").encode(), "application/yaml"
    return draw(st.binary(max_size=200)), content_type


@pytest.fixture(scope="module")
def fuzzed() -> Iterator[Served]:
    server = ApiServer(simulation_from(DATA / "cluster.yaml"))
    server.start()
    try:
        served = Served(server.url, DATA / "unused", DATA)
        _restore(served)
        yield served
    finally:
        server.stop()


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    st.sampled_from(["POST", "PUT", "PATCH", "DELETE"]),
    st.sampled_from(
        [
            PODS,
            f"{PODS}/attacker",
            f"{PODS}/attacker/status",
            "/api/v1/namespaces/default/events",
            "/api/v1/nodes/node-1",
            "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/c",
        ]
    ),
    bodies(),
)
def test_no_request_is_a_500_or_writes_another_object(
    fuzzed: Served, method: str, path: str, body: tuple[bytes, str]
) -> None:
    raw, content_type = body
    _, before = send(fuzzed, "GET", f"{PODS}/victim")
    started = time.perf_counter()
    status, answer = send(fuzzed, method, path, raw, content_type)
    STATS[str(status)] += 1
    assert status < 500, (method, path, raw[:200], answer)
    assert time.perf_counter() - started < SECONDS_PER_REQUEST, (method, path, raw[:200])
    assert send(fuzzed, "GET", "/version")[0] == 200
    if method == "DELETE" and path == PODS and status == 200:
        _restore(fuzzed)  # a deletecollection: every pod was meant to go
        return
    _, after = send(fuzzed, "GET", f"{PODS}/victim")
    assert after == before, (method, path, raw[:200])  # only .../victim may change it


def _restore(served: Served) -> None:
    for name in ("victim", "attacker"):
        status, _ = send(served, "POST", PODS, json.dumps(pod(name)).encode())
        assert status in (201, 409)


def test_zz_report_counts() -> None:
    """Runs last in this module: the requests fed and their status codes (``-s``)."""
    total = sum(STATS.values())
    print(f"\nserve-api body fuzz: {total} requests, status codes {dict(sorted(STATS.items()))}")
    assert total >= min(EXAMPLES, 50)
