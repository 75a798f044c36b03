"""Fixtures of the driver-kit tests: short socket directories, driver processes, and an
independent gRPC client of the kubelet APIs.

The client compiles the ``.proto`` files at test time into its own descriptor pool and calls
methods by the upstream wire paths written out below, so it checks the committed bindings
instead of reusing them.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

REPO = Path(__file__).resolve().parents[2]
PROTO_DIR = REPO / "src" / "kubedra" / "driver" / "proto"

# Upstream's fully qualified gRPC methods (facts from k8s.io/kubelet/pkg/apis).
REGISTRATION = "/pluginregistration.Registration/"
DRA = {
    "v1": "/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/",
    "v1beta1": "/k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/",
}
HEALTH = {
    "v1alpha1": "/v1alpha1.DRAResourceHealth/NodeWatchResources",
    "v1": "/v1.DRAResourceHealth/NodeWatchResources",
}


@pytest.fixture(scope="session")
def proto_pool(tmp_path_factory: pytest.TempPathFactory) -> descriptor_pool.DescriptorPool:
    from grpc_tools import protoc

    out = tmp_path_factory.mktemp("protos") / "kubelet.pb"
    include = Path(protoc.__file__).parent / "_proto"
    args = ["protoc", f"-I{PROTO_DIR}", f"-I{include}", f"--descriptor_set_out={out}"]
    assert protoc.main([*args, *[p.name for p in sorted(PROTO_DIR.glob("*.proto"))]]) == 0
    pool = descriptor_pool.DescriptorPool()
    for file_proto in descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file:
        pool.Add(file_proto)
    return pool


class KubeletClient:
    """Talks to a plugin's sockets the way the kubelet does, with no kubedra code."""

    def __init__(self, pool: descriptor_pool.DescriptorPool) -> None:
        self.pool = pool

    def message(self, full_name: str, **fields: Any) -> Any:
        cls = message_factory.GetMessageClass(self.pool.FindMessageTypeByName(full_name))
        return cls(**fields)

    def _unary(self, socket: Path, method: str, request: Any, response: str) -> Any:
        response_cls = message_factory.GetMessageClass(self.pool.FindMessageTypeByName(response))
        with grpc.insecure_channel(f"unix:{socket}") as channel:
            call = channel.unary_unary(
                method,
                request_serializer=lambda m: m.SerializeToString(),
                response_deserializer=response_cls.FromString,
            )
            return call(request, timeout=10)

    def get_info(self, socket: Path) -> Any:
        request = self.message("pluginregistration.InfoRequest")
        return self._unary(
            socket, REGISTRATION + "GetInfo", request, "pluginregistration.PluginInfo"
        )

    def notify(self, socket: Path, registered: bool, error: str = "") -> Any:
        request = self.message(
            "pluginregistration.RegistrationStatus", plugin_registered=registered, error=error
        )
        return self._unary(
            socket,
            REGISTRATION + "NotifyRegistrationStatus",
            request,
            "pluginregistration.RegistrationStatusResponse",
        )

    def prepare(self, socket: Path, claims: list[tuple[str, str, str]], version: str = "v1") -> Any:
        package = f"k8s.io.kubelet.pkg.apis.dra.{version}"
        request = self.message(
            f"{package}.NodePrepareResourcesRequest",
            claims=[
                self.message(f"{package}.Claim", namespace=ns, name=name, uid=uid)
                for ns, name, uid in claims
            ],
        )
        return self._unary(
            socket,
            DRA[version] + "NodePrepareResources",
            request,
            f"{package}.NodePrepareResourcesResponse",
        )

    def unprepare(
        self, socket: Path, claims: list[tuple[str, str, str]], version: str = "v1"
    ) -> Any:
        package = f"k8s.io.kubelet.pkg.apis.dra.{version}"
        request = self.message(
            f"{package}.NodeUnprepareResourcesRequest",
            claims=[
                self.message(f"{package}.Claim", namespace=ns, name=name, uid=uid)
                for ns, name, uid in claims
            ],
        )
        return self._unary(
            socket,
            DRA[version] + "NodeUnprepareResources",
            request,
            f"{package}.NodeUnprepareResourcesResponse",
        )

    def first_health_report(self, socket: Path, version: str = "v1alpha1") -> Any:
        response_cls = message_factory.GetMessageClass(
            self.pool.FindMessageTypeByName(f"{version}.NodeWatchResourcesResponse")
        )
        request = self.message(f"{version}.NodeWatchResourcesRequest")
        with grpc.insecure_channel(f"unix:{socket}") as channel:
            call = channel.unary_stream(
                HEALTH[version],
                request_serializer=lambda m: m.SerializeToString(),
                response_deserializer=response_cls.FromString,
            )
            stream = call(request, timeout=10)
            try:
                return next(iter(stream))
            finally:
                stream.cancel()


@pytest.fixture
def kubelet_client(proto_pool: descriptor_pool.DescriptorPool) -> KubeletClient:
    return KubeletClient(proto_pool)


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A directory under /tmp: Unix socket paths must stay below ~100 bytes."""
    path = Path(tempfile.mkdtemp(prefix="kd-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@dataclass
class DriverDirs:
    root: Path

    @property
    def registry(self) -> Path:
        return self.root / "reg"

    @property
    def plugins(self) -> Path:
        return self.root / "plugins"

    @property
    def cdi(self) -> Path:
        return self.root / "cdi"

    @property
    def cluster(self) -> Path:
        return self.root / "cluster"

    @property
    def registration_socket(self) -> Path:
        return self.registry / "gpu.example.com-reg.sock"

    @property
    def dra_socket(self) -> Path:
        return self.plugins / "gpu.example.com" / "dra.sock"


@pytest.fixture
def driver_dirs(short_tmp: Path) -> DriverDirs:
    dirs = DriverDirs(short_tmp)
    for path in (dirs.registry, dirs.plugins, dirs.cdi, dirs.cluster):
        path.mkdir()
    return dirs


def wait_for(condition: Callable[[], Any], timeout: float = 20.0, what: str = "") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout}s waiting for {what or condition}")


def listening(path: Path) -> bool:
    """Whether a server accepts connections on the Unix socket (a stale file does not)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        try:
            sock.connect(str(path))
        except OSError:
            return False
    return True


def kubedra_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "kubedra", *args]


def subprocess_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return env


class DriverProcesses:
    """Starts ``kubedra driver example-gpu`` processes and always kills them."""

    def __init__(self, dirs: DriverDirs) -> None:
        self.dirs = dirs
        self.procs: list[subprocess.Popen[bytes]] = []
        self.logs: list[Any] = []

    def start(
        self,
        *extra: str,
        wait: bool = True,
        cluster: bool = True,
        program: list[str] | None = None,
    ) -> subprocess.Popen[bytes]:
        """Start ``kubedra driver example-gpu`` (or ``program``, which takes the same options)."""
        dirs = self.dirs
        args = [
            *(program or kubedra_command("driver", "example-gpu")),
            "--node-name=node-1",
            f"--registry-dir={dirs.registry}",
            f"--plugin-dir={dirs.plugins}",
            f"--cdi-dir={dirs.cdi}",
            *([f"--cluster-dir={dirs.cluster}"] if cluster else []),
            "--gpus=4",
            "--resync-interval=0.2",
            "--log-level=WARNING",
            *extra,
        ]
        log_path = dirs.root / f"driver-{len(self.procs)}.log"
        log = open(log_path, "wb")  # noqa: SIM115
        self.logs.append(log)
        proc = subprocess.Popen(args, env=subprocess_env(), stdout=log, stderr=subprocess.STDOUT)
        self.procs.append(proc)
        if wait:
            wait_for(
                lambda: listening(dirs.registration_socket) or proc.poll() is not None,
                what="the registration socket",
            )
            assert proc.poll() is None, log_path.read_text()
        return proc

    def stop_all(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
        for log in self.logs:
            log.close()


@pytest.fixture
def drivers(driver_dirs: DriverDirs) -> Iterator[DriverProcesses]:
    processes = DriverProcesses(driver_dirs)
    yield processes
    processes.stop_all()


def build_claim(
    name: str,
    uid: str,
    devices: list[tuple[str, str]],
    *,
    namespace: str = "default",
    driver: str = "gpu.example.com",
    pool: str = "node-1",
    config: list[dict[str, Any]] | None = None,
    reserved_for: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """An allocated ResourceClaim; ``devices`` are (request, device) pairs."""
    requests = sorted({request.split("/")[0] for request, _ in devices})
    allocation: dict[str, Any] = {
        "devices": {
            "results": [
                {"request": request, "driver": driver, "pool": pool, "device": device}
                for request, device in devices
            ]
        }
    }
    if config:
        allocation["devices"]["config"] = config
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": namespace, "uid": uid},
        "spec": {
            "devices": {
                "requests": [
                    {"name": r, "exactly": {"deviceClassName": "gpu.example.com"}} for r in requests
                ]
            }
        },
        "status": {"allocation": allocation, "reservedFor": reserved_for or []},
    }


def build_pod(name: str, uid: str, claims: list[str], node: str = "node-1") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": uid},
        "spec": {
            "nodeName": node,
            "containers": [{"name": "ctr", "image": "busybox"}],
            "resourceClaims": [{"name": c, "resourceClaimName": c} for c in claims],
        },
        "status": {"phase": "Running"},
    }


@pytest.fixture
def claim_builder() -> Callable[..., dict[str, Any]]:
    return build_claim


@pytest.fixture
def pod_builder() -> Callable[..., dict[str, Any]]:
    return build_pod
