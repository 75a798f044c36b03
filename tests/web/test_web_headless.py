"""The screenshot command users naturally try (issue 22, finding 6): ``chromium --headless
--screenshot --virtual-time-budget=...`` waits for every open request before virtual time may
run out, so a page holding a stream open never finishes. The page polls instead: the real
command ends, and what it rendered is the cluster as it is now."""

from __future__ import annotations

import subprocess
from pathlib import Path

from kubedra.web import WebServer

HEADLESS = ["--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000"]
LIMIT_SECONDS = 60
"""Far more than the few seconds it takes: a page that never settles hits it."""


def run_chromium(chromium_path: str, *args: str, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [chromium_path, *HEADLESS, f"--user-data-dir={home / 'profile'}", *args],
        capture_output=True,
        text=True,
        timeout=LIMIT_SECONDS,
        check=False,
        env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
    )


def test_headless_screenshot_with_a_virtual_time_budget_finishes(
    chromium_path: str, server: WebServer, tmp_path: Path, artifacts: Path
) -> None:
    shot = artifacts / "headless-chromium.png"
    done = run_chromium(
        chromium_path, f"--screenshot={shot}", "--window-size=1280,900", server.url + "/",
        home=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 20_000  # a page, not a blank


def test_headless_dom_is_the_live_cluster(
    chromium_path: str, server: WebServer, tmp_path: Path
) -> None:
    done = run_chromium(chromium_path, "--dump-dom", server.url + "/", home=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    assert 'id="stepinfo" aria-live="polite">live · 1 decision to replay<' in dom
    assert 'class="slot bound" data-device="gpu-b"' in dom
    assert 'class="conn up" role="status">● live<' in dom
    assert "24Gi used · 20Gi free" in dom
