"""Evaluation and compile speed of DRA device selectors.

Run as ``python benchmarks/bench_cel.py [--devices N] [--rounds R]``. Each selector is
compiled once and evaluated with ``CompiledSelector.matches`` over N distinct devices (as
the allocator does: ``CelDevice`` built once per device, outside the timing); the best of R
rounds is reported in microseconds per evaluation. Compile time is measured on expressions
the cache has not seen. Target (issue 3): <= 2 us per evaluation of the memory selector.
"""

from __future__ import annotations

import argparse
import gc
import time

from kubedra.cel import compile_selector
from kubedra.cel.device import CelDevice

DRIVER = "gpu.example.com"
SELECTORS = {
    "memory": 'device.capacity["gpu.example.com"].memory.compareTo(quantity("16Gi")) >= 0',
    "matches": 'device.attributes["gpu.example.com"].model.matches("^(A|H)[0-9]+$")',
    "exists": 'device.attributes["gpu.example.com"].links.exists(l, l == 5)',
    "equality": 'device.attributes["gpu.example.com"].model == "A100"',
    "semver": 'device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.2.0"))',
    "and": 'device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].numa < 2',
}


def make_devices(count: int) -> list[CelDevice]:
    models = ["A100", "H100", "L4", "T4"]
    devices = []
    for i in range(count):
        raw = {
            "name": f"gpu-{i}",
            "attributes": {
                "model": {"string": models[i % len(models)]},
                "numa": {"int": i % 4},
                "driverVersion": {"version": f"1.{i % 5}.{i % 3}"},
                "links": {"ints": [i % 7, (i + 3) % 7, (i + 5) % 7]},
                "uuid": {"string": f"GPU-{i:08x}"},
            },
            "capacity": {
                "memory": {"value": f"{8 * (1 + i % 8)}Gi"},
                "cores": {"value": str(1000 + i % 64)},
            },
        }
        devices.append(CelDevice.from_v1(raw, DRIVER))
    return devices


def time_matches(expression: str, devices: list[CelDevice], rounds: int) -> float:
    matches = compile_selector(expression).matches
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for device in devices:
            matches(device)
        best = min(best, time.perf_counter() - start)
    return best / len(devices) * 1e6


def time_compile(expression: str, repeats: int) -> float:
    """Microseconds to compile a selector not yet in the cache (a distinct suffix each time)."""
    start = time.perf_counter()
    for i in range(repeats):
        compile_selector(f"({expression}) || {i} == -1")
    return (time.perf_counter() - start) / repeats * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    devices = make_devices(args.devices)
    gc.freeze()
    print(f"{args.devices} distinct devices, best of {args.rounds} rounds")
    print(f"{'selector':10} {'us/eval':>8} {'compile us':>11}  expression")
    for name, expression in SELECTORS.items():
        per_eval = time_matches(expression, devices, args.rounds)
        compile_us = time_compile(expression, 50)
        print(f"{name:10} {per_eval:8.3f} {compile_us:11.0f}  {expression}")


if __name__ == "__main__":
    main()
