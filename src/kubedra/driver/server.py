"""The kubelet plugin's two gRPC servers on Unix sockets, laid out as the kubelet expects.

- ``<registry dir>/<driver>-reg.sock`` serves ``pluginregistration.Registration``; the kubelet's
  plugin watcher finds it there, calls GetInfo and then NotifyRegistrationStatus.
- ``<plugins dir>/<driver>/dra.sock`` serves ``v1.DRAPlugin``, ``v1beta1.DRAPlugin`` and, when the
  driver reports health, ``v1.DRAResourceHealth`` and ``v1alpha1.DRAResourceHealth`` (the newest
  kubelet picks v1 when both are offered; older ones only know v1alpha1).

With rolling updates the pod UID goes into both file names (``<driver>-<uid>-reg.sock``,
``dra-<uid>.sock``) so that the old and the new driver pod can serve side by side. Stale
sockets are removed at start (anything else at a socket path is an error, never deleted), ours
are removed at stop; the DRA server starts first so the kubelet never sees a registration before
the endpoint it points to exists.

Health streams are long-lived and each holds a server thread, so they get threads of their own
on top of ``max_workers`` and are capped at ``max_health_streams``: a new stream beyond the cap
ends the oldest one (a reconnecting kubelet always gets through), and the kubelet's prepare and
unprepare calls always find a free thread.
"""

from __future__ import annotations

import logging
import stat
import threading
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from kubedra.api.validation.resource_common import validate_driver_name
from kubedra.driver.claims import uid_problems
from kubedra.driver.helper import PluginHelper
from kubedra.driver.paths import KUBELET_PLUGINS_DIR, KUBELET_REGISTRY_DIR
from kubedra.driver.proto import kubedra_dra_health_v1_pb2 as health_v1_pb2
from kubedra.driver.proto import kubedra_dra_health_v1_pb2_grpc as health_v1_grpc
from kubedra.driver.proto import (
    kubedra_dra_health_v1alpha1_pb2 as health_pb2,
)
from kubedra.driver.proto import (
    kubedra_dra_health_v1alpha1_pb2_grpc as health_grpc,
)
from kubedra.driver.proto import kubedra_dra_v1_pb2 as v1_pb2
from kubedra.driver.proto import kubedra_dra_v1_pb2_grpc as v1_grpc
from kubedra.driver.proto import kubedra_dra_v1beta1_pb2 as v1beta1_pb2
from kubedra.driver.proto import kubedra_dra_v1beta1_pb2_grpc as v1beta1_grpc
from kubedra.driver.proto import kubedra_pluginregistration_v1_pb2 as reg_pb2
from kubedra.driver.proto import kubedra_pluginregistration_v1_pb2_grpc as reg_grpc
from kubedra.driver.types import ClaimRef

log = logging.getLogger(__name__)

PLUGIN_TYPE = "DRAPlugin"
DRA_V1_SERVICE = "v1.DRAPlugin"
DRA_V1BETA1_SERVICE = "v1beta1.DRAPlugin"
HEALTH_V1ALPHA1_SERVICE = "v1alpha1.DRAResourceHealth"
HEALTH_V1_SERVICE = "v1.DRAResourceHealth"
# sockaddr_un.sun_path holds 108 bytes including the terminating NUL.
MAX_SOCKET_PATH = 107
DEFAULT_MAX_HEALTH_STREAMS = 4


def check_path_names(driver_name: str, pod_uid: str = "") -> None:
    """Raise ValueError unless the driver name (a DNS subdomain of at most 63 bytes) and the
    rolling-update pod UID are safe to become socket and directory names."""
    problems = [str(e) for e in validate_driver_name(driver_name, "driver name")]
    if pod_uid:
        problems += [f"rolling update pod {p}" for p in uid_problems(pod_uid)]
    if problems:
        raise ValueError("; ".join(problems))


@dataclass(frozen=True)
class PluginPaths:
    """Where a driver's sockets, checkpoint and lock file live."""

    registration_socket: Path
    dra_socket: Path
    data_dir: Path

    @classmethod
    def for_driver(
        cls,
        driver_name: str,
        registry_dir: Path = KUBELET_REGISTRY_DIR,
        plugin_dir: Path = KUBELET_PLUGINS_DIR,
        rolling_update_uid: str = "",
    ) -> PluginPaths:
        """Raises ValueError for a driver name or pod UID that must not become a path."""
        check_path_names(driver_name, rolling_update_uid)
        uid_part = f"-{rolling_update_uid}" if rolling_update_uid else ""
        data_dir = plugin_dir / driver_name
        return cls(
            registration_socket=registry_dir / f"{driver_name}{uid_part}-reg.sock",
            dra_socket=data_dir / f"dra{uid_part}.sock",
            data_dir=data_dir,
        )


class _DRAServicer:
    """NodePrepareResources/NodeUnprepareResources for one API version (v1 or v1beta1)."""

    def __init__(self, helper: PluginHelper, pb2: Any) -> None:
        self.helper = helper
        self.pb2 = pb2

    def NodePrepareResources(self, request: Any, context: grpc.ServicerContext) -> Any:
        refs = [ClaimRef(c.namespace, c.name, c.uid) for c in request.claims]
        response = self.pb2.NodePrepareResourcesResponse()
        # Only v1 knows share_id; v1beta1 kubelets predate consumable capacity.
        has_share_id = "share_id" in self.pb2.Device.DESCRIPTOR.fields_by_name
        for uid, result in self.helper.prepare(refs).items():
            entry = response.claims[uid]
            entry.error = result.error
            if result.error:
                continue
            for device in result.devices:
                added = entry.devices.add(
                    request_names=list(device.requests),
                    pool_name=device.pool,
                    device_name=device.device,
                    cdi_device_ids=list(device.cdi_device_ids),
                )
                if has_share_id and device.share_id is not None:
                    added.share_id = device.share_id
        return response

    def NodeUnprepareResources(self, request: Any, context: grpc.ServicerContext) -> Any:
        refs = [ClaimRef(c.namespace, c.name, c.uid) for c in request.claims]
        response = self.pb2.NodeUnprepareResourcesResponse()
        for uid, error in self.helper.unprepare(refs).items():
            response.claims[uid].error = error
        return response


class _StreamSlots:
    """At most ``limit`` concurrent health streams; a new one ends the oldest."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._open: list[threading.Event] = []
        self._lock = threading.Lock()

    def open(self, stop: threading.Event) -> None:
        with self._lock:
            while len(self._open) >= self.limit:
                oldest = self._open.pop(0)
                log.warning("more than %d health streams: ending the oldest", self.limit)
                oldest.set()
            self._open.append(stop)

    def close(self, stop: threading.Event) -> None:
        with self._lock:
            if stop in self._open:
                self._open.remove(stop)


class _HealthServicer:
    """NodeWatchResources for one health API version (v1 or v1alpha1)."""

    def __init__(self, helper: PluginHelper, pb2: Any, slots: _StreamSlots) -> None:
        self.helper = helper
        self.pb2 = pb2
        self.slots = slots
        self.status = {"Healthy": pb2.HEALTHY, "Unhealthy": pb2.UNHEALTHY}

    def NodeWatchResources(self, request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        stop = threading.Event()
        context.add_callback(stop.set)
        self.slots.open(stop)
        try:
            yield from self._reports(stop)
        except Exception as error:  # a driver bug ends this stream, not the server
            log.error("health reports failed: %s", error)
            context.abort(grpc.StatusCode.INTERNAL, f"health reports failed: {error}")
        finally:
            stop.set()
            self.slots.close(stop)

    def _reports(self, stop: threading.Event) -> Iterator[Any]:
        for report in self.helper.driver.watch_health(stop):
            if stop.is_set():
                return
            response = self.pb2.NodeWatchResourcesResponse()
            for device in report:
                response.devices.add(
                    device=self.pb2.DeviceIdentifier(
                        pool_name=device.pool, device_name=device.device
                    ),
                    health=self.status.get(device.health, self.pb2.UNKNOWN),
                    last_updated_time=device.last_updated,
                    health_check_timeout_seconds=device.timeout_seconds,
                    message=device.message,
                )
            yield response


class _RegistrationServicer:
    def __init__(self, info: reg_pb2.PluginInfo) -> None:
        self.info = info
        self.status: reg_pb2.RegistrationStatus | None = None

    def GetInfo(self, request: Any, context: grpc.ServicerContext) -> reg_pb2.PluginInfo:
        return self.info

    def NotifyRegistrationStatus(
        self, request: reg_pb2.RegistrationStatus, context: grpc.ServicerContext
    ) -> reg_pb2.RegistrationStatusResponse:
        self.status = request
        if not request.plugin_registered:
            log.error("kubelet rejected the registration: %s", request.error)
            context.abort(grpc.StatusCode.UNKNOWN, f"failed registration process: {request.error}")
        return reg_pb2.RegistrationStatusResponse()


class _OneLineDecodeErrors(logging.Filter):
    """gRPC logs a full traceback for every request that does not parse (and answers it with
    INTERNAL); anyone who can reach the socket could fill the log with them. Keep one line."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and "serializ" in str(record.msg):
            error = record.exc_info[1]
            record.msg = f"{record.msg} {type(error).__name__}: {error}"
            record.args = ()
            record.exc_info = None
            record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def _quiet_decode_errors() -> None:
    grpc_log = logging.getLogger("grpc._common")
    if not any(isinstance(f, _OneLineDecodeErrors) for f in grpc_log.filters):
        grpc_log.addFilter(_OneLineDecodeErrors())


def _check_socket_path(path: Path) -> None:
    if len(str(path).encode()) > MAX_SOCKET_PATH:
        raise ValueError(
            f"socket path {path} is {len(str(path).encode())} bytes long; "
            f"Unix sockets allow at most {MAX_SOCKET_PATH}"
        )


def _remove_stale(path: Path) -> None:
    """Remove a stale socket; anything else at the path (a file, a directory, a symlink) is
    someone else's and an error, so that a misconfigured path never deletes data."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(mode):
        raise ValueError(f"socket path {path} exists and is not a socket; refusing to remove it")
    path.unlink(missing_ok=True)


class PluginServer:
    """Runs the registration and DRA gRPC servers of one driver instance."""

    def __init__(
        self,
        helper: PluginHelper,
        paths: PluginPaths,
        *,
        kubelet_endpoint: str | None = None,
        max_workers: int = 8,
        max_health_streams: int = DEFAULT_MAX_HEALTH_STREAMS,
    ) -> None:
        self.helper = helper
        self.paths = paths
        self.kubelet_endpoint = kubelet_endpoint or str(paths.dra_socket)
        self.max_workers = max_workers
        self.max_health_streams = max(1, max_health_streams)
        self.supported_services = [DRA_V1_SERVICE, DRA_V1BETA1_SERVICE]
        if helper.driver.reports_health:
            self.supported_services += [HEALTH_V1_SERVICE, HEALTH_V1ALPHA1_SERVICE]
        self.registration = _RegistrationServicer(
            reg_pb2.PluginInfo(
                type=PLUGIN_TYPE,
                name=helper.driver_name,
                endpoint=self.kubelet_endpoint,
                supported_versions=self.supported_services,
            )
        )
        self._servers: list[tuple[grpc.Server, Path]] = []

    def _serve(self, socket: Path, register: list[Any], extra_threads: int = 0) -> None:
        _check_socket_path(socket)
        socket.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale(socket)
        # One spare thread covers a stream that is ending while its successor starts.
        threads = self.max_workers + (extra_threads + 1 if extra_threads else 0)
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=threads))
        for add in register:
            add(server)
        if server.add_insecure_port(f"unix:{socket}") == 0:
            raise OSError(f"cannot listen on {socket}")
        server.start()
        self._servers.append((server, socket))

    def start(self) -> None:
        helper = self.helper
        _quiet_decode_errors()
        self.paths.data_dir.mkdir(parents=True, exist_ok=True)
        helper.remove_stale_temp_files()
        dra = [
            lambda s: v1_grpc.add_DRAPluginServicer_to_server(_DRAServicer(helper, v1_pb2), s),
            lambda s: v1beta1_grpc.add_DRAPluginServicer_to_server(
                _DRAServicer(helper, v1beta1_pb2), s
            ),
        ]
        health_threads = 0
        if HEALTH_V1_SERVICE in self.supported_services:
            slots = _StreamSlots(self.max_health_streams)
            health_threads = self.max_health_streams
            dra.append(
                lambda s: health_v1_grpc.add_DRAResourceHealthServicer_to_server(
                    _HealthServicer(helper, health_v1_pb2, slots), s
                )
            )
            dra.append(
                lambda s: health_grpc.add_DRAResourceHealthServicer_to_server(
                    _HealthServicer(helper, health_pb2, slots), s
                )
            )
        try:
            self._serve(self.paths.dra_socket, dra, health_threads)
            self._serve(
                self.paths.registration_socket,
                [lambda s: reg_grpc.add_RegistrationServicer_to_server(self.registration, s)],
            )
        except BaseException:
            self.stop()
            raise
        log.info(
            "serving %s: registration %s, DRA %s",
            helper.driver_name,
            self.paths.registration_socket,
            self.paths.dra_socket,
        )

    def stop(self, grace: float = 2.0) -> None:
        """Stop serving and remove our sockets (registration first, so the kubelet stops
        using the plugin before its endpoint disappears)."""
        for server, socket in reversed(self._servers):
            server.stop(grace).wait(grace + 1.0)
            socket.unlink(missing_ok=True)
        self._servers.clear()
