"""The page as a new user first sees it (issue 22, finding 5), in headless Chromium at 1280 and
800 px: it opens on the cluster as it is now, its charts keep the page's text size, capacity
reads as used and free, a partition whose counters are used up is not free, the form's class
comes from the cluster, the CEL error marks its column on wrapped lines, Explain follows the
pod in view, and the connection badge stays put. Screenshots go to the artifacts folder."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from test_web_browser import PARTITION_POD

from kubedra.api.io import load_paths
from kubedra.scheduler import new_simulation
from kubedra.web import WebServer

REPO = Path(__file__).resolve().parents[2]
WIDTHS = (1280, 800)


@contextmanager
def opened(browser: Any, url: str, width: int) -> Iterator[Any]:
    """The page at ``width`` px, connected, its devices drawn; fails on any JavaScript error."""
    context = browser.new_context(viewport={"width": width, "height": 900}, reduced_motion="reduce")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url + "/")
    page.wait_for_selector(".conn.up")
    page.wait_for_selector(".slot")
    try:
        yield page
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@contextmanager
def served(*paths: Path) -> Iterator[WebServer]:
    loaded = load_paths(list(paths))
    assert not loaded.errors, loaded.errors
    simulation = new_simulation()
    assert not simulation.load([o.wire for o in loaded.objects])
    with WebServer(simulation) as server:
        yield server


def chart_scale(page: Any) -> list[float]:
    """How much each chart is scaled from its drawing (1: its text is the page's size)."""
    return page.evaluate(
        "[...document.querySelectorAll('#charts svg')].map("
        "s => s.getBoundingClientRect().width / s.viewBox.baseVal.width)"
    )


def chart_rows(page: Any, chart: str) -> list[str]:
    """The chart's texts as drawn (a label's tooltip holds the whole label)."""
    return page.evaluate(
        f"[...document.querySelectorAll('{chart} svg text')].map(t => t.firstChild.nodeValue)"
    )


def chart_labels(page: Any, chart: str) -> list[str]:
    """The whole labels of the chart's rows (their tooltips)."""
    return page.evaluate(
        f"[...document.querySelectorAll('{chart} svg text title')].map(t => t.textContent)"
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_the_page_opens_live_with_charts_at_text_size(
    browser: Any, server: WebServer, artifacts: Path, width: int
) -> None:
    with opened(browser, server.url, width) as page:
        assert all(abs(scale - 1) < 0.02 for scale in chart_scale(page)), chart_scale(page)
        assert page.get_attribute("#live", "class") == "on"
        assert page.inner_text("#stepinfo") == "live · 1 decision to replay"
        assert page.locator(".node[data-node='worker-2'] .pod[data-pod='default/training']").count()
        assert page.locator("#pending .pod").count() == 0
        assert page.get_attribute(".slot[data-device='gpu-b']", "class") == "slot bound"
        assert chart_rows(page, "#chart-nodes") == [
            "Devices in use per node",
            "worker-1",
            "0/1",
            "worker-2",
            "1/1",
            "worker-3",
            "0/1",
        ]
        assert chart_rows(page, "#chart-capacity") == [
            "Capacity used vs free",
            "memory",
            "24Gi used · 20Gi free",
        ]
        assert all(abs(scale - 1) < 0.02 for scale in chart_scale(page)), chart_scale(page)
        page.screenshot(path=str(artifacts / f"live-{width}.png"), full_page=True)
        page.click("#step")  # replay on demand, from the first decision
        assert page.inner_text("#stepinfo") == "decision 1 of 1 · default/training · request"
        assert page.locator("#pending .pod[data-pod='default/training']").count() == 1
        page.click("#step")
        page.screenshot(path=str(artifacts / f"candidates-{width}.png"), full_page=True)
        if width == 1280:
            # docs/web-page.png is a copy of this one: the request, GPU B the only candidate,
            # A and C rejected with the reason
            page.screenshot(
                path=str(artifacts / "web-page.png"),
                clip={"x": 0, "y": 0, "width": 1280, "height": 600},
            )


def test_the_connection_badge_stays_put_as_the_step_text_changes(
    browser: Any, server: WebServer
) -> None:
    with opened(browser, server.url, 1280) as page:
        where = page.locator("#conn").bounding_box()
        for _ in range(3):
            page.click("#step")
            assert page.locator("#conn").bounding_box() == where, page.inner_text("#stepinfo")


def test_capacity_of_network_pools_and_used_up_partitions(browser: Any, artifacts: Path) -> None:
    with (
        served(
            Path(__file__).parent / "data" / "shared-nic.yaml",
            REPO / "examples" / "partitionable-device.yaml",
        ) as server,
        opened(browser, server.url, 1280) as page,
    ):
        page.click("#live")
        rows = chart_rows(page, "#chart-capacity")
        assert "bandwidth (network)" in rows
        assert rows[rows.index("bandwidth (network)") + 1] == "20 used · 20 free"
        assert chart_labels(page, "#chart-capacity") == [
            "memory (gpu-0-counters)",
            "slices (gpu-0-counters)",
            "bandwidth (network)",
        ]
        full = ".node[data-node='worker-4'] .slot[data-device='gpu-0']"
        assert page.inner_text(f"{full} .badge") == "free"
        page.fill("#manifest", PARTITION_POD)
        page.click("#apply")
        page.wait_for_selector(".node[data-node='worker-4'] .pod[data-pod='default/mig-user']")
        page.wait_for_selector("#live.on")
        # one partition holds 5Gi of the GPU's 40Gi: the whole GPU cannot be allocated now
        assert page.inner_text(f"{full} .badge") == "unavailable"
        assert "gpu-0-counters/memory: needs 40Gi, 35Gi left" in page.inner_text(full)
        assert page.get_attribute(full, "class") == "slot exhausted"
        rows = chart_rows(page, "#chart-capacity")
        assert rows[1:5] == [
            "memory (gpu-0-counters)",
            "5Gi used · 35Gi free",
            "slices (gpu-0-counters)",
            "1 used · 6 free",
        ]
        page.screenshot(path=str(artifacts / "partitions-used-up.png"), full_page=True)


def test_a_cluster_without_capacity_or_gpus(browser: Any, artifacts: Path) -> None:
    example = REPO / "examples" / "network-attached"
    with (
        served(example / "cluster.yaml", example / "workload.yaml") as server,
        opened(browser, server.url, 800) as page,
    ):
        page.click("#live")
        assert chart_rows(page, "#chart-capacity") == [
            "Capacity used vs free",
            "no device declares capacity",
        ]
        assert page.input_value("#f-class") == "fabric.example.com"
        manifest = page.input_value("#manifest")
        assert "deviceClassName: fabric.example.com" in manifest
        assert "gpu.example.com" not in manifest
        assert page.get_attribute("#selector", "placeholder") == (
            'device.driver == "fabric.example.com"'
        )
        page.click("#f-fill")
        assert "deviceClassName: fabric.example.com" in page.input_value("#manifest")
        page.screenshot(path=str(artifacts / "network-800.png"), full_page=True)


def test_the_cel_caret_marks_its_column_on_a_wrapped_line(
    browser: Any, server: WebServer, client: Any, artifacts: Path
) -> None:
    _, answer = client.post("/api/selector", {"expression": LONG_BAD_SELECTOR})
    column = answer["column"]
    assert LONG_BAD_SELECTOR[column - 1] == "="  # the single = where == belongs
    with opened(browser, server.url, 800) as page:
        page.fill("#selector", LONG_BAD_SELECTOR)
        page.wait_for_selector("#selector-error:not([hidden])")
        lines = page.locator("#selector-error .cel-line")
        assert lines.nth(0).inner_text() == LONG_BAD_SELECTOR
        assert lines.nth(1).inner_text().strip() == f"^ column {column}"
        assert page.inner_text("#selector-error .cel-at") == "="
        message = page.inner_text("#selector-error .cel-message")
        assert message.endswith("Syntax error: token recognition error at: '='")
        assert " | " not in message  # CEL's own echo and caret would wrap: not shown
        # however narrow the box, the caret sits under the marked character
        mark_x = page.locator("#selector-error .cel-at").bounding_box()["x"]
        caret_x = page.evaluate(
            """() => {
                const node = document.querySelectorAll('#selector-error .cel-line')[1].firstChild;
                const range = document.createRange();
                const at = node.textContent.indexOf('^');
                range.setStart(node, at);
                range.setEnd(node, at + 1);
                return range.getBoundingClientRect().x;
            }"""
        )
        assert abs(mark_x - caret_x) < 1.5, (mark_x, caret_x)
        box = page.locator("#selector-error").bounding_box()
        assert box["width"] < page.evaluate("document.documentElement.clientWidth")
        page.screenshot(path=str(artifacts / "cel-error-800.png"), full_page=True)


LONG_BAD_SELECTOR = (
    'device.attributes["gpu.example.com"].model == "LATEST-GPU-MODEL-24G" && device.driver = '
    '"gpu.example.com" && device.attributes["gpu.example.com"].driverVersion == "1.2.0"'
)


def test_explain_follows_the_pod_in_view(browser: Any, server: WebServer, client: Any) -> None:
    status, _ = client.post("/api/apply", {"manifest": BIG_POD})
    assert status == 200
    with opened(browser, server.url, 1280) as page:
        page.click("#pending .pod[data-pod='default/big']")
        page.wait_for_function(
            "document.querySelector('#explain-body').innerText.includes('default/big')"
        )
        page.click("#reset")
        page.click("#step")  # the first decision: the training pod's
        page.wait_for_function(
            "document.querySelector('#explain-body').innerText.includes('default/training')"
        )
        assert page.get_attribute("#explain", "data-pod") == "default/training"
        assert "default/big" not in page.inner_text("#explain-body")


BIG_POD = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: huge
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        selectors:
        - cel:
            expression: device.capacity["gpu.example.com"].memory.compareTo(quantity("80Gi")) >= 0
---
apiVersion: v1
kind: Pod
metadata:
  name: big
spec:
  resourceClaims:
  - name: gpu
    resourceClaimName: huge
  containers:
  - name: c
    image: x
    resources:
      claims:
      - name: gpu
"""
