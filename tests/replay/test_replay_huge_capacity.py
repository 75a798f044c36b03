"""A device capacity beyond what a float holds (a slice may say ``memory: 1e999``) is metered
at a ceiling: the replay ends, and its JSON document stays JSON (no OverflowError mid-replay,
no Infinity)."""

from __future__ import annotations

import json

from kubedra.replay import Replay, parse_trace, report
from kubedra.replay.devices import METER_CEILING
from kubedra.scheduler import new_simulation
from kubedra.traces import SyntheticOptions, generate


def test_a_capacity_of_1e999_is_metered_at_the_ceiling() -> None:
    made = generate(SyntheticOptions(pods=6, nodes=2, gpus_per_node=2, gpu_memory="1e999", seed=3))
    sim = new_simulation()
    assert sim.load(made.cluster) == []
    state = Replay(sim, parse_trace(made.entries, "trace.yaml")).run()
    document = report.document(state)
    text = json.dumps(document, allow_nan=False)  # raises on inf or nan
    assert json.loads(text)["summary"]["placed"] == 6
    memory = document["summary"]["capacityHours"]["gpu.example.com"]["memory"]
    # 4 GPUs of at most METER_CEILING nano-units each, over the replay's hours.
    hours = state.end / 3600
    assert 1e150 < memory["available"] <= 4 * METER_CEILING / 1e9 * hours
