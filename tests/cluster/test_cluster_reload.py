"""A simulation's own output (as `kubectl get -o yaml` would show it) loads back unchanged."""

from __future__ import annotations

from pathlib import Path

from kubedra.api.io import dump_yaml, load_paths, load_text
from kubedra.cluster.simulation import Simulation
from kubedra.scheduler import new_simulation

EXAMPLES = Path(__file__).resolve().parent.parent.parent / "examples"


def placements(sim: Simulation) -> dict[str, object]:
    out: dict[str, object] = {}
    for pod in sim.store.list("Pod"):
        out[pod["metadata"]["name"]] = (pod["spec"].get("nodeName"), pod["status"]["phase"])
    for claim in sim.store.list("ResourceClaim"):
        status = claim.get("status") or {}
        results = (status.get("allocation") or {}).get("devices", {}).get("results", [])
        reserved = sorted(r["name"] for r in status.get("reservedFor") or [])
        out[claim["metadata"]["name"]] = ([r["device"] for r in results], reserved)
    return out


def test_exported_state_reloads_with_owners_and_reservations_remapped() -> None:
    first = new_simulation()
    loaded = load_paths([EXAMPLES / "claim-templates"])
    assert first.load([o.wire for o in loaded.objects]) == []
    first.run()
    exported = load_text(dump_yaml(first.objects()))
    assert exported.errors == []

    again = new_simulation(seed=99)
    assert again.load([o.wire for o in exported.objects]) == []
    again.run()
    assert placements(again) == placements(first)
    for claim in again.store.list("ResourceClaim"):
        [owner] = claim["metadata"]["ownerReferences"]
        pod = again.store.get("Pod", owner["name"], "default")
        assert pod is not None and owner["uid"] == pod["metadata"]["uid"]
        [reserved] = claim["status"]["reservedFor"]
        assert reserved["uid"] == pod["metadata"]["uid"]
    # Nothing was rescheduled or regenerated: the same two claims, no new ones.
    assert len(again.store.list("ResourceClaim")) == 2
