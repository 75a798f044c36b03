"""Steps of the step-through: built once per decision, rebuilt when devices change."""

from __future__ import annotations

from importlib import resources

from kubedra.api.io import load_text
from kubedra.cluster.simulation import Simulation
from kubedra.scheduler import new_simulation
from kubedra.web.steps import StepCache, decision_steps


def demo_simulation() -> Simulation:
    text = (resources.files("kubedra.cluster") / "examples" / "gpu-demo.yaml").read_text()
    simulation = new_simulation()
    assert not simulation.load([o.wire for o in load_text(text, "gpu-demo").objects])
    return simulation


def test_cache_reuses_steps_and_rebuilds_after_a_slice_change() -> None:
    simulation = demo_simulation()
    simulation.run()
    store, decisions = simulation.store, simulation.scheduler.decisions
    cache = StepCache()
    first = cache.steps(store, decisions)
    assert first == decision_steps(store, decisions)
    assert cache.steps(store, decisions)[0] is first[0]
    slc = store.get("ResourceSlice", "worker-1-gpu.example.com")
    assert slc is not None
    device = slc["spec"]["devices"][0]
    bigger = {**device, "capacity": {"memory": {"value": "32Gi"}}}
    store.update({**slc, "spec": {**slc["spec"], "devices": [bigger]}})
    rebuilt = cache.steps(store, decisions)
    assert rebuilt[0] is not first[0]
    assert rebuilt[0]["claims"][0]["requests"][0]["candidates"] == [0, 1]  # gpu-a, gpu-b


def test_first_skips_older_decisions() -> None:
    simulation = demo_simulation()
    simulation.run()
    assert StepCache().steps(simulation.store, simulation.scheduler.decisions, 1) == []
