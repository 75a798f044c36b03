"""Fuzz the allocator with mutated conformance cases: no Python error escapes, every call
ends in time.

A mutation replaces a value somewhere in a case's input with one of another type or an edge
value (huge or negative numbers, odd strings, empty containers), deletes a field, or
duplicates a list entry; each case gets one to three. A case must then either give a result
or fail with the harness's or the allocator's own error (CaseError, InputError,
QuantityError: clear messages naming object and field), within the allocator's time bound.

    python tests/allocator/allocator_fuzz.py --cases 10000 --seed 1   # a large run

CI runs a small budget through tests/allocator/test_alloc_fuzz.py.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kubedra.allocator.engine import Allocator
from kubedra.allocator.features import Features
from kubedra.allocator.inputs import InputError
from kubedra.allocator.quantities import QuantityError
from kubedra.allocator.schedule import FirstFitScheduler
from kubedra.api.defaults import apply_defaults
from kubedra.conformance.errors import CaseError
from kubedra.conformance.runner import evaluate_case

CLEAN_ERRORS = (CaseError, InputError, QuantityError)

_ODD_VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    1,
    2**63,
    10**30,
    1.5,
    "",
    "x",
    "-1",
    "1e400",
    "10Gi",
    "All",
    "ExactCount",
    "NoSchedule",
    "gpu.example.com",
    "a" * 300,
    [],
    [1],
    ["x"],
    [{}],
    {},
    {"x": 1},
    {"string": "x"},
    {"value": "1"},
]


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            out.extend(_paths(item, (*path, key)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out.extend(_paths(item, (*path, i)))
    return out


def _parent(root: Any, path: tuple[Any, ...]) -> Any:
    for key in path[:-1]:
        root = root[key]
    return root


def mutate(case: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A copy of ``case`` with one to three mutations in its input."""
    out = copy.deepcopy(case)
    out.pop("expected", None)
    for _ in range(rng.randint(1, 3)):
        paths = [p for p in _paths(out["input"]) if p]
        if not paths:
            break
        path = rng.choice(paths)
        parent = _parent(out["input"], path)
        key = path[-1]
        action = rng.random()
        if action < 0.6:
            parent[key] = copy.deepcopy(rng.choice(_ODD_VALUES))
        elif action < 0.8:
            del parent[key]
        elif isinstance(parent, list):
            parent.insert(key, copy.deepcopy(parent[key]))
        elif isinstance(parent[key], (int, float)) and not isinstance(parent[key], bool):
            parent[key] = rng.choice([0, -1, 33, 10**9, parent[key] + 1])
        else:
            parent[key] = copy.deepcopy(rng.choice(_ODD_VALUES))
    return out


def _listed(data: Any, key: str) -> list[Any]:
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, list) else []


def _defaulted(objs: list[Any]) -> list[Any]:
    return [apply_defaults(o) if isinstance(o, dict) else o for o in objs]


def evaluate_direct(case: dict[str, Any], timeout: float) -> None:
    """Feed the mutated objects to the Allocator itself, past the case loader's checks: the
    Allocator must explain wrong-typed input on its own."""
    data = case["input"] if isinstance(case.get("input"), dict) else {}
    allocator = Allocator(
        Features.from_gates(case.get("features") or {}),
        _listed(data, "deviceClasses"),
        _listed(data, "resourceSlices"),
        _defaulted(_listed(data, "allocatedClaims")),
        _listed(data, "deviceTaintRules"),
        timeout=timeout,
    )
    if case.get("mode") == "schedule":
        nodes = [n for n in _listed(data, "nodes") if isinstance(n, dict)]
        scheduler = FirstFitScheduler(allocator, nodes)
        for pod in _listed(data, "pods"):
            if isinstance(pod, dict):
                scheduler.schedule("pod", _defaulted(_listed(pod, "claims")))
        return
    node = data.get("node") if isinstance(data.get("node"), dict) else {}
    allocator.allocate(node, _defaulted(_listed(data, "claims")))


@dataclass
class Report:
    cases: int = 0
    results: int = 0
    clean_errors: int = 0
    tracebacks: list[str] = field(default_factory=list)
    slow: list[str] = field(default_factory=list)
    slowest: float = 0.0


def _hard_cases() -> list[dict[str, Any]]:
    """The search-heavy inputs of hard_cases.py as allocate cases, so that mutations of
    them test the time bound too."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import hard_cases

    builders = [
        hard_cases.three_claims_then_unsatisfiable,
        hard_cases.subrequests_with_last_unsatisfiable,
        hard_cases.six_of_identical_then_unsatisfiable,
    ]
    out = []
    for build in builders:
        inputs, node, claims = build()
        data = {
            "node": node,
            "deviceClasses": inputs["classes"],
            "resourceSlices": inputs["slices"],
            "claims": claims,
        }
        out.append({"name": build.__name__, "mode": "allocate", "features": {}, "input": data})
    return out


def load_cases(conformance_dir: Path) -> list[dict[str, Any]]:
    """The shared allocate and schedule cases plus the search-heavy ones (weighted up)."""
    shared = [
        json.loads(p.read_text())
        for mode in ("allocate", "schedule")
        for p in sorted((conformance_dir / mode).glob("*.json"))
    ]
    return shared + _hard_cases() * 10


def run(cases: list[dict[str, Any]], count: int, seed: int, timeout: float = 1.0) -> Report:
    """Evaluate ``count`` mutated cases, alternately through the case runner and directly;
    a schedule case may take one bound per pod and node, so it gets the bound times its pods
    times its nodes as slack."""
    rng = random.Random(seed)
    report = Report()
    for i in range(count):
        base = rng.choice(cases)
        case = mutate(base, rng)
        data = base["input"]
        calls = 1
        if base.get("mode") == "schedule":
            calls = max(1, len(data.get("pods") or [])) * max(1, len(data.get("nodes") or []))
        start = time.perf_counter()
        try:
            if i % 2:
                evaluate_direct(case, timeout)
            else:
                evaluate_case(case, timeout=timeout)
            report.results += 1
        except CLEAN_ERRORS:
            report.clean_errors += 1
        except Exception:
            report.tracebacks.append(
                f"case #{i} (from {base.get('name')}, seed {seed}):\n{traceback.format_exc()}"
            )
        seconds = time.perf_counter() - start
        report.slowest = max(report.slowest, seconds)
        if seconds > timeout * calls + 1.0:
            report.slow.append(f"case #{i} (from {base.get('name')}): {seconds:.1f}s")
        report.cases += 1
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--dir",
        type=Path,
        default=Path(__file__).resolve().parents[2].parent / "shared" / "conformance",
    )
    args = parser.parse_args()
    if not (args.dir / "allocate").is_dir():
        # Say so rather than fuzz the built-in cases alone as if nothing were missing.
        print(
            f"allocator_fuzz.py: no shared conformance cases at {args.dir} (../shared beside "
            "the checkout, or --dir DIR): fuzzing only the built-in search-heavy cases",
            file=sys.stderr,
        )
    report = run(load_cases(args.dir), args.cases, args.seed)
    print(
        f"{report.cases} cases: {report.results} results, {report.clean_errors} clean errors, "
        f"{len(report.tracebacks)} tracebacks, {len(report.slow)} slow "
        f"(slowest {report.slowest:.2f}s)"
    )
    for text in report.tracebacks[:5] + report.slow[:5]:
        print(text)
    return 1 if report.tracebacks or report.slow else 0


if __name__ == "__main__":
    sys.exit(main())
