"""Runs a driver process: gRPC servers, slice publishing, clean shutdown on SIGTERM/SIGINT."""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Mapping
from types import FrameType

from kubedra.driver.driver_api import DRADriver
from kubedra.driver.helper import PluginHelper
from kubedra.driver.publisher import Pool, ResourceSlicePublisher
from kubedra.driver.server import PluginPaths, PluginServer
from kubedra.driver.store import ClusterStore, DetachedStore

log = logging.getLogger(__name__)


def run_driver(
    driver: DRADriver,
    driver_name: str,
    node_name: str,
    store: ClusterStore,
    paths: PluginPaths,
    pools: Mapping[str, Pool],
    *,
    rolling_update: bool = False,
    resync_interval: float = 5.0,
    stop: threading.Event | None = None,
) -> None:
    """Serve until ``stop`` is set or the process gets SIGTERM/SIGINT."""
    stop = stop or threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        log.info("received signal %d, shutting down", signum)
        stop.set()

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
    helper = PluginHelper(driver, driver_name, store, paths.data_dir, file_lock=rolling_update)
    server = PluginServer(helper, paths)
    publisher = ResourceSlicePublisher(
        store, driver_name, node_name, resync_interval=resync_interval
    )
    server.start()
    try:
        if isinstance(store, DetachedStore):
            log.warning("%s: ResourceSlices are not published", DetachedStore.REASON)
        else:
            publisher.update(pools)
            publisher.start()
        stop.wait()
    finally:
        publisher.stop()
        server.stop()
        log.info("stopped %s", driver_name)
