"""A kubelet simulator that drives DRA plugins over their real sockets.

It does what the kubelet's DRA manager does, and reports every contract violation it sees:
- watches the registry directory for registration sockets, calls GetInfo, validates the answer
  (type ``DRAPlugin``, a valid driver name, an existing endpoint, a usable and well ordered list
  of services), picks the first service it supports and calls NotifyRegistrationStatus; of the
  health services it prefers ``v1.DRAResourceHealth`` over ``v1alpha1``, as the newest kubelet;
- prepares the allocated claims reserved for the running pods of its node, driver by driver,
  and checks the answer: every claim UID answered, per-claim errors inside the response,
  devices that belong to the claim's allocation, request names of the claim, and CDI device
  IDs that exist in valid spec files of the CDI directory;
- unprepares claims once no running pod on the node needs them (even if the claim is gone),
  also after a restart: with a state file, the claims it prepared are remembered between runs,
  as the kubelet checkpoints its DRA manager's claim cache;
- with DRAOptionalNodeOperations (KEP-5945) on, skips NodePrepareResources or
  NodeUnprepareResources for a driver when every allocated device of that driver in the claim
  skips it (``skipNodeOperations`` copied from the ResourceSlice into the allocation result);
- reads the device metadata (KEP-5304) that the CDI devices mount into containers: the mount
  must land where the protocol puts it and the host file must hold a known version; the
  report shows what a container would read.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from kubedra.api import nodeops
from kubedra.api.validation.resource_common import validate_driver_name
from kubedra.driver import metadata as devmeta
from kubedra.driver.cdi import CDIError, index_devices, load_spec_file, parse_qualified_name
from kubedra.driver.claims import base_request
from kubedra.driver.kubelet_state import PreparedClaim, StateError, load_state, save_state
from kubedra.driver.proto import kubedra_dra_health_v1_pb2 as health_v1_pb2
from kubedra.driver.proto import kubedra_dra_health_v1_pb2_grpc as health_v1_grpc
from kubedra.driver.proto import kubedra_dra_health_v1alpha1_pb2 as health_pb2
from kubedra.driver.proto import kubedra_dra_health_v1alpha1_pb2_grpc as health_grpc
from kubedra.driver.proto import kubedra_dra_v1_pb2 as v1_pb2
from kubedra.driver.proto import kubedra_dra_v1_pb2_grpc as v1_grpc
from kubedra.driver.proto import kubedra_dra_v1beta1_pb2 as v1beta1_pb2
from kubedra.driver.proto import kubedra_dra_v1beta1_pb2_grpc as v1beta1_grpc
from kubedra.driver.proto import kubedra_pluginregistration_v1_pb2 as reg_pb2
from kubedra.driver.proto import kubedra_pluginregistration_v1_pb2_grpc as reg_grpc
from kubedra.driver.server import (
    DRA_V1_SERVICE,
    DRA_V1BETA1_SERVICE,
    HEALTH_V1_SERVICE,
    HEALTH_V1ALPHA1_SERVICE,
    MAX_SOCKET_PATH,
    PLUGIN_TYPE,
)
from kubedra.driver.store import ClusterStore, StoreError
from kubedra.driver.types import ClaimRef

log = logging.getLogger(__name__)

KUBELET_SERVICES = (DRA_V1_SERVICE, DRA_V1BETA1_SERVICE)
_API = {DRA_V1_SERVICE: (v1_pb2, v1_grpc), DRA_V1BETA1_SERVICE: (v1beta1_pb2, v1beta1_grpc)}
# Most preferred first, as the kubelet's pickHealthService.
HEALTH_SERVICES = {
    HEALTH_V1_SERVICE: (health_v1_pb2, health_v1_grpc),
    HEALTH_V1ALPHA1_SERVICE: (health_pb2, health_grpc),
}


def pick_health_service(supported: list[str]) -> str:
    """The health service the kubelet watches: v1 when offered, else v1alpha1, else none."""
    return next((s for s in HEALTH_SERVICES if s in supported), "")


@dataclass(frozen=True)
class Violation:
    """A breach of the kubelet plugin contract."""

    kind: str
    subject: str
    detail: str

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "subject": self.subject, "detail": self.detail}


class _NotListening(Exception):
    """Nobody accepts connections on a registration socket (yet)."""


@dataclass
class Plugin:
    registration: Path
    driver: str
    endpoint: str
    service: str
    supported: list[str]
    channel: grpc.Channel
    stub: Any
    pb2: Any
    health_service: str = ""


def _active(pod: dict[str, Any]) -> bool:
    phase = (pod.get("status") or {}).get("phase")
    return phase not in ("Succeeded", "Failed") and not (pod.get("metadata") or {}).get(
        "deletionTimestamp"
    )


def pod_claim_names(pod: dict[str, Any]) -> list[str] | None:
    """The ResourceClaim names a pod uses; None while a generated claim has no name yet."""
    statuses = {
        s.get("name"): s.get("resourceClaimName")
        for s in (pod.get("status") or {}).get("resourceClaimStatuses") or []
    }
    names = []
    for entry in (pod.get("spec") or {}).get("resourceClaims") or []:
        if entry.get("resourceClaimName"):
            names.append(str(entry["resourceClaimName"]))
        elif entry.get("resourceClaimTemplateName"):
            generated = statuses.get(entry.get("name"))
            if not generated:
                return None
            names.append(str(generated))
    return names


def _reserved_for(claim: dict[str, Any], pod_uid: str) -> bool:
    return any(
        r.get("resource") == "pods" and r.get("uid") == pod_uid
        for r in (claim.get("status") or {}).get("reservedFor") or []
    )


class KubeletSim:
    def __init__(
        self,
        node_name: str,
        registry_dir: Path,
        store: ClusterStore,
        cdi_dir: Path,
        *,
        call_timeout: float = 10.0,
        state_file: Path | None = None,
        optional_node_operations: bool = False,
    ) -> None:
        """``state_file`` keeps the prepared claims between runs (read here, rewritten on every
        change; :class:`kubedra.driver.kubelet_state.StateError` when it is unusable)."""
        self.node_name = node_name
        # The kubelet's DRAOptionalNodeOperations gate (KEP-5945).
        self.optional_node_operations = optional_node_operations
        self.registry_dir = registry_dir
        self.store = store
        self.cdi_dir = cdi_dir
        self.call_timeout = call_timeout
        self.plugins: dict[str, Plugin] = {}
        self.state_file = state_file
        self.prepared: dict[str, PreparedClaim] = (
            load_state(state_file, node_name) if state_file is not None else {}
        )
        self.violations: list[Violation] = []
        self.failures: dict[str, str] = {}
        self.latencies_ms: dict[str, list[float]] = {"prepare": [], "unprepare": []}
        # Registration socket -> the inode it had when last seen: a restarted plugin replaces
        # its socket file, which the kubelet's watcher sees as a new plugin.
        self._seen_sockets: dict[Path, int] = {}
        self._reported: set[tuple[str, str, str]] = set()

    def violate(self, kind: str, subject: str, detail: str) -> None:
        key = (kind, subject, detail)
        if key in self._reported:
            return
        self._reported.add(key)
        log.warning("contract violation %s (%s): %s", kind, subject, detail)
        self.violations.append(Violation(kind, subject, detail))

    # --- registration --------------------------------------------------------------------

    def scan_registry(self) -> None:
        if not self.registry_dir.is_dir():
            return
        present = {p: p.stat().st_ino for p in self.registry_dir.iterdir() if p.is_socket()}
        for socket, inode in sorted(present.items()):
            if self._seen_sockets.get(socket) == inode:
                continue
            try:
                self.register(socket)
            except _NotListening:
                continue  # a stale file or a plugin still starting: try again next round
            self._seen_sockets[socket] = inode
        for socket in set(self._seen_sockets) - set(present):
            del self._seen_sockets[socket]
            self._deregister(socket)

    def _deregister(self, socket: Path) -> None:
        for driver, plugin in list(self.plugins.items()):
            if plugin.registration == socket:
                plugin.channel.close()
                del self.plugins[driver]

    def register(self, socket: Path) -> Plugin | None:
        subject = str(socket)
        with grpc.insecure_channel(f"unix:{socket}") as channel:
            stub = reg_grpc.RegistrationStub(channel)
            try:
                info = stub.GetInfo(reg_pb2.InfoRequest(), timeout=self.call_timeout)
            except grpc.RpcError as error:
                if error.code() == grpc.StatusCode.UNAVAILABLE:
                    raise _NotListening(subject) from error
                self.violate("registration", subject, f"GetInfo failed: {error.code()}")
                return None
            problem = self._validate_info(socket, info)
            status = reg_pb2.RegistrationStatus(plugin_registered=not problem, error=problem)
            try:
                stub.NotifyRegistrationStatus(status, timeout=self.call_timeout)
            except grpc.RpcError as error:
                if not problem:
                    self.violate(
                        "registration", subject, f"NotifyRegistrationStatus failed: {error.code()}"
                    )
        if problem:
            return None
        service = next(s for s in info.supported_versions if s in KUBELET_SERVICES)
        pb2, pb2_grpc = _API[service]
        channel = grpc.insecure_channel(f"unix:{info.endpoint}")
        plugin = Plugin(
            registration=socket,
            driver=info.name,
            endpoint=info.endpoint,
            service=service,
            supported=list(info.supported_versions),
            channel=channel,
            stub=pb2_grpc.DRAPluginStub(channel),
            pb2=pb2,
        )
        old = self.plugins.get(info.name)
        if old is not None:
            old.channel.close()
        self.plugins[info.name] = plugin
        health = pick_health_service(plugin.supported)
        if health:
            self._check_health(plugin, health)
        log.info("registered %s at %s using %s", info.name, info.endpoint, service)
        return plugin

    def _validate_info(self, socket: Path, info: reg_pb2.PluginInfo) -> str:
        """Problems that make the kubelet reject the plugin; other findings are violations."""
        subject = str(socket)
        if info.type != PLUGIN_TYPE:
            return f"plugin type {info.type!r} is not {PLUGIN_TYPE!r}"
        if not info.name:
            return "empty plugin name"
        name_errors = validate_driver_name(info.name, "name")
        if name_errors:
            return f"invalid DRA driver name {info.name!r}: " + "; ".join(map(str, name_errors))
        if not socket.name.startswith(f"{info.name}-") or not socket.name.endswith("-reg.sock"):
            self.violate(
                "registration",
                subject,
                f"socket name should be {info.name}-reg.sock or {info.name}-<uid>-reg.sock",
            )
        if not info.supported_versions:
            return "empty list of supported gRPC services (aka supported versions)"
        if not any(s in KUBELET_SERVICES for s in info.supported_versions):
            return (
                f"none of services supported by the plugin ({list(info.supported_versions)}) "
                f"are supported by the kubelet ({list(KUBELET_SERVICES)})"
            )
        versions = list(info.supported_versions)
        if DRA_V1_SERVICE in versions and DRA_V1BETA1_SERVICE in versions:
            if versions.index(DRA_V1_SERVICE) > versions.index(DRA_V1BETA1_SERVICE):
                self.violate("registration", subject, f"{DRA_V1_SERVICE} must be listed first")
        elif DRA_V1_SERVICE not in versions:
            self.violate("registration", subject, f"{DRA_V1_SERVICE} is not offered")
        if len(info.endpoint.encode()) > MAX_SOCKET_PATH:
            return f"endpoint {info.endpoint!r} is longer than {MAX_SOCKET_PATH} bytes"
        endpoint = Path(info.endpoint)
        if not endpoint.is_absolute() or not endpoint.is_socket():
            return f"endpoint {info.endpoint!r} is not an existing Unix socket"
        return ""

    def _check_health(self, plugin: Plugin, service: str) -> None:
        pb2, pb2_grpc = HEALTH_SERVICES[service]
        plugin.health_service = service
        stub = pb2_grpc.DRAResourceHealthStub(plugin.channel)
        stream = stub.NodeWatchResources(pb2.NodeWatchResourcesRequest(), timeout=self.call_timeout)
        try:
            first = next(iter(stream))
        except (grpc.RpcError, StopIteration) as error:
            self.violate("health", plugin.driver, f"NodeWatchResources gave no report: {error}")
            return
        finally:
            stream.cancel()
        for device in first.devices:
            if not device.device.pool_name or not device.device.device_name:
                self.violate("health", plugin.driver, "a health report names no pool or device")

    # --- pods and claims -----------------------------------------------------------------

    def _needed_claims(self) -> dict[str, tuple[ClaimRef, dict[str, Any]]]:
        needed: dict[str, tuple[ClaimRef, dict[str, Any]]] = {}
        for pod in self.store.list_pods(self.node_name):
            if not _active(pod):
                continue
            meta = pod.get("metadata") or {}
            names = pod_claim_names(pod)
            if names is None:
                continue
            namespace = str(meta.get("namespace", "default"))
            claims = self._pod_claims(namespace, str(meta.get("name", "")), names)
            if claims is None:
                continue  # reported in failures; the pod's other claims wait with it
            if any(
                c is None
                or not (c.get("status") or {}).get("allocation")
                or not _reserved_for(c, str(meta.get("uid")))
                for c in claims
            ):
                continue  # the kubelet waits until every claim is allocated and reserved
            for claim in claims:
                assert claim is not None
                cmeta = claim["metadata"]
                ref = ClaimRef(namespace, str(cmeta["name"]), str(cmeta["uid"]))
                needed[ref.uid] = (ref, claim)
        return needed

    def _pod_claims(
        self, namespace: str, pod: str, names: list[str]
    ) -> list[dict[str, Any] | None] | None:
        """The pod's claims (None for one not there yet), or None when one cannot be read
        at all (a name like ``../../x`` or an unreadable file): that claim is reported as
        unusable and the pod is left alone, as a kubelet leaves a pod it cannot start."""
        claims = []
        for name in names:
            try:
                claims.append(self.store.get_resource_claim(namespace, name))
            except StoreError as error:
                self.failures[f"{namespace}/{name}"] = (
                    f"pod {namespace}/{pod}: unusable claim: {error}"
                )
                return None
        return claims

    def sync_pods(self) -> None:
        # Skipped operations (below) change the record too: compare with it as it was first.
        before = {uid: claim.to_json() for uid, claim in self.prepared.items()}
        needed = self._needed_claims()
        todo: dict[str, list[tuple[ClaimRef, dict[str, Any]]]] = {}
        enabled = self.optional_node_operations
        for ref, claim in needed.values():
            prepared = self.prepared.get(ref.uid)
            if prepared is None:
                prepared = PreparedClaim(ref, set())
                prepared.skip_unprepare = set(
                    nodeops.skipped_drivers(claim, nodeops.UNPREPARE, enabled)
                )
            skipped = set(nodeops.skipped_drivers(claim, nodeops.PREPARE, enabled))
            done = prepared.drivers | prepared.skipped_prepare
            for driver in sorted(set(nodeops.claim_drivers(claim)) - done):
                if driver in skipped:
                    prepared.skipped_prepare.add(driver)
                    self.prepared[ref.uid] = prepared
                    continue
                todo.setdefault(driver, []).append((ref, claim))
            if prepared.skipped_prepare or prepared.skip_unprepare:
                self.prepared.setdefault(ref.uid, prepared)
        try:
            for driver, claims in todo.items():
                self._prepare(driver, claims)
            for uid, prepared in list(self.prepared.items()):
                if uid not in needed:
                    self._unprepare(prepared)
        finally:
            after = {uid: claim.to_json() for uid, claim in self.prepared.items()}
            if self.state_file is not None and after != before:
                try:
                    save_state(self.state_file, self.node_name, self.prepared)
                except StateError as error:
                    self.failures["state"] = str(error)

    def _call(self, kind: str, fn: Callable[[], Any], subject: str) -> Any:
        start = time.perf_counter()
        try:
            return fn()
        except grpc.RpcError as error:
            self.violate(
                "grpc-error",
                subject,
                f"{kind} failed as a whole ({error.code()}: {error.details()}); "
                "per-claim problems belong in the response",
            )
            return None
        finally:
            self.latencies_ms[kind].append((time.perf_counter() - start) * 1000)

    def _prepare(self, driver: str, claims: list[tuple[ClaimRef, dict[str, Any]]]) -> None:
        plugin = self.plugins.get(driver)
        if plugin is None:
            for ref, _ in claims:
                self.failures[str(ref)] = f"DRA driver {driver} is not registered"
            return
        request = plugin.pb2.NodePrepareResourcesRequest(
            claims=[
                plugin.pb2.Claim(namespace=r.namespace, uid=r.uid, name=r.name) for r, _ in claims
            ]
        )
        response = self._call(
            "prepare",
            lambda: plugin.stub.NodePrepareResources(request, timeout=self.call_timeout),
            driver,
        )
        if response is None:
            return
        self._check_uids(driver, "NodePrepareResources", [r.uid for r, _ in claims], response)
        cdi_index, problems = index_devices(self.cdi_dir)
        for problem in problems:
            self.violate("cdi-spec", driver, problem)
        for ref, claim in claims:
            entry = response.claims.get(ref.uid)
            if entry is None:
                continue
            if entry.error:
                self.failures[str(ref)] = entry.error
                continue
            ids = self._check_devices(driver, ref, claim, entry.devices, cdi_index)
            mounts = self._read_metadata(driver, ref, claim, ids, cdi_index)
            if ref.uid not in self.prepared:
                self.prepared[ref.uid] = PreparedClaim(
                    ref,
                    set(),
                    skip_unprepare=set(
                        nodeops.skipped_drivers(
                            claim, nodeops.UNPREPARE, self.optional_node_operations
                        )
                    ),
                )
            self.prepared[ref.uid].drivers.add(driver)
            self.prepared[ref.uid].cdi_device_ids.extend(ids)
            self.prepared[ref.uid].device_metadata.extend(mounts)

    def _check_uids(self, driver: str, method: str, asked: list[str], response: Any) -> None:
        answered = set(response.claims.keys())
        for uid in asked:
            if uid not in answered:
                self.violate("unanswered-claim", driver, f"{method} gave no answer for claim {uid}")
        for uid in answered - set(asked):
            self.violate("unexpected-claim", driver, f"{method} answered unknown claim {uid}")

    def _check_devices(
        self,
        driver: str,
        ref: ClaimRef,
        claim: dict[str, Any],
        devices: Any,
        cdi_index: dict[str, Path],
    ) -> list[str]:
        results = claim["status"]["allocation"].get("devices", {}).get("results") or []
        allocated = {(r.get("pool"), r.get("device")) for r in results if r.get("driver") == driver}
        requests = {
            str(r.get("name"))
            for r in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or []
        }
        ids = []
        for device in devices:
            subject = f"{driver} claim {ref}"
            if (device.pool_name, device.device_name) not in allocated:
                self.violate(
                    "unknown-device",
                    subject,
                    f"device {device.pool_name}/{device.device_name} is not allocated to the claim",
                )
            for name in device.request_names:
                if requests and base_request(name) not in requests:
                    self.violate(
                        "unknown-request", subject, f"request {name!r} is not in the claim"
                    )
            for device_id in device.cdi_device_ids:
                try:
                    parse_qualified_name(device_id)
                except CDIError as error:
                    self.violate("cdi-id", subject, str(error))
                    continue
                if device_id not in cdi_index:
                    self.violate(
                        "cdi-missing", subject, f"CDI device {device_id} is in no valid spec file"
                    )
                ids.append(device_id)
        return ids

    def _read_metadata(
        self,
        driver: str,
        ref: ClaimRef,
        claim: dict[str, Any],
        device_ids: list[str],
        cdi_index: dict[str, Path],
    ) -> list[dict[str, Any]]:
        """The device metadata mounts among the CDI devices: where the container sees the
        file and its first object of a known version; a mount off the protocol's path or an
        unreadable file is a violation."""
        subject = f"{driver} claim {ref}"
        annotations = (claim.get("metadata") or {}).get("annotations") or {}
        pod_claim = str(annotations.get(devmeta.POD_CLAIM_NAME_ANNOTATION) or "")
        found = []
        for device_id in device_ids:
            path = cdi_index.get(device_id)
            if path is None:
                continue
            name = device_id.partition("=")[2]
            try:
                spec = load_spec_file(path)
            except CDIError:
                continue  # changed since it was indexed; the next round sees it again
            device: dict[str, Any] = next(
                (d for d in spec.get("devices") or [] if d.get("name") == name), {}
            )
            for mount in (device.get("containerEdits") or {}).get("mounts") or []:
                target = str(mount.get("containerPath") or "")
                if not target.startswith(devmeta.CONTAINER_DIR + "/"):
                    continue
                request = target.split("/")[-2]
                expected = devmeta.container_path(driver, request, ref.name, pod_claim)
                if target != expected:
                    self.violate(
                        "device-metadata",
                        subject,
                        f"{device_id} mounts at {target}, not {expected}",
                    )
                host = str(mount.get("hostPath") or "")
                try:
                    content = devmeta.read_device_metadata(host)
                except devmeta.MetadataError as error:
                    self.violate("device-metadata", subject, str(error))
                    continue
                found.append(
                    {"cdiDeviceID": device_id, "containerPath": target, "content": content}
                )
        return found

    def _unprepare(self, prepared: PreparedClaim) -> None:
        ref = prepared.ref
        done = True
        for driver in sorted(
            (prepared.drivers | prepared.skipped_prepare) - prepared.skip_unprepare
        ):
            plugin = self.plugins.get(driver)
            if plugin is None:
                done = False
                continue
            request = plugin.pb2.NodeUnprepareResourcesRequest(
                claims=[plugin.pb2.Claim(namespace=ref.namespace, uid=ref.uid, name=ref.name)]
            )
            call = functools.partial(
                plugin.stub.NodeUnprepareResources, request, timeout=self.call_timeout
            )
            response = self._call("unprepare", call, driver)
            if response is None:
                done = False
                continue
            self._check_uids(driver, "NodeUnprepareResources", [ref.uid], response)
            entry = response.claims.get(ref.uid)
            if entry is None or entry.error:
                if entry is not None:
                    self.failures[str(ref)] = entry.error
                done = False
        if done:
            del self.prepared[ref.uid]

    # --- running -------------------------------------------------------------------------

    def step(self) -> None:
        self.scan_registry()
        self.sync_pods()

    def wait_for_plugins(
        self, expected: list[str], timeout: float, interval: float = 0.05
    ) -> list[str]:
        """Scan the registry until every ``expected`` driver (or, with none named, any plugin)
        is registered; returns what is still missing after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            self.scan_registry()
            missing = [d for d in expected if d not in self.plugins]
            if not expected and not self.plugins:
                missing = ["any DRA plugin"]
            if not missing or time.monotonic() >= deadline:
                return missing
            time.sleep(interval)

    def wait_for_slices(self, timeout: float, interval: float = 0.05) -> list[str]:
        """Wait until every registered driver has published ResourceSlices for this node (a
        round before that would find no allocatable devices); returns the drivers without."""
        deadline = time.monotonic() + timeout
        while True:
            missing = [
                driver
                for driver in sorted(self.plugins)
                if not self.store.list_resource_slices(driver, self.node_name)
            ]
            if not missing or time.monotonic() >= deadline:
                return missing
            time.sleep(interval)

    def run(self, stop: threading.Event, interval: float = 1.0) -> None:
        while not stop.is_set():
            try:
                self.step()
            except Exception as error:  # keep simulating; the store may be mid-update
                log.exception("kubelet-sim step failed")
                self.failures[""] = f"step failed: {error}"
            stop.wait(interval)

    def close(self) -> None:
        for plugin in self.plugins.values():
            plugin.channel.close()

    def report(self) -> dict[str, Any]:
        def summary(values: list[float]) -> dict[str, float]:
            if not values:
                return {"count": 0}
            ordered = sorted(values)
            return {
                "count": len(ordered),
                "p50": round(ordered[len(ordered) // 2], 3),
                "max": round(ordered[-1], 3),
            }

        return {
            "node": self.node_name,
            "plugins": {
                name: {
                    "endpoint": p.endpoint,
                    "service": p.service,
                    "healthService": p.health_service,
                    "supportedVersions": p.supported,
                }
                for name, p in self.plugins.items()
            },
            "prepared": {
                uid: {
                    "claim": str(p.ref),
                    "cdiDeviceIDs": p.cdi_device_ids,
                    **({"deviceMetadata": p.device_metadata} if p.device_metadata else {}),
                    **(
                        {
                            "skippedNodeOperations": {
                                driver: [
                                    op
                                    for op, skipped in (
                                        (nodeops.PREPARE, p.skipped_prepare),
                                        (nodeops.UNPREPARE, p.skip_unprepare),
                                    )
                                    if driver in skipped
                                ]
                                for driver in sorted(p.skipped_prepare | p.skip_unprepare)
                            }
                        }
                        if p.skipped_prepare or p.skip_unprepare
                        else {}
                    ),
                }
                for uid, p in self.prepared.items()
            },
            "violations": [v.to_json() for v in self.violations],
            "failures": [{"claim": c, "error": e} for c, e in self.failures.items()],
            "latencyMs": {kind: summary(values) for kind, values in self.latencies_ms.items()},
        }
