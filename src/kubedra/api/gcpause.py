"""Pausing Python's cyclic garbage collector while large object trees are built.

Loading a big cluster creates millions of small dicts and lists. Each time enough of them have
been allocated the collector runs and scans everything still alive, so the work grows with the
square of the input: for 5000 ResourceSlices it made type checking five times slower. Decoded
manifests hold no reference cycles, so nothing is lost by collecting only afterwards.
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
            gc.enable()
