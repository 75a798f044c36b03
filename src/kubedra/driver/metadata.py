"""Device metadata for workloads (KEP-5304, beta in Kubernetes 1.37): the files a driver writes
per prepared claim and request, and how a workload reads them.

Facts from upstream (k8s.io/dynamic-resource-allocation: ``kubeletplugin/metadata.go``,
``api/metadata``; the 1.37 page "Observability of Dynamic Resources", section "DRA device
metadata in containers"):

- on the host, one file per claim and request:
  ``<plugin data dir>/dra-device-metadata/<namespace>_<claim>/<request>/metadata.json``;
- in the container, bind-mounted read-only by a CDI device of kind ``<driver>/metadata``
  named ``<claim UID>_<request>`` (spec file ``<driver>_metadata_<claim UID>_<request>.json``
  in the CDI directory), at
  ``/var/run/kubernetes.io/dra-device-attributes/resourceclaims/<claim>/<request>/<driver>-metadata.json``
  or, for a claim made from a template, ``.../resourceclaimtemplates/<pod claim name>/...``
  (the claim's ``resource.kubernetes.io/pod-claim-name`` annotation);
- ``<request>`` is the top-level request; the file's ``requests[].name`` keeps the
  ``<request>/<subrequest>`` the allocation chose;
- the file is a JSON stream of ``DeviceMetadata`` objects, the same content once per API
  version the driver chose, in the driver's order; ``metadata.generation`` starts at 1 and
  every update adds one; a reader takes the first object whose version it knows;
- the metadata CDI ID is added to the first prepared device of each request; a request
  without prepared devices gets neither file nor CDI device; unprepare removes both;
- a driver enables the feature with the versions it writes: ``v1beta1`` is required,
  ``v1alpha1`` may follow for older readers, an unknown version is refused at start.

The JSON is written as Go's encoder writes it (2-space indent, struct fields in declaration
order, map keys sorted, ``<``, ``>`` and ``&`` escaped), so files compare byte for byte.
"""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kubedra.api.naming import is_dns1123_label
from kubedra.api.validation.errors import go_json
from kubedra.driver.cdi import CDIDevice, CDIError, CDISpec, ContainerEdits
from kubedra.driver.claims import base_request
from kubedra.driver.files import OutsideRootError, ensure_inside, remove_file, write_atomic
from kubedra.driver.types import ClaimRef, PrepareClaim, PreparedDevice
from kubedra.gofmt import quote

log = logging.getLogger(__name__)

GROUP = "metadata.resource.k8s.io"
KIND = "DeviceMetadata"
KNOWN_VERSIONS = ("v1beta1", "v1alpha1")
"""Newest first; what this kit writes and reads."""
REQUIRED_VERSION = "v1beta1"
DEFAULT_VERSIONS = ("v1beta1", "v1alpha1")
"""What the example driver writes: the beta version, then alpha for older readers."""

HOST_SUBDIR = "dra-device-metadata"
HOST_FILE = "metadata.json"
CONTAINER_DIR = "/var/run/kubernetes.io/dra-device-attributes"
CLAIMS_SUBDIR = "resourceclaims"
TEMPLATES_SUBDIR = "resourceclaimtemplates"
FILE_SUFFIX = "-metadata.json"
CDI_CLASS = "metadata"
POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name"
FILE_MODE = 0o644

# DeviceAttribute's JSON fields in declaration order (k8s.io/api resource/v1).
_ATTRIBUTE_FIELDS = ("int", "bool", "string", "version", "ints", "bools", "strings", "versions")
# NetworkDeviceData's JSON fields in declaration order.
_NETWORK_FIELDS = ("interfaceName", "ips", "hardwareAddress")


class MetadataError(ValueError):
    """Device metadata that cannot be written or read; the message names the file or entry."""


# --- versions ---------------------------------------------------------------------------------


def check_versions(versions: Sequence[str]) -> tuple[str, ...]:
    """The versions a driver enables, checked as the kubelet plugin library does at start."""
    if not versions:
        raise MetadataError(
            f"device metadata: no API version given; {REQUIRED_VERSION} is required"
        )
    unknown = [v for v in versions if v not in KNOWN_VERSIONS]
    if unknown:
        raise MetadataError(
            f"device metadata: unknown API version {quote(unknown[0])} "
            f"(known: {', '.join(KNOWN_VERSIONS)})"
        )
    if REQUIRED_VERSION not in versions:
        raise MetadataError(f"device metadata: API version {REQUIRED_VERSION} is required")
    return tuple(dict.fromkeys(versions))


# --- paths ------------------------------------------------------------------------------------


def container_path(driver: str, request: str, claim_name: str, pod_claim_name: str = "") -> str:
    """Where a container finds the file of ``driver`` for ``request`` (a top-level request)."""
    where = (
        f"{TEMPLATES_SUBDIR}/{pod_claim_name}"
        if pod_claim_name
        else f"{CLAIMS_SUBDIR}/{claim_name}"
    )
    return f"{CONTAINER_DIR}/{where}/{request}/{driver}{FILE_SUFFIX}"


def cdi_device_id(driver: str, claim_uid: str, request: str) -> str:
    return f"{driver}/{CDI_CLASS}={claim_uid}_{request}"


# --- encoding ---------------------------------------------------------------------------------


def _attribute(name: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise MetadataError(f"attribute {quote(name)}: must be an object such as {{'string': ...}}")
    unknown = sorted(set(value) - set(_ATTRIBUTE_FIELDS))
    if unknown:
        raise MetadataError(f"attribute {quote(name)}: unknown field {quote(str(unknown[0]))}")
    return {key: value[key] for key in _ATTRIBUTE_FIELDS if value.get(key) is not None}


def _network_data(value: Mapping[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(value) - set(_NETWORK_FIELDS))
    if unknown:
        raise MetadataError(f"networkData: unknown field {quote(str(unknown[0]))}")
    return {key: value[key] for key in _NETWORK_FIELDS if value.get(key)}


def _device(driver: str, device: PreparedDevice) -> dict[str, Any]:
    entry: dict[str, Any] = {"driver": driver, "pool": device.pool, "name": device.device}
    metadata = device.metadata
    if metadata is not None:
        try:
            if metadata.attributes:
                entry["attributes"] = {
                    str(k): _attribute(str(k), v) for k, v in sorted(metadata.attributes.items())
                }
            if metadata.network_data is not None:
                entry["networkData"] = _network_data(metadata.network_data)
        except MetadataError as error:
            raise MetadataError(f"device {device.pool}/{device.device}: {error}") from None
    return entry


@dataclass(frozen=True)
class ClaimIdentity:
    """What a metadata file says about its claim."""

    namespace: str
    name: str
    uid: str
    pod_claim_name: str | None = None
    """The annotation's value when the claim has it (even empty), else None."""

    @classmethod
    def of(cls, claim: PrepareClaim) -> ClaimIdentity:
        annotations = (claim.claim.get("metadata") or {}).get("annotations") or {}
        pod_claim = annotations.get(POD_CLAIM_NAME_ANNOTATION)
        return cls(
            claim.ref.namespace,
            claim.ref.name,
            claim.ref.uid,
            None if pod_claim is None else str(pod_claim),
        )


def metadata_object(
    version: str,
    claim: ClaimIdentity,
    generation: int,
    request: str,
    driver: str,
    devices: Iterable[PreparedDevice],
) -> dict[str, Any]:
    """One ``DeviceMetadata`` object of the stream, fields in the order Go writes them."""
    obj: dict[str, Any] = {
        "kind": KIND,
        "apiVersion": f"{GROUP}/{version}",
        "metadata": {
            "name": claim.name,
            "namespace": claim.namespace,
            "uid": claim.uid,
            "generation": generation,
        },
    }
    if claim.pod_claim_name is not None:
        obj["podClaimName"] = claim.pod_claim_name
    obj["requests"] = [{"name": request, "devices": [_device(driver, d) for d in devices]}]
    return obj


def encode_stream(objects: Iterable[dict[str, Any]]) -> str:
    """The JSON stream: each object indented as Go's pretty serializer writes it, one newline
    after each."""
    return "".join(go_json(obj, sort_keys=False, indent=2) + "\n" for obj in objects)


# --- reading ----------------------------------------------------------------------------------


def decode_stream(text: str, source: str = "metadata") -> list[Any]:
    """Every JSON value of a stream, in order."""
    decoder = json.JSONDecoder()
    values: list[Any] = []
    index = 0
    while True:
        while index < len(text) and text[index] in " \t\r\n":
            index += 1
        if index >= len(text):
            return values
        try:
            value, index = decoder.raw_decode(text, index)
        except json.JSONDecodeError as error:
            raise MetadataError(f"{source}: object {len(values) + 1}: {error}") from None
        values.append(value)


def first_known(
    text: str, source: str = "metadata", versions: Sequence[str] = KNOWN_VERSIONS
) -> dict[str, Any]:
    """The first ``DeviceMetadata`` object of a stream whose version is one of ``versions``,
    as a consumer picks it (unknown versions are skipped; a malformed one is an error)."""
    seen: list[str] = []
    for number, obj in enumerate(decode_stream(text, source), start=1):
        if not isinstance(obj, dict):
            raise MetadataError(f"{source}: object {number}: not a JSON object")
        api_version = str(obj.get("apiVersion") or "")
        seen.append(api_version)
        group, _, version = api_version.rpartition("/")
        if group != GROUP or version not in versions:
            continue
        if obj.get("kind") != KIND:
            raise MetadataError(
                f"{source}: object {number}: kind {quote(str(obj.get('kind')))}, "
                f"expected {quote(KIND)}"
            )
        if not isinstance(obj.get("metadata") or {}, dict) or not isinstance(
            obj.get("requests") or [], list
        ):
            raise MetadataError(f"{source}: object {number}: malformed {api_version} object")
        return obj
    if not seen:
        raise MetadataError(f"{source}: the stream is empty")
    wanted = ", ".join(f"{GROUP}/{v}" for v in versions)
    raise MetadataError(f"{source}: no object of a known version ({wanted}); found {seen}")


def read_device_metadata(path: Path | str, versions: Sequence[str] = KNOWN_VERSIONS) -> dict:
    """Read a metadata file as a workload does: the first object of a version it knows."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise MetadataError(f"read device metadata {path}: {error}") from None
    return first_known(text, str(path), versions)


# --- writing ----------------------------------------------------------------------------------


def _request_problem(request: str) -> str:
    """Why a prepared device's request name cannot become a path segment ("" when it can):
    request and subrequest names are DNS labels."""
    for part in request.split("/", 1):
        problems = is_dns1123_label(part)
        if problems:
            return f"request {quote(request)}: {problems[0]}"
    return ""


class MetadataWriter:
    """Writes, updates and removes the metadata files and their CDI specs of one driver."""

    def __init__(
        self, driver: str, plugin_data_dir: Path, cdi_dir: Path, versions: Sequence[str]
    ) -> None:
        self.driver = driver
        self.plugin_data_dir = Path(plugin_data_dir)
        self.cdi_dir = Path(cdi_dir)
        self.versions = check_versions(versions)

    # paths

    @property
    def root(self) -> Path:
        return self.plugin_data_dir / HOST_SUBDIR

    def claim_dir(self, namespace: str, name: str) -> Path:
        return self.root / f"{namespace}_{name}"

    def host_path(self, namespace: str, name: str, request: str) -> Path:
        return self.claim_dir(namespace, name) / request / HOST_FILE

    def cdi_spec_path(self, claim_uid: str, request: str) -> Path:
        return self.cdi_dir / f"{self.driver}_{CDI_CLASS}_{claim_uid}_{request}.json"

    # writing

    def write_claim(self, claim: PrepareClaim, devices: Sequence[PreparedDevice]) -> dict[str, str]:
        """Write the file and CDI spec of every request with prepared devices (generation 1);
        returns top-level request -> the metadata CDI device ID to add."""
        identity = ClaimIdentity.of(claim)
        by_request: dict[str, list[PreparedDevice]] = {}
        for device in devices:
            for request in device.requests:
                by_request.setdefault(request, []).append(device)
        ids: dict[str, str] = {}
        for request, members in by_request.items():
            problem = _request_problem(request)
            if problem:
                raise MetadataError(problem)
            top = base_request(request)
            self._write_file(identity, top, request, members, generation=1)
            ids[top] = self._write_cdi_spec(identity, top)
        return ids

    def _write_file(
        self,
        claim: ClaimIdentity,
        top: str,
        request: str,
        devices: Sequence[PreparedDevice],
        generation: int,
    ) -> Path:
        objects = [
            metadata_object(v, claim, generation, request, self.driver, devices)
            for v in self.versions
        ]
        path = self.host_path(claim.namespace, claim.name, top)
        self._inside(path, self.root)
        write_atomic(path, encode_stream(objects), FILE_MODE)
        return path

    def _write_cdi_spec(self, claim: ClaimIdentity, top: str) -> str:
        name = f"{claim.uid}_{top}"
        mount = {
            "hostPath": str(self.host_path(claim.namespace, claim.name, top)),
            "containerPath": container_path(
                self.driver, top, claim.name, claim.pod_claim_name or ""
            ),
            "options": ["ro", "bind"],
        }
        spec = CDISpec(self.driver, CDI_CLASS, [CDIDevice(name, ContainerEdits(mounts=[mount]))])
        try:
            document = spec.to_json()
        except CDIError as error:
            raise MetadataError(f"CDI spec for request {quote(top)}: {error}") from None
        path = self.cdi_spec_path(claim.uid, top)
        self._inside(path, self.cdi_dir)
        write_atomic(path, go_json(document, sort_keys=False, indent=2), FILE_MODE)
        return cdi_device_id(self.driver, claim.uid, top)

    @staticmethod
    def _inside(path: Path, root: Path) -> None:
        root.mkdir(parents=True, exist_ok=True)
        try:
            ensure_inside(path, root)
        except OutsideRootError as error:
            raise MetadataError(str(error)) from None

    def update_request(self, ref: ClaimRef, request: str, devices: Sequence[PreparedDevice]) -> int:
        """Replace the file of ``request`` (``<request>`` or ``<request>/<subrequest>``) with
        these devices' metadata, one generation later; returns the new generation."""
        problem = _request_problem(request)
        if problem:
            raise MetadataError(problem)
        top = base_request(request)
        path = self.host_path(ref.namespace, ref.name, top)
        if not path.is_file():
            raise MetadataError(
                f"request {quote(request)} not found in prepared claim {ref.namespace}/{ref.name}"
            )
        previous = read_device_metadata(path, self.versions)
        meta = previous.get("metadata") or {}
        generation = meta.get("generation")
        if not isinstance(generation, int) or isinstance(generation, bool):
            raise MetadataError(f"{path}: metadata.generation is not an integer")
        pod_claim = previous.get("podClaimName")
        identity = ClaimIdentity(
            ref.namespace, ref.name, ref.uid, None if pod_claim is None else str(pod_claim)
        )
        self._write_file(identity, top, request, devices, generation + 1)
        return generation + 1

    def remove_claim(self, ref: ClaimRef) -> None:
        """Remove the claim's files and CDI specs; nothing to remove is fine."""
        directory = self.claim_dir(ref.namespace, ref.name)
        if directory.is_dir() and not directory.is_symlink():
            shutil.rmtree(directory)
        elif directory.is_symlink():
            remove_file(directory)
        if not self.cdi_dir.is_dir():
            return
        prefix = f"{self.driver}_{CDI_CLASS}_{ref.uid}_"
        for path in self.cdi_dir.glob(f"{prefix}*.json"):
            # Request names have no "_": "<uid>_x_<request>" belongs to claim UID "<uid>_x".
            if "_" not in path.name[len(prefix) : -len(".json")]:
                remove_file(path)

    def specs_present(self, ref: ClaimRef, device_ids: Iterable[str]) -> bool:
        """Whether the CDI spec of every metadata CDI ID among ``device_ids`` still exists
        (a CDI directory on a tmpfs loses them on reboot)."""
        prefix = f"{self.driver}/{CDI_CLASS}={ref.uid}_"
        for device_id in device_ids:
            if device_id.startswith(prefix):
                request = device_id[len(prefix) :]
                if not self.cdi_spec_path(ref.uid, request).is_file():
                    return False
                if not self.host_path(ref.namespace, ref.name, request).is_file():
                    return False
        return True
