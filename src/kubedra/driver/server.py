"""The kubelet plugin's two gRPC servers on Unix sockets, laid out as the kubelet expects.

- ``<registry dir>/<driver>-reg.sock`` serves ``pluginregistration.Registration``; the kubelet's
  plugin watcher finds it there, calls GetInfo and then NotifyRegistrationStatus.
- ``<plugins dir>/<driver>/dra.sock`` serves ``v1.DRAPlugin``, ``v1beta1.DRAPlugin`` and, when the
  driver reports health, ``v1alpha1.DRAResourceHealth``.

With rolling updates the pod UID goes into both file names (``<driver>-<uid>-reg.sock``,
``dra-<uid>.sock``) so that the old and the new driver pod can serve side by side. Stale
sockets are removed at start, ours are removed at stop; the DRA server starts first so the
kubelet never sees a registration before the endpoint it points to exists.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from kubedra.driver.helper import PluginHelper
from kubedra.driver.paths import KUBELET_PLUGINS_DIR, KUBELET_REGISTRY_DIR
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
# sockaddr_un.sun_path holds 108 bytes including the terminating NUL.
MAX_SOCKET_PATH = 107

_HEALTH_STATUS = {
    "Healthy": health_pb2.HEALTHY,
    "Unhealthy": health_pb2.UNHEALTHY,
}


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
        plugins_dir: Path = KUBELET_PLUGINS_DIR,
        rolling_update_uid: str = "",
    ) -> PluginPaths:
        uid_part = f"-{rolling_update_uid}" if rolling_update_uid else ""
        data_dir = plugins_dir / driver_name
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
        for uid, result in self.helper.prepare(refs).items():
            entry = response.claims[uid]
            entry.error = result.error
            if result.error:
                continue
            for device in result.devices:
                entry.devices.add(
                    request_names=list(device.requests),
                    pool_name=device.pool,
                    device_name=device.device,
                    cdi_device_ids=list(device.cdi_device_ids),
                )
        return response

    def NodeUnprepareResources(self, request: Any, context: grpc.ServicerContext) -> Any:
        refs = [ClaimRef(c.namespace, c.name, c.uid) for c in request.claims]
        response = self.pb2.NodeUnprepareResourcesResponse()
        for uid, error in self.helper.unprepare(refs).items():
            response.claims[uid].error = error
        return response


class _HealthServicer:
    def __init__(self, helper: PluginHelper) -> None:
        self.helper = helper

    def NodeWatchResources(self, request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        stop = threading.Event()
        context.add_callback(stop.set)
        for report in self.helper.driver.watch_health(stop):
            if stop.is_set():
                return
            response = health_pb2.NodeWatchResourcesResponse()
            for device in report:
                response.devices.add(
                    device=health_pb2.DeviceIdentifier(
                        pool_name=device.pool, device_name=device.device
                    ),
                    health=_HEALTH_STATUS.get(device.health, health_pb2.UNKNOWN),
                    last_updated_time=device.last_updated,
                    health_check_timeout_seconds=device.timeout_seconds,
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


def _check_socket_path(path: Path) -> None:
    if len(str(path).encode()) > MAX_SOCKET_PATH:
        raise ValueError(
            f"socket path {path} is {len(str(path).encode())} bytes long; "
            f"Unix sockets allow at most {MAX_SOCKET_PATH}"
        )


def _remove_stale(path: Path) -> None:
    if path.is_dir():
        raise ValueError(f"socket path {path} is a directory")
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
    ) -> None:
        self.helper = helper
        self.paths = paths
        self.kubelet_endpoint = kubelet_endpoint or str(paths.dra_socket)
        self.max_workers = max_workers
        self.supported_services = [DRA_V1_SERVICE, DRA_V1BETA1_SERVICE]
        if helper.driver.reports_health:
            self.supported_services.append(HEALTH_V1ALPHA1_SERVICE)
        self.registration = _RegistrationServicer(
            reg_pb2.PluginInfo(
                type=PLUGIN_TYPE,
                name=helper.driver_name,
                endpoint=self.kubelet_endpoint,
                supported_versions=self.supported_services,
            )
        )
        self._servers: list[tuple[grpc.Server, Path]] = []

    def _serve(self, socket: Path, register: list[Any]) -> None:
        _check_socket_path(socket)
        socket.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale(socket)
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=self.max_workers))
        for add in register:
            add(server)
        if server.add_insecure_port(f"unix:{socket}") == 0:
            raise OSError(f"cannot listen on {socket}")
        server.start()
        self._servers.append((server, socket))

    def start(self) -> None:
        helper = self.helper
        self.paths.data_dir.mkdir(parents=True, exist_ok=True)
        dra = [
            lambda s: v1_grpc.add_DRAPluginServicer_to_server(_DRAServicer(helper, v1_pb2), s),
            lambda s: v1beta1_grpc.add_DRAPluginServicer_to_server(
                _DRAServicer(helper, v1beta1_pb2), s
            ),
        ]
        if HEALTH_V1ALPHA1_SERVICE in self.supported_services:
            dra.append(
                lambda s: health_grpc.add_DRAResourceHealthServicer_to_server(
                    _HealthServicer(helper), s
                )
            )
        try:
            self._serve(self.paths.dra_socket, dra)
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
