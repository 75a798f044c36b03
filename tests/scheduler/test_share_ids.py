"""shareIDs of the simulated cluster come from its seeded generator: the same seed writes the
same claims (upstream draws random UUIDs; which device a share gets does not depend on it)."""

from __future__ import annotations

import re
from pathlib import Path

from kubedra.api.io import load_paths
from kubedra.scheduler import new_simulation

EXAMPLE = Path(__file__).resolve().parent.parent.parent / "examples" / "consumable-capacity"
UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def _claims(seed: int | None) -> dict[str, list[tuple[str, str | None]]]:
    loaded = load_paths([EXAMPLE])
    sim = new_simulation(seed=seed)
    assert sim.load([o.wire for o in loaded.objects]) == []
    sim.run()
    out = {}
    for claim in sim.store.list("ResourceClaim"):
        allocation = (claim.get("status") or {}).get("allocation") or {}
        results = (allocation.get("devices") or {}).get("results") or []
        out[claim["metadata"]["name"]] = [(r["device"], r.get("shareID")) for r in results]
    return out


def test_the_same_seed_gives_the_same_share_ids() -> None:
    first, again = _claims(None), _claims(None)
    assert first == again
    share_ids = [share for results in first.values() for _, share in results]
    assert len(share_ids) == 2
    assert all(share is not None and UUID4.match(share) for share in share_ids)
    assert len(set(share_ids)) == 2


def test_another_seed_gives_other_share_ids_on_the_same_devices() -> None:
    one, other = _claims(1), _claims(2)
    assert {k: [d for d, _ in v] for k, v in one.items()} == {
        k: [d for d, _ in v] for k, v in other.items()
    }
    assert [s for v in one.values() for _, s in v] != [s for v in other.values() for _, s in v]
