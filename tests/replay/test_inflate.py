"""``kubedra replay --inflate``: the paper's experiment on clusters small enough to count by
hand (kubedra.replay.inflate, kubedra.replay.inflate_report)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from replay_builders import gpu_class, node
from typer.testing import CliRunner

from kubedra.cli import replay_cmd
from kubedra.replay import parse_trace
from kubedra.replay.devices import NANO, DeviceMeter
from kubedra.replay.inflate import InflateError, InflateOptions, InflateState, Inflation
from kubedra.replay.inflate_report import checkpoints, document, summary
from kubedra.replay.shapes import spec_key
from kubedra.scheduler import SchedulerConfig, new_simulation

DRIVER = "gpu.example.com"
REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "inflate"


def shared_gpus(node_name: str, count: int) -> dict[str, Any]:
    """A slice of ``count`` GPUs handed out in shares of ``gpu_milli`` (1000 each)."""
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node_name}-gpus"},
        "spec": {
            "driver": DRIVER,
            "nodeName": node_name,
            "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
            "devices": [
                {
                    "name": f"gpu-{i}",
                    "allowMultipleAllocations": True,
                    "capacity": {"gpu_milli": {"value": "1000"}},
                }
                for i in range(count)
            ],
        },
    }


def request(milli: int | None = None, count: int = 1) -> dict[str, Any]:
    exactly: dict[str, Any] = {"deviceClassName": DRIVER}
    if count != 1:
        exactly["count"] = count
    if milli is not None:
        exactly["capacity"] = {"requests": {"gpu_milli": str(milli)}}
    return {"name": "gpu", "exactly": exactly}


def template(name: str, milli: int | None = None, count: int = 1) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"spec": {"devices": {"requests": [request(milli, count)]}}},
    }


def task(name: str, template_name: str, at: int = 0) -> dict[str, Any]:
    return {
        "at": at,
        "objects": [
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": name},
                "spec": {
                    "containers": [
                        {
                            "name": "main",
                            "image": "busybox",
                            "resources": {"claims": [{"name": "gpu"}]},
                        }
                    ],
                    "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": template_name}],
                },
            }
        ],
    }


TEMPLATES = [
    template("share-600", 600),
    template("share-500", 500),
    template("share-400", 400),
    template("share-300", 300),
    template("whole", None),
]


def inflate(
    cluster: list[dict[str, Any]],
    entries: list[dict[str, Any]],
    options: InflateOptions,
    placement: str | None = None,
) -> InflateState:
    sim = new_simulation(SchedulerConfig(placement=placement), seed=options.seed)
    assert sim.load(cluster) == []
    return Inflation(sim, parse_trace(entries, "trace.yaml"), options).run()


def three_gpus() -> list[dict[str, Any]]:
    return [gpu_class(), node("node-a", cpu="64"), shared_gpus("node-a", 3), *TEMPLATES]


def test_unallocated_devices_counted_by_hand() -> None:
    """One node with three GPUs of 1000 gpu_milli (capacity: 3 devices; --until-demand 1.3
    stops before the arrived demand passes 3.9), the default profile (devices first-fit, in
    pool order), six tasks in trace order:

    ====  ==========  ========  =================================  =========  =========
    task  asks for    arrived   placed on                          allocated  in use
    ====  ==========  ========  =================================  =========  =========
    a     0.6         0.6       gpu-0 (0.4 left)                   0.6        1
    b     a whole     1.6       gpu-1 (gpu-0 is in use)            1.6        2
    c     0.6         2.2       gpu-2 (gpu-0 has 0.4)              2.2        3
    d     0.5         2.7       fails: 0.4, 0 and 0.4 left; gone   2.2        3
    e     0.4         3.1       gpu-0 (first fit), now full        2.6        3
    f     a whole     (4.1)     does not arrive: 4.1 > 3.9
    ====  ==========  ========  =================================  =========  =========

    So 5 tasks arrived (3.1 of 3 devices: 103.33%), 4 placed, 1 failed (task 4, at
    2.7 / 3 = 90%), 2.6 devices allocated and 0.4 unallocated. At 100% of the devices the
    figures are those after d (the last task that kept the arrived demand at or below 3):
    0.8 unallocated; at 50% those after a (1.6 would pass 1.5): 2.4 unallocated. Nothing is
    stranded: the 0.4 left on gpu-2 fits task e's shape."""
    entries = [
        task("a", "share-600"),
        task("b", "whole"),
        task("c", "share-600"),
        task("d", "share-500"),
        task("e", "share-400"),
        task("f", "whole"),
    ]
    state = inflate(three_gpus(), entries, InflateOptions(until_demand=1.3))
    s = summary(state)
    assert {
        k: s[k]
        for k in (
            "totalDevices",
            "tasks",
            "sampledTasks",
            "pods",
            "placed",
            "failed",
            "arrivedDemand",
            "arrivedDevices",
            "allocatedDevices",
            "unallocatedDevices",
            "devicesInUse",
            "strandedDevices",
            "strandedCapacity",
        )
    } == {
        "totalDevices": 3,
        "tasks": 5,
        "sampledTasks": 0,
        "pods": 5,
        "placed": 4,
        "failed": 1,
        "arrivedDemand": 1.033333,
        "arrivedDevices": 3.1,
        "allocatedDevices": 2.6,
        "unallocatedDevices": 0.4,
        "devicesInUse": 3,
        "strandedDevices": 0,
        "strandedCapacity": {},
    }
    first = s["firstFailure"]
    assert (first["task"], first["pod"], first["arrivedDemand"]) == (4, "default/d", 0.9)
    assert "cannot allocate all claims" in first["message"]
    at = {p["demand"]: p for p in s["atDemand"]}
    assert (at[1.0]["tasks"], at[1.0]["unallocatedDevices"], at[1.0]["failed"]) == (4, 0.8, 1)
    assert (at[0.5]["tasks"], at[0.5]["unallocatedDevices"]) == (1, 2.4)
    assert (at[1.3]["tasks"], at[1.3]["unallocatedDevices"]) == (5, 0.4)
    assert s["capacity"] == {"gpu_milli": {"total": 3000.0, "allocated": 2600.0}}
    doc = document(state)
    assert [t["failed"] for t in doc["tasks"]] == [[], [], [], ["default/d"], []]
    assert doc["series"]["unallocatedDevices"] == [3.0, 2.4, 1.4, 0.8, 0.8, 0.4]


def test_tasks_are_drawn_again_once_the_trace_runs_out() -> None:
    """Two GPUs and a trace of one task asking for 0.3: with --until-demand 1 (2 devices) the
    task arrives, then copies drawn from the trace (the only task) until the next would pass
    2: 6 tasks, 1.8 arrived. First fit puts three on gpu-0 and three on gpu-1; each keeps 0.1,
    which no task of the trace could use: 200 gpu_milli stranded, 0.2 unallocated."""
    cluster = [gpu_class(), node("node-a", cpu="64"), shared_gpus("node-a", 2), *TEMPLATES]
    state = inflate(cluster, [task("t", "share-300")], InflateOptions(until_demand=1.0, seed=7))
    s = summary(state)
    assert (s["tasks"], s["sampledTasks"], s["placed"], s["failed"]) == (6, 5, 6, 0)
    assert (s["allocatedDevices"], s["unallocatedDevices"]) == (1.8, 0.2)
    assert s["strandedCapacity"] == {"gpu_milli": 200.0}
    pods = [p for t in document(state)["tasks"] for p in t["pods"]]
    assert pods == ["default/t"] + [f"default/t-tuned-{k}" for k in range(5)]


def test_the_same_seed_gives_the_same_order_and_draws() -> None:
    """--shuffle draws the order with the seed; the same seed repeats it exactly."""
    entries = [task(f"t{i}", ("share-300", "share-600", "whole")[i % 3]) for i in range(9)]
    cluster = [gpu_class(), node("node-a", cpu="64"), shared_gpus("node-a", 4), *TEMPLATES]

    def order(seed: int) -> list[str]:
        state = inflate(cluster, entries, InflateOptions(until_demand=2.0, seed=seed, shuffle=True))
        return [p for t in document(state)["tasks"] for p in t["pods"]]

    first = order(3)
    assert first == order(3)
    assert sorted(first[:9]) == sorted(f"default/t{i}" for i in range(9))
    assert first[:9] != [f"default/t{i}" for i in range(9)]  # shuffled
    assert any("-tuned-" in name for name in first[9:])


def test_demand_counts_device_equivalents() -> None:
    """A request for 2 whole devices asks for 2; a share of 460 gpu_milli for 0.46; a
    firstAvailable request for its first subrequest (here a whole device)."""
    sim = new_simulation()
    assert sim.load(three_gpus()) == []
    meter = DeviceMeter(sim.scheduler.dra)  # type: ignore[attr-defined]
    meter.update(0.0)

    def demand(*requests: dict[str, Any]) -> float:
        return meter.demand((spec_key({"devices": {"requests": list(requests)}}),)) / NANO

    assert demand(request(None, count=2)) == 2.0
    assert demand(request(460)) == 0.46
    first_available = {
        "name": "gpu",
        "firstAvailable": [
            {"name": "whole", "deviceClassName": DRIVER},
            {
                "name": "half",
                "deviceClassName": DRIVER,
                "capacity": {"requests": {"gpu_milli": "500"}},
            },
        ],
    }
    assert demand(first_available) == 1.0


def test_checkpoints_every_tenth_and_the_end() -> None:
    assert checkpoints(0.25) == [0.1, 0.2, 0.25]
    assert checkpoints(1.0)[-2:] == [0.9, 1.0]
    assert checkpoints(1.3)[-1] == 1.3 and len(checkpoints(1.3)) == 13


def test_traces_it_cannot_inflate() -> None:
    cordon = {"at": 0, "cordon": "node-a"}
    with pytest.raises(InflateError, match=r"entry 2 is an action \(cordon node-a\)"):
        inflate(three_gpus(), [task("a", "whole"), cordon], InflateOptions())
    no_devices = [gpu_class(), node("node-a"), *TEMPLATES]
    with pytest.raises(InflateError, match="no device of the cluster can serve"):
        inflate(no_devices, [task("a", "whole")], InflateOptions())
    cpu_only = {
        "at": 0,
        "objects": [
            task("a", "whole")["objects"][0]
            | {"spec": {"containers": [{"name": "m", "image": "busybox"}]}}
        ],
    }
    with pytest.raises(InflateError, match="no device of the cluster can serve"):
        inflate(three_gpus(), [cpu_only], InflateOptions())


def kubedra(*args: str) -> Any:
    app = typer.Typer()
    app.command("version")(lambda: None)
    replay_cmd.register(app)
    return CliRunner().invoke(app, ["replay", *args])


def test_the_example_under_best_fit_and_fgd() -> None:
    """examples/inflate (examples/README.md): best-fit puts the 0.2 notebook beside the 0.7
    share (the fullest GPU), the three 0.3 shares fill worker-2 to 0.1 and the last 0.2 fails:
    1.8 of 2 devices allocated. FGD, planning for the trace's shapes, keeps worker-1's 0.3 for
    a 0.3 share: all six placed."""
    base = [str(EXAMPLE), "--trace", str(EXAMPLE / "tasks.trace"), "--inflate"]
    base += ["--until-demand", "1", "-o", "json"]
    best = json.loads(kubedra(*base, "--policy", "best-fit").stdout)["summary"]
    fgd = json.loads(kubedra(*base, "--policy", "fgd").stdout)["summary"]
    assert (best["placed"], best["failed"], best["unallocatedDevices"]) == (5, 1, 0.2)
    assert best["firstFailure"]["pod"] == "default/tuning"
    assert best["strandedCapacity"] == {"share": 0.2}
    assert (fgd["placed"], fgd["failed"], fgd["unallocatedDevices"]) == (6, 0, 0.0)
    assert fgd["totalDevices"] == 2 and fgd["arrivedDemand"] == 1.0


def test_text_report_and_series_csv(tmp_path: Path) -> None:
    out = tmp_path / "series.csv"
    result = kubedra(
        str(EXAMPLE),
        "--trace",
        str(EXAMPLE / "tasks.trace"),
        "--inflate",
        "--until-demand",
        "1",
        "--policy",
        "best-fit",
        "--series",
        str(out),
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].endswith(
        "6 task(s) arrived (6 of the trace in trace order, 0 drawn from "
        "it with seed 0), 5 pod(s) placed, 1 failed"
    )
    assert lines[1].startswith("First failure: task 6 (entry 6, pod default/tuning) at arrived")
    assert any(
        line.startswith("At the end: 1.80 of 2 devices allocated (90.00%)") for line in lines
    )
    rows = out.read_text().splitlines()
    assert rows[0].startswith("tasks,arrived_demand,allocated_devices,unallocated_devices")
    assert len(rows) == 1 + 7  # before the first task, then one per task


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--until-demand", "1.3"], "--until-demand needs --inflate"),
        (["--shuffle"], "--shuffle needs --inflate"),
        (["--inflate", "--until", "1h"], "--until is for a replay over time, not --inflate"),
        (["--inflate", "--until-demand", "0"], "--until-demand 0: must be above 0"),
        (["--workers", "2"], "--workers is for --compare, --policy a,b,... and --sweep"),
    ],
)
def test_bad_flags(args: list[str], message: str) -> None:
    result = kubedra(str(EXAMPLE), "--trace", str(EXAMPLE / "tasks.trace"), *args)
    assert result.exit_code == 1
    assert f"error: {message}" in result.output
    assert "Traceback" not in result.output
