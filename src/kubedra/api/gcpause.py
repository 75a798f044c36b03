"""Pausing Python's cyclic garbage collector while large object trees are built.

Loading a big cluster creates millions of small dicts and lists. Each time enough of them have
been allocated the collector runs and scans everything still alive, so the work grows with the
square of the input: for 5000 ResourceSlices it made type checking five times slower. Decoded
manifests hold no reference cycles, so nothing is lost by collecting only afterwards.

When the block ends, what it created would all sit in the youngest generation, and the
collector's next run would scan all of it at once (a tenth to a sixth of a large simulation).
It is promoted to the oldest generation instead (``gc.freeze()`` then ``gc.unfreeze()``):
nothing is lost, cycles among it are found by the next full collection, which CPython runs
when the old generation has grown by a quarter, or at exit. A program that froze objects
itself keeps them frozen (the promotion is skipped then).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """Disable the cyclic collector inside the block (reference counting still frees memory)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()
