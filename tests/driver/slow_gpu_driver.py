"""The example GPU driver with a slow prepare, for tests that kill a driver mid-prepare.

Run as a program (``python tests/driver/slow_gpu_driver.py --node-name=... --prepare-delay=30``)
with the standard options of :func:`kubedra.driver.main`; kept out of shipped code.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any

import kubedra.driver as dra
from kubedra.drivers.example_gpu import ExampleGpuDriver


class SlowGpuDriver(ExampleGpuDriver):
    def __init__(self, *args: Any, delay: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.delay = delay

    def prepare(
        self, claims: Sequence[dra.PrepareClaim]
    ) -> Mapping[str, dra.PrepareResult | Exception]:
        results = super().prepare(claims)
        time.sleep(self.delay)  # the window in which a test kills the driver
        return results


def main(argv: list[str]) -> int:
    extra = argparse.ArgumentParser(add_help=False)
    extra.add_argument("--gpus", type=int, default=4)
    extra.add_argument("--prepare-delay", type=float, default=30.0)
    ours, rest = extra.parse_known_args(argv)
    standard = dra.parser().parse_args(rest)
    driver = SlowGpuDriver(
        standard.node_name, standard.cdi_dir, gpus=ours.gpus, delay=ours.prepare_delay
    )
    return dra.main(driver, driver.pools(), rest)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
