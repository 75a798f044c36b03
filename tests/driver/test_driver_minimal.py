"""The minimal driver of docs/guides/driver-kit.md, run as written: publish, allocate,
prepare, CDI spec, unprepare."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys

from test_driver_e2e import allocate

from conftest import REPO, build_pod, kubedra_command, listening, subprocess_env, wait_for
from kubedra.driver.cdi import validate_spec
from kubedra.driver.store_dir import ClusterDirectory

DRIVER = "counter.example.com"


def minimal_driver() -> str:
    """The first Python block of the guide's "A minimal driver" section."""
    text = (REPO / "docs" / "guides" / "driver-kit.md").read_text()
    section = text.split("## A minimal driver", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "no Python block under 'A minimal driver'"
    return match.group(1)


def test_the_minimal_driver_is_short_with_one_import():
    code = minimal_driver()
    assert len(code.splitlines()) <= 25
    imports = [line for line in code.splitlines() if re.match(r"\s*(import|from)\s", line)]
    assert imports == ["import kubedra.driver as dra"]


def test_the_minimal_driver_ships_as_examples_counter_py():
    """The guide's shell block runs ``python examples/counter.py``: it must be that very code."""
    assert (REPO / "examples" / "counter.py").read_text() == minimal_driver()


def test_the_minimal_driver_runs_end_to_end(driver_dirs, short_tmp):
    program = short_tmp / "counter.py"
    program.write_text(minimal_driver())
    cluster = ClusterDirectory(driver_dirs.cluster)
    cluster.register_node("node-1")
    cluster.put(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": DRIVER},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
        }
    )
    log = open(short_tmp / "driver.log", "wb")  # noqa: SIM115
    driver = subprocess.Popen(
        [
            sys.executable,
            str(program),
            "--node-name=node-1",
            f"--registry-dir={driver_dirs.registry}",
            f"--plugin-dir={driver_dirs.plugins}",
            f"--cdi-dir={driver_dirs.cdi}",
            f"--cluster-dir={driver_dirs.cluster}",
            "--resync-interval=0.2",
        ],
        env=subprocess_env(),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    sim = None
    try:
        (published,) = wait_for(  # publish
            lambda: cluster.list_resource_slices(DRIVER, "node-1"), what="published slices"
        )
        assert [d["name"] for d in published["spec"]["devices"]] == [
            f"counter-{i}" for i in range(4)
        ]
        assert listening(driver_dirs.registry / f"{DRIVER}-reg.sock")
        cluster.put(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceClaim",
                "metadata": {"name": "two", "namespace": "default"},
                "spec": {
                    "devices": {
                        "requests": [
                            {"name": "c", "exactly": {"deviceClassName": DRIVER, "count": 2}}
                        ]
                    }
                },
            }
        )
        pod = build_pod("counting", "pod-counting", ["two"])
        cluster.put(pod)
        allocate(cluster, pod, ["two"])  # allocate
        uid = cluster.get("ResourceClaim", "two", "default")["metadata"]["uid"]
        report_path = short_tmp / "sim.json"
        sim = subprocess.Popen(  # prepare
            kubedra_command(
                "kubelet-sim",
                "--node-name=node-1",
                f"--registry-dir={driver_dirs.registry}",
                f"--cdi-dir={driver_dirs.cdi}",
                f"--cluster-dir={driver_dirs.cluster}",
                "--interval=0.1",
                f"--report={report_path}",
            ),
            env=subprocess_env(),
            stdout=subprocess.DEVNULL,
        )
        spec_path = driver_dirs.cdi / f"k8s.{DRIVER}-device_{uid}.json"
        wait_for(spec_path.exists, what="the claim's CDI spec")  # CDI spec
        spec = json.loads(spec_path.read_text())
        assert validate_spec(spec) == []
        assert spec["kind"] == f"k8s.{DRIVER}/device"
        assert {d["name"]: d["containerEdits"]["env"] for d in spec["devices"]} == {
            f"{uid}-counter-0": ["COUNTER=counter-0"],
            f"{uid}-counter-1": ["COUNTER=counter-1"],
        }
        pod["status"]["phase"] = "Succeeded"  # unprepare
        cluster.put(pod)
        wait_for(lambda: not spec_path.exists(), what="the CDI spec removed")
        sim.send_signal(signal.SIGTERM)
        assert sim.wait(timeout=30) == 0
        report = json.loads(report_path.read_text())
        assert report["violations"] == [] and report["failures"] == []
        assert report["latencyMs"]["prepare"]["count"] >= 1
        assert report["prepared"] == {}
        driver.send_signal(signal.SIGTERM)
        assert driver.wait(timeout=30) == 0, (short_tmp / "driver.log").read_text()
    finally:
        for proc in (sim, driver):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)
        log.close()
