"""Fixtures: the gpu-demo served by the web app on 127.0.0.1, HTTP helpers, a headless
Chromium (Debian's, driven by Playwright; no browser download) and an artifacts folder."""

from __future__ import annotations

import json
import os
import shutil
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from kubedra.api.io import load_text
from kubedra.cluster.simulation import Simulation
from kubedra.scheduler import new_simulation
from kubedra.web import WebServer


def demo_simulation() -> Simulation:
    text = (resources.files("kubedra.cluster") / "examples" / "gpu-demo.yaml").read_text()
    loaded = load_text(text, "gpu-demo")
    simulation = new_simulation()
    assert not simulation.load([o.wire for o in loaded.objects])
    return simulation


@dataclass
class Client:
    """JSON over HTTP against a running server; answers (status, parsed body)."""

    base: str

    def call(
        self, method: str, path: str, body: Any = None, raw: bytes | None = None
    ) -> tuple[int, Any]:
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        headers = {"Content-Type": "application/json"} if data is not None else {}
        request = urllib.request.Request(
            self.base + path, data=data, method=method, headers=headers
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as resp:
                status, payload = resp.status, resp.read()
        except urllib.error.HTTPError as error:
            status, payload = error.code, error.read()
        try:
            return status, json.loads(payload)
        except ValueError:
            return status, payload.decode()

    def get(self, path: str) -> tuple[int, Any]:
        return self.call("GET", path)

    def post(self, path: str, body: Any = None, raw: bytes | None = None) -> tuple[int, Any]:
        return self.call("POST", path, body, raw)


@pytest.fixture
def server() -> Iterator[WebServer]:
    with WebServer(demo_simulation()) as running:
        yield running


@pytest.fixture
def client(server: WebServer) -> Client:
    return Client(server.url)


@pytest.fixture
def artifacts(tmp_path: Path) -> Path:
    """Where screenshots go: $KUBEDRA_ARTIFACTS if set, else this test's tmp dir."""
    where = os.environ.get("KUBEDRA_ARTIFACTS")
    path = Path(where) if where else tmp_path / "artifacts"
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="session")
def chromium_path() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed: CI must install Debian's chromium (.ci/run)")
        pytest.skip("chromium is not installed (apt-get install chromium) - browser tests skipped")
    return found


@pytest.fixture(scope="session")
def browser(chromium_path: str) -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("playwright is not installed: it is in the dev extra")
        pytest.skip("playwright is not installed (pip install playwright)")
    with sync_playwright() as pw:
        launched = pw.chromium.launch(
            executable_path=chromium_path, args=["--no-sandbox", "--disable-gpu"]
        )
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any, server: WebServer) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1360, "height": 900})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.goto(server.url + "/")
    opened.wait_for_selector(".slot[data-device='gpu-b']")
    opened.wait_for_selector(".conn.up")
    yield opened
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
