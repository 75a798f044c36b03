"""Take the web page pictures the documentation shows (docs/images/web-*.png).

Runs the built-in gpu-demo in ``kubedra serve``'s web app
in this process and drives Debian's headless chromium with Playwright (the dev extra), as
the browser tests do. Rerun it when the page changes:

    python scripts/docs_screenshots.py            # writes docs/images/web-*.png
    python scripts/docs_screenshots.py --out DIR  # anywhere else
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from kubedra.api.io import load_text  # noqa: E402
from kubedra.cluster.examples import require_example  # noqa: E402
from kubedra.scheduler import new_simulation  # noqa: E402
from kubedra.web import WebServer  # noqa: E402

WIDTH = 1360
MEM_10G = 'device.capacity["gpu.example.com"].memory.compareTo(quantity("10Gi")) >= 0'
TOO_BIG = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: huge}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        selectors:
        - cel:
            expression: device.capacity["gpu.example.com"].memory.compareTo(quantity("32Gi")) >= 0
---
apiVersion: v1
kind: Pod
metadata: {name: big}
spec:
  resourceClaims: [{name: gpu, resourceClaimName: huge}]
  containers: [{name: c, image: x, resources: {claims: [{name: gpu}]}}]
"""


def _settle(page: Any) -> None:
    page.wait_for_function("document.getAnimations().length === 0")


def _shot(page: Any, path: Path, height: int = 560) -> None:
    _settle(page)
    page.screenshot(path=str(path), clip={"x": 0, "y": 0, "width": WIDTH, "height": height})
    print(path)


def _gpu_demo() -> WebServer:
    simulation = new_simulation()
    loaded = load_text(require_example("gpu-demo"), "gpu-demo")
    assert not simulation.load([o.wire for o in loaded.objects])
    return WebServer(simulation, port=0)


def take(out: Path, chromium: str) -> None:
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        context = browser.new_context(
            viewport={"width": WIDTH, "height": 900}, reduced_motion="reduce"
        )
        with _gpu_demo() as server:
            page = context.new_page()
            page.goto(server.url + "/")
            page.wait_for_selector(".slot[data-device='gpu-b']")
            page.click("#reset")  # before the first decision, however the page opens
            page.click("#step")  # the claim's request
            page.click("#step")  # candidates, the others with the reason
            _shot(page, out / "web-candidates.png")
            for _ in range(10):
                if page.locator(".node .pod[data-pod='default/training']").count():
                    break
                page.click("#step")
            _shot(page, out / "web-bound.png")
            page.fill("#selector", MEM_10G)
            page.wait_for_function("document.querySelectorAll('.slot.match').length === 2")
            _shot(page, out / "web-selector.png")
            page.fill("#selector", "")
            page.fill("#manifest", TOO_BIG)
            page.click("#apply")
            page.wait_for_selector("#pending .pod[data-pod='default/big']", timeout=15000)
            page.click("#live")
            page.wait_for_selector("#live.on", timeout=15000)
            page.click("#pending .pod[data-pod='default/big']")
            page.wait_for_selector("#explain:not([hidden])")
            page.locator("#explain").scroll_into_view_if_needed()
            _settle(page)
            page.locator("#explain").screenshot(path=str(out / "web-explain.png"))
            print(out / "web-explain.png")
        context.close()
        browser.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "images")
    args = parser.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("docs_screenshots.py: needs chromium (apt-get install chromium)", file=sys.stderr)
        return 2
    take(args.out, chromium)
    return 0


if __name__ == "__main__":
    sys.exit(main())
