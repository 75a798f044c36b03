"""The helper's contract around a driver: lookup, answers, checkpoint, serialization."""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence

import pytest

from conftest import build_claim
from kubedra.driver.claims import allocated_devices
from kubedra.driver.driver_api import DRADriver
from kubedra.driver.helper import PluginHelper
from kubedra.driver.store_dir import ClusterDirectory
from kubedra.driver.types import ClaimRef, PrepareClaim, PreparedDevice, PrepareResult


class RecordingDriver(DRADriver):
    def __init__(self) -> None:
        self.prepared: list[str] = []
        self.unprepared: list[str] = []
        self.active = 0
        self.max_active = 0
        self.lock = threading.Lock()
        self.fail: dict[str, Exception] = {}
        self.omit: set[str] = set()
        self.cdi_ids: tuple[str, ...] = ("vendor.com/gpu=x",)

    def prepare(self, claims: Sequence[PrepareClaim]) -> Mapping[str, PrepareResult | Exception]:
        with self.lock:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        threading.Event().wait(0.01)
        results: dict[str, PrepareResult | Exception] = {}
        for claim in claims:
            self.prepared.append(claim.ref.uid)
            if claim.ref.uid in self.omit:
                continue
            results[claim.ref.uid] = self.fail.get(claim.ref.uid) or PrepareResult(
                devices=tuple(
                    PreparedDevice(d.pool, d.device, (d.request,), self.cdi_ids)
                    for d in claim.devices
                )
            )
        with self.lock:
            self.active -= 1
        return results

    def unprepare(self, claims: Sequence[ClaimRef]) -> Mapping[str, Exception | None]:
        self.unprepared.extend(c.uid for c in claims)
        return {c.uid: None for c in claims}


@pytest.fixture
def cluster(tmp_path) -> ClusterDirectory:
    return ClusterDirectory(tmp_path / "cluster")


@pytest.fixture
def driver() -> RecordingDriver:
    return RecordingDriver()


@pytest.fixture
def helper(driver, cluster, tmp_path) -> PluginHelper:
    return PluginHelper(driver, "gpu.example.com", cluster, tmp_path / "plugin")


def ref(name: str) -> ClaimRef:
    return ClaimRef("default", name, f"uid-{name}")


def test_results_of_other_drivers_are_dropped_and_subrequests_mapped(helper, cluster):
    claim = build_claim("a", "uid-a", [("gpu/small", "gpu-0")])
    claim["status"]["allocation"]["devices"]["results"].append(
        {"request": "nic", "driver": "nic.example.com", "pool": "p", "device": "nic-0"}
    )
    cluster.put(claim)
    answers = helper.prepare([ref("a")])
    (device,) = answers["uid-a"].devices
    assert (device.pool, device.device, device.requests) == ("node-1", "gpu-0", ("gpu",))


def test_every_uid_is_answered_even_when_the_driver_forgets_or_fails(helper, driver, cluster):
    for name in ("a", "b", "c"):
        cluster.put(build_claim(name, f"uid-{name}", [("gpu", "gpu-0")]))
    driver.omit = {"uid-b"}
    driver.fail = {"uid-c": RuntimeError("device on fire")}
    answers = helper.prepare([ref("a"), ref("b"), ref("c"), ref("a"), ref("gone")])
    assert set(answers) == {"uid-a", "uid-b", "uid-c", "uid-gone"}
    assert answers["uid-a"].error == ""
    assert "no result for claim default/b" in answers["uid-b"].error
    assert answers["uid-c"].error == "device on fire"
    assert "not found" in answers["uid-gone"].error


def test_a_crashing_driver_becomes_per_claim_errors(helper, driver, cluster):
    cluster.put(build_claim("a", "uid-a", [("gpu", "gpu-0")]))

    def explode(claims):
        raise RuntimeError("boom")

    driver.prepare = explode  # type: ignore[method-assign]
    assert helper.prepare([ref("a")])["uid-a"].error == "prepare failed: boom"


def test_prepared_claims_are_answered_from_the_checkpoint(helper, driver, cluster, tmp_path):
    cluster.put(build_claim("a", "uid-a", [("gpu", "gpu-0")]))
    first = helper.prepare([ref("a")])
    again = PluginHelper(driver, "gpu.example.com", cluster, tmp_path / "plugin")
    assert again.prepare([ref("a")]) == first
    assert driver.prepared == ["uid-a"]
    checkpoint = json.loads((tmp_path / "plugin" / "checkpoint.json").read_text())
    assert checkpoint["claims"]["uid-a"]["state"] == "PrepareCompleted"
    assert helper.unprepare([ref("a")]) == {"uid-a": ""}
    assert json.loads((tmp_path / "plugin" / "checkpoint.json").read_text())["claims"] == {}


def test_a_corrupted_checkpoint_is_reported(helper, cluster, tmp_path):
    cluster.put(build_claim("a", "uid-a", [("gpu", "gpu-0")]))
    helper.prepare([ref("a")])
    path = tmp_path / "plugin" / "checkpoint.json"
    path.write_text(path.read_text().replace("gpu-0", "gpu-1"))
    assert "checksum mismatch" in helper.prepare([ref("a")])["uid-a"].error


def test_failed_claims_are_retried(helper, driver, cluster):
    cluster.put(build_claim("a", "uid-a", [("gpu", "gpu-0")]))
    driver.fail = {"uid-a": RuntimeError("not yet")}
    assert helper.prepare([ref("a")])["uid-a"].error == "not yet"
    driver.fail = {}
    assert helper.prepare([ref("a")])["uid-a"].error == ""
    assert driver.prepared == ["uid-a", "uid-a"]


def test_malformed_cdi_ids_are_per_claim_errors(helper, driver, cluster):
    cluster.put(build_claim("a", "uid-a", [("gpu", "gpu-0")]))
    driver.cdi_ids = ("not-a-cdi-id",)
    error = helper.prepare([ref("a")])["uid-a"].error
    assert 'unqualified device "not-a-cdi-id", missing vendor' in error


def test_unprepare_unknown_claim_succeeds(helper):
    assert helper.unprepare([ref("never")]) == {"uid-never": ""}


def test_calls_are_serialized(helper, driver, cluster):
    for name in "abcdef":
        cluster.put(build_claim(name, f"uid-{name}", [("gpu", "gpu-0")]))
    threads = [threading.Thread(target=helper.prepare, args=([ref(n)],)) for n in "abcdef"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert driver.max_active == 1
    assert sorted(driver.prepared) == [f"uid-{n}" for n in "abcdef"]


def test_configs_apply_class_first_then_claim_and_skip_other_drivers():
    claim = build_claim(
        "a",
        "uid-a",
        [("gpu/small", "gpu-0"), ("other", "gpu-1")],
        config=[
            {
                "source": "FromClaim",
                "requests": ["gpu"],
                "opaque": {"driver": "gpu.example.com", "parameters": {"n": "claim-gpu"}},
            },
            {
                "source": "FromClass",
                "requests": [],
                "opaque": {"driver": "gpu.example.com", "parameters": {"n": "class-all"}},
            },
            {
                "source": "FromClaim",
                "requests": [],
                "opaque": {"driver": "x.example.com", "parameters": {"n": "foreign"}},
            },
            {
                "source": "FromClaim",
                "requests": ["other"],
                "opaque": {"driver": "gpu.example.com", "parameters": {"n": "claim-other"}},
            },
        ],
    )
    small, other = allocated_devices(claim, "gpu.example.com")
    assert [c.parameters["n"] for c in small.configs] == ["class-all", "claim-gpu"]
    assert small.effective_config == {"n": "claim-gpu"}
    assert [c.parameters["n"] for c in other.configs] == ["class-all", "claim-other"]
