"""The page in real headless Chromium on the gpu-demo (three GPUs of 8, 24 and 12 GiB)."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

from kubedra.web import WebServer

TRAINING = "default/training"
MEM_10G = 'device.capacity["gpu.example.com"].memory.compareTo(quantity("10Gi")) >= 0'


def settle(page: Any) -> None:
    """Wait for the page's animations (the pod moving) to end before a screenshot."""
    page.wait_for_function("document.getAnimations().length === 0")


def step_until_bound(page: Any, pod: str, limit: int = 30) -> None:
    for _ in range(limit):
        if page.locator(f".node .pod[data-pod='{pod}']").count():
            return
        page.click("#step")
    raise AssertionError(f"{pod} was not bound after {limit} steps")


def test_step_through_binds_training_pod_to_gpu_b(page: Any, artifacts: Path) -> None:
    page.click("#reset")  # the page opens live: back to before the first decision
    assert page.locator("#pending .pod[data-pod='default/training']").count() == 1
    claim = "#claims .claim[data-claim='default/training-gpu']"
    assert page.get_attribute(claim, "data-state") == "pending"
    assert "Pending" in page.inner_text(claim)
    page.click("#step")  # the request appears
    assert "training-gpu" in page.inner_text("#decision-body")
    page.click("#step")  # candidates light up, the others show why not
    assert page.locator(".slot.candidate").evaluate_all("s => s.map(x => x.dataset.device)") == [
        "gpu-b"
    ]
    rejected = page.locator(".slot.rejected[data-device='gpu-a']")
    assert "is false" in (rejected.get_attribute("title") or "")
    assert "16Gi" in rejected.inner_text()
    settle(page)
    page.screenshot(path=str(artifacts / "candidates.png"), full_page=True)
    step_until_bound(page, TRAINING)
    bound = page.locator(".slot.chosen.bound")
    assert bound.evaluate_all("s => s.map(x => x.dataset.device)") == ["gpu-b"]
    assert "training-gpu" in bound.inner_text()
    assert page.locator(".node[data-node='worker-2'] .pod[data-pod='default/training']").count()
    assert "bound to worker-2" in page.inner_text("#decision-body")
    assert page.get_attribute(claim, "data-state") == "reserved"
    assert "Reserved" in page.inner_text(claim) and "gpu-b" in page.inner_text(claim)
    settle(page)
    page.screenshot(path=str(artifacts / "bound.png"), full_page=True)
    page.click("#reset")
    assert page.locator("#pending .pod[data-pod='default/training']").count() == 1
    assert page.locator(".slot.bound").count() == 0
    page.click("#play")
    page.wait_for_selector("#live.on", timeout=15000)
    assert page.inner_text("#play").endswith("Play")
    assert page.locator(".node[data-node='worker-2'] .slot.bound[data-device='gpu-b']").count()


def test_selector_highlights_matching_devices_and_shows_cel_error(
    page: Any, artifacts: Path
) -> None:
    page.fill("#selector", MEM_10G)
    page.wait_for_function("document.querySelectorAll('.slot.match').length === 2")
    matched = page.locator(".slot.match").evaluate_all("s => s.map(x => x.dataset.device)")
    assert sorted(matched) == ["gpu-b", "gpu-c"]
    assert "2 devices match" in page.inner_text("#selector-info")
    settle(page)
    page.screenshot(path=str(artifacts / "selector.png"), full_page=True)
    page.fill("#selector", "device.driver == ")
    page.wait_for_selector("#selector-error:not([hidden])")
    error = page.inner_text("#selector-error")
    assert "column 18" in error and "Syntax error" in error
    assert page.locator(".slot.match").count() == 0


def test_invalid_claim_shows_field_errors(page: Any, artifacts: Path) -> None:
    page.click("#apply")  # the editor starts with a claim whose request name is invalid
    page.wait_for_selector("#editor-result .errors")
    text = page.inner_text("#editor-result")
    assert "spec.devices.requests[0].name" in text
    assert 'Invalid value: "Big_Device"' in text
    settle(page)
    page.screenshot(path=str(artifacts / "invalid.png"), full_page=True)
    # live validation while typing, before anything is submitted
    page.fill(
        "#manifest",
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n"
        "  name: c\nspec:\n  devices:\n    requests:\n    - name: gpu\n      exactly: {}\n",
    )
    page.wait_for_function(
        "document.querySelector('#editor-result').innerText.includes('deviceClassName')"
    )
    assert "Required value" in page.inner_text("#editor-result")


def test_form_claim_and_pod_get_scheduled(page: Any) -> None:
    page.click("#live")
    page.fill("#selector", MEM_10G)
    page.click("#f-fill")
    page.wait_for_selector("#editor-result .ok")
    page.click("#apply")
    page.wait_for_selector(
        ".node[data-node='worker-3'] .pod[data-pod='default/my-pod-2']", timeout=15000
    )
    page.wait_for_selector("#live.on", timeout=15000)
    owner = page.inner_text(".slot[data-device='gpu-c'] .owner")
    assert "my-claim-2" in owner


def test_pod_created_through_served_api_appears_bound(
    page: Any, server: WebServer, artifacts: Path
) -> None:
    page.click("#live")
    claim = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "api-gpu"},
        "spec": {
            "devices": {
                "requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]
            }
        },
    }
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "from-api"},
        "spec": {
            "resourceClaims": [{"name": "gpu", "resourceClaimName": "api-gpu"}],
            "containers": [{"name": "c", "image": "x", "resources": {"claims": [{"name": "gpu"}]}}],
        },
    }
    base = server.api_url
    for path, obj in (
        ("/apis/resource.k8s.io/v1/namespaces/default/resourceclaims", claim),
        ("/api/v1/namespaces/default/pods", pod),
    ):
        request = urllib.request.Request(
            base + path, json.dumps(obj).encode(), {"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=30) as resp:
            assert resp.status == 201
    bound = page.wait_for_selector(".node .pod[data-pod='default/from-api']", timeout=15000)
    assert bound is not None
    page.wait_for_selector("#live.on", timeout=15000)
    node = page.locator(".node:has(.pod[data-pod='default/from-api'])").get_attribute("data-node")
    assert node in ("worker-1", "worker-3")
    settle(page)
    page.screenshot(path=str(artifacts / "from-api.png"), full_page=True)


def test_pending_pod_shows_explain(page: Any, client: Any, artifacts: Path) -> None:
    status, _ = client.post(
        "/api/apply",
        {
            "manifest": "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n"
            "  name: huge\nspec:\n  devices:\n    requests:\n    - name: gpu\n      exactly:\n"
            "        deviceClassName: gpu.example.com\n        selectors:\n        - cel:\n"
            '            expression: device.capacity["gpu.example.com"].memory.compareTo('
            'quantity("80Gi")) >= 0\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: big\n'
            "spec:\n  resourceClaims:\n  - name: gpu\n    resourceClaimName: huge\n"
            "  containers:\n  - name: c\n    image: x\n    resources:\n      claims:\n"
            "      - name: gpu\n"
        },
    )
    assert status == 200
    # the page learns of the change and replays the new decision: the pod stays pending
    page.wait_for_selector("#pending .pod[data-pod='default/big']", timeout=15000)
    page.click("#live")
    page.wait_for_selector("#live.on", timeout=15000)
    page.click("#pending .pod[data-pod='default/big'][data-state='pending']")
    page.wait_for_selector("#explain:not([hidden])")
    assert "default/big" in page.inner_text("#explain-body")
    settle(page)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 1360, "nothing overflows the window sideways"
    page.screenshot(path=str(artifacts / "explain.png"), full_page=True)
    assert "80Gi" in page.inner_text("#explain-body") or "node" in page.inner_text("#explain-body")


PARTITION_POD = """apiVersion: v1
kind: Pod
metadata:
  name: mig-user
spec:
  resourceClaims:
  - name: gpu
    resourceClaimName: small-partition
  containers:
  - name: c
    image: x
    resources:
      claims:
      - name: gpu
"""


def test_counters_shared_capacity_and_network_pools(browser: Any, artifacts: Path) -> None:
    repo_root = Path(__file__).resolve().parents[2]
    from kubedra.api.io import load_paths
    from kubedra.scheduler import new_simulation

    loaded = load_paths(
        [
            Path(__file__).parent / "data" / "shared-nic.yaml",
            repo_root / "examples" / "partitionable-device.yaml",
        ]
    )
    wires = [o.wire for o in loaded.objects]
    for wire in wires:  # partition types by profile (ResourceSliceSpec.partitionTypeAttribute)
        spec = wire.get("spec") or {}
        if spec.get("driver") == "mig.example.com" and spec.get("devices"):
            spec["partitionTypeAttribute"] = "mig.example.com/profile"
    simulation = new_simulation()
    assert not simulation.load(wires)
    with WebServer(simulation) as server:
        context = browser.new_context(
            viewport={"width": 1360, "height": 900}, reduced_motion="reduce"
        )
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(server.url + "/")
        page.wait_for_selector(".conn.up")
        page.click("#live")
        nic = page.locator("#network .slot[data-device='nic-0']")
        assert "bandwidth shared: 40 of 40 used" not in nic.inner_text()
        assert "bandwidth shared: 20 of 40 used" in nic.inner_text()
        assert "shared by 2" in nic.inner_text()
        # The shareable NIC's summary as a ResourcePoolStatusRequest reports it (KEP-5677).
        shareable = page.locator("#chart-pools svg[aria-label='Shareable capacity consumed']")
        assert "fabric bandwidth" in shareable.inner_html()
        assert "20 / 40" in shareable.inner_html()
        gauge = page.locator(".node[data-node='worker-4'] .gauge.counter").first
        assert "counter gpu-0-counters/memory: 0 of 40Gi used" in gauge.inner_text()
        page.fill("#manifest", PARTITION_POD)
        page.click("#apply")
        page.wait_for_selector(".node[data-node='worker-4'] .pod[data-pod='default/mig-user']")
        page.wait_for_selector("#live.on")
        assert page.evaluate("document.getAnimations().length") == 0  # reduced motion: instant
        gauge = page.locator(".node[data-node='worker-4'] .gauge.counter").first
        assert "counter gpu-0-counters/memory: 5Gi of 40Gi used" in gauge.inner_text()
        # The 1g.5gb partition taken: the whole GPU (same counters) is no longer allocatable.
        chart = page.locator("#chart-pools svg[aria-label='Partitions not allocatable per type']")
        texts = "els => els.map((e) => e.textContent)"
        labels = chart.locator(".chart-label title").evaluate_all(texts)  # uncut, in its tooltip
        values = chart.locator(".chart-value").evaluate_all(texts)
        assert dict(zip(labels, values, strict=True)) == {
            "worker-4 1g.5gb": "0/1 left",
            "worker-4 3g.20gb": "1/1 left",
            "worker-4 full": "0/1 left",
        }
        page.screenshot(path=str(artifacts / "partitions.png"), full_page=True)
        context.close()
        assert not errors, f"JavaScript errors on the page: {errors}"
