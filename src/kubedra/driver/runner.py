"""Running a driver: ``start`` gives a handle, ``run`` blocks, ``main`` reads the command line.

``start`` serves the kubelet plugin sockets (named after ``driver.name``), publishes the pools
it is given and returns a :class:`DriverHandle`: ``publish(pools)`` replaces what is published
at any time (diffed and split as the publisher does), ``stop()`` ends it all, and the handle is
a context manager. Background problems (publishing, the kubelet refusing the registration, a
failing health stream) go to ``on_error(subject, error)``; the default logs them, and a hook
that raises stops the driver.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any

from kubedra.api.naming import is_dns1123_subdomain
from kubedra.driver.driver_api import Driver
from kubedra.driver.helper import PluginHelper
from kubedra.driver.metadata import MetadataWriter, check_versions
from kubedra.driver.paths import DEFAULT_CDI_DIR, KUBELET_PLUGINS_DIR, KUBELET_REGISTRY_DIR
from kubedra.driver.publisher import ErrorHook, Pool, ResourceSlicePublisher, log_error
from kubedra.driver.server import PluginPaths, PluginServer
from kubedra.driver.sockets import deprecated_plugins_dir, plugin_paths
from kubedra.driver.store import ClusterStore, DetachedStore, StoreError, open_store
from kubedra.driver.types import (
    ClaimRef,
    DeviceHealth,
    PrepareClaim,
    PreparedDevice,
    PrepareResult,
)

log = logging.getLogger(__name__)

MAX_DRIVER_NAME = 63
Pools = Mapping[str, Pool] | Pool


class RegistrationError(Exception):
    """The kubelet refused the plugin's registration."""


class DriverStopped(Exception):
    """The error hook raised, which stopped the driver (the hook's exception is the cause)."""


def check_driver_name(name: str) -> None:
    """The rules of ``spec.driver`` in a ResourceSlice: a DNS subdomain of at most 63 bytes."""
    if not name:
        raise ValueError("driver name: Required value: set Driver.name")
    problems = list(is_dns1123_subdomain(name))
    if len(name.encode()) > MAX_DRIVER_NAME:
        problems.append(f"must be no more than {MAX_DRIVER_NAME} characters")
    if problems:
        raise ValueError(f"driver name {name!r}: Invalid value: {'; '.join(problems)}")


class _Reporting(Driver):
    """The driver as the kit's servers see it: a failing health stream reaches the error hook."""

    def __init__(self, driver: Driver, report: ErrorHook) -> None:
        self.driver = driver
        self.report = report
        self.name = driver.name

    def prepare(self, claims: Sequence[PrepareClaim]) -> Mapping[str, PrepareResult | Exception]:
        return self.driver.prepare(claims)

    def unprepare(self, claims: Sequence[ClaimRef]) -> Mapping[str, Exception | None]:
        return self.driver.unprepare(claims)

    def still_prepared(self, claim: PrepareClaim, devices: Sequence[str]) -> bool:
        return self.driver.still_prepared(claim, devices)

    def remove_stale_files(self) -> None:
        self.driver.remove_stale_files()

    @property
    def reports_health(self) -> bool:
        return self.driver.reports_health

    def watch_health(self, stop: threading.Event) -> Iterator[Sequence[DeviceHealth]]:
        try:
            yield from self.driver.watch_health(stop)
        except Exception as error:
            self.report(self.driver, error)
            raise


class DriverHandle:
    """A started driver: republish, stop, or wait for it to stop."""

    def __init__(
        self,
        driver: Driver,
        node_name: str,
        store: ClusterStore,
        paths: PluginPaths,
        *,
        rolling_update: bool,
        resync_interval: float,
        on_error: ErrorHook | None,
    ) -> None:
        self.driver = driver
        self.node_name = node_name
        self.store = store
        self.paths = paths
        self.error: BaseException | None = None
        """The exception an ``on_error`` hook raised, which stopped the driver."""
        self._hook = on_error or log_error
        self._lock = threading.Lock()
        self._stopped = threading.Event()  # stopping has begun
        self._done = threading.Event()  # and is over: sockets gone, publisher ended
        self._published = False
        served = _Reporting(driver, self.report)
        metadata = (
            MetadataWriter(driver.name, paths.data_dir, driver.cdi_dir, driver.device_metadata)
            if driver.device_metadata
            else None
        )
        self.helper = PluginHelper(
            served,
            driver.name,
            store,
            paths.data_dir,
            file_lock=rolling_update,
            metadata=metadata,
        )
        self.server = PluginServer(self.helper, paths)
        self._watch_registration()
        self.publisher = ResourceSlicePublisher(
            store, driver.name, node_name, resync_interval=resync_interval, on_error=self.report
        )

    # --- errors ------------------------------------------------------------------------------

    def report(self, subject: object, error: Exception) -> None:
        """Hand a background problem to the hook; a hook that raises stops the driver."""
        try:
            self._hook(subject, error)
        except Exception as raised:
            log.error("error hook raised %r: stopping %s", raised, self.driver.name)
            self.error = raised
            threading.Thread(target=self.stop, name="driver-stop", daemon=True).start()

    def _watch_registration(self) -> None:
        servicer = self.server.registration
        notify = servicer.NotifyRegistrationStatus

        def watched(request: Any, context: Any) -> Any:
            if not request.plugin_registered:
                message = f"kubelet rejected the registration: {request.error}"
                self.report(self.paths.registration_socket, RegistrationError(message))
            return notify(request, context)

        servicer.NotifyRegistrationStatus = watched  # type: ignore[method-assign]

    # --- publishing --------------------------------------------------------------------------

    def publish(self, pools: Pools) -> None:
        """Publish these pools from now on (a single :class:`Pool` is named after the node).

        Checked before anything is written: :class:`PoolError` with the apiserver's message
        leaves the previous pools published.
        """
        self._publish(self.named(pools), check=True)

    def named(self, pools: Pools) -> dict[str, Pool]:
        """``{name: Pool}``; a single pool is named after the node."""
        return {self.node_name: pools} if isinstance(pools, Pool) else dict(pools)

    def _publish(self, desired: dict[str, Pool], *, check: bool) -> None:
        if isinstance(self.store, DetachedStore):
            for name, pool in desired.items():
                self.publisher.check_pool(name, pool, apiserver=check)
            log.warning("%s: ResourceSlices are not published", DetachedStore.REASON)
            return
        self.publisher.update(desired, check=check)
        with self._lock:
            if not self._published and not self._stopped.is_set():
                self._published = True
                self.publisher.start()

    # --- device metadata ---------------------------------------------------------------------

    def update_request_metadata(
        self, claim: ClaimRef, request: str, devices: Sequence[PreparedDevice]
    ) -> int:
        """Rewrite the device metadata of one request of a prepared claim (``request`` may
        name the subrequest the allocation chose) with ``devices``, now carrying their
        ``metadata``; the generation goes up by one and is returned. For details only known
        after preparing (network data after CNI). Raises ``MetadataError`` (a ``ValueError``)
        when device metadata is off or the request was not prepared."""
        return self.helper.update_request_metadata(claim, request, devices)

    # --- lifecycle ---------------------------------------------------------------------------

    def _start(self) -> None:
        self.server.start()

    def stop(self) -> None:
        """Stop publishing and serving; published slices stay for the next instance."""
        with self._lock:
            if self._stopped.is_set():
                return
            self._stopped.set()
        try:
            self.publisher.stop()
            self.server.stop()
        finally:
            self._done.set()
        log.info("stopped %s", self.driver.name)

    @property
    def stopped(self) -> bool:
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the driver has stopped (True) or ``timeout`` passes (False)."""
        return self._done.wait(timeout)

    def __enter__(self) -> DriverHandle:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def start(
    driver: Driver,
    pools: Pools | None = None,
    *,
    node_name: str,
    store: ClusterStore | None = None,
    cluster_dir: Path | None = None,
    kubeconfig: Path | None = None,
    in_cluster: bool = False,
    registry_dir: Path = KUBELET_REGISTRY_DIR,
    plugin_dir: Path = KUBELET_PLUGINS_DIR,
    cdi_dir: Path | None = None,
    rolling_update_uid: str = "",
    resync_interval: float = 5.0,
    on_error: ErrorHook | None = None,
    plugins_dir: Path | None = None,
    device_metadata: Sequence[str] | None = None,
) -> DriverHandle:
    """Serve ``driver`` on this node and publish ``pools``; returns at once.

    The cluster is ``store``, or the one that ``cluster_dir``/``kubeconfig``/``in_cluster``
    select (none: serve the sockets, publish nothing). ``rolling_update_uid`` is the pod UID
    (the downward API's ``metadata.uid``): with it, two instances serve side by side (the UID
    in the socket names, calls serialized through a file lock), as upstream's helper does.
    ``device_metadata`` (the API versions, ``v1beta1`` first) turns on device metadata for
    workloads (KEP-5304); it defaults to ``driver.device_metadata``.
    Bad input raises ``ValueError`` (``PoolError`` for pools) or ``StoreError`` before anything
    is served or published. ``plugins_dir`` is the deprecated name of ``plugin_dir`` (the
    ``--plugin-dir`` option's name).
    """
    plugin_dir = deprecated_plugins_dir(plugin_dir, plugins_dir)
    check_driver_name(driver.name)
    if not driver.implements_prepare:
        raise TypeError(f"{type(driver).__name__} implements neither prepare nor prepare_claim")
    if cdi_dir is not None:
        driver.cdi_dir = Path(cdi_dir)
    if device_metadata is not None:
        driver.device_metadata = check_versions(device_metadata)
    elif driver.device_metadata:
        driver.device_metadata = check_versions(driver.device_metadata)
    if store is None:
        store = open_store(cluster_dir, kubeconfig, in_cluster, allow_detached=True)
    paths = plugin_paths(driver.name, Path(registry_dir), Path(plugin_dir), rolling_update_uid)
    handle = DriverHandle(
        driver,
        node_name,
        store,
        paths,
        rolling_update=bool(rolling_update_uid),
        resync_interval=resync_interval,
        on_error=on_error,
    )
    desired = handle.named(pools) if pools is not None else {}
    for name, pool in desired.items():
        handle.publisher.check_pool(name, pool)  # before anything is served or published
    handle._start()
    try:
        if pools is not None:
            handle._publish(desired, check=False)
    except BaseException:
        handle.stop()
        raise
    return handle


def run(
    driver: Driver,
    pools: Pools | None = None,
    *,
    stop: threading.Event | None = None,
    **settings: Any,
) -> None:
    """:func:`start`, then serve until SIGTERM/SIGINT (or ``stop``) and stop cleanly.

    Raises :class:`DriverStopped` (caused by what the hook raised) when an ``on_error`` hook
    stopped the driver.
    """
    stop = stop or threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        log.info("received signal %d, shutting down", signum)
        stop.set()

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
    with start(driver, pools, **settings) as handle:
        while not stop.is_set() and not handle.wait(0.2):
            pass
    if handle.error is not None:
        raise DriverStopped(f"error hook raised: {handle.error}") from handle.error


def parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The standard options of a driver program (what ``main`` reads)."""
    cli = argparse.ArgumentParser(prog=prog, description="Run a DRA driver on this node.")
    node = os.environ.get("NODE_NAME")
    cli.add_argument(
        "--node-name", default=node, required=node is None, help="this node (env NODE_NAME)"
    )
    cli.add_argument("--cluster-dir", type=Path, help="a kubedra cluster directory")
    cli.add_argument("--kubeconfig", type=Path, help="use the cluster of this kubeconfig")
    cli.add_argument("--in-cluster", action="store_true", help="use the pod's service account")
    cli.add_argument("--registry-dir", type=Path, default=KUBELET_REGISTRY_DIR)
    cli.add_argument("--plugin-dir", type=Path, default=KUBELET_PLUGINS_DIR)
    cli.add_argument("--cdi-dir", type=Path, default=DEFAULT_CDI_DIR)
    cli.add_argument(
        "--rolling-update-uid",
        default=os.environ.get("POD_UID", ""),
        help="the pod UID: enables rolling updates (env POD_UID)",
    )
    cli.add_argument("--resync-interval", type=float, default=5.0)
    cli.add_argument("--log-level", default="INFO")
    return cli


def main(driver: Driver, pools: Pools | None = None, argv: Sequence[str] | None = None) -> int:
    """Run ``driver`` with the options of the command line; returns the exit code
    (0 stopped by a signal, 1 stopped by the error hook, 2 bad input)."""
    args = parser().parse_args(argv)
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(message)s"
    )
    try:
        run(
            driver,
            pools,
            node_name=args.node_name,
            cluster_dir=args.cluster_dir,
            kubeconfig=args.kubeconfig,
            in_cluster=args.in_cluster,
            registry_dir=args.registry_dir,
            plugin_dir=args.plugin_dir,
            cdi_dir=args.cdi_dir,
            rolling_update_uid=args.rolling_update_uid,
            resync_interval=args.resync_interval,
        )
    except DriverStopped as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except (StoreError, ValueError, TypeError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0
