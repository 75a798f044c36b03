"""Container Device Interface (CDI) spec files: building, writing, reading and indexing them.

The kubelet passes the CDI device IDs that a driver returns to the container runtime, which
looks them up in the spec files of its CDI directories. Names follow the CDI rules (vendor and
class: a letter first, then letters, digits, ``_ - .``, ending in a letter or digit; device:
like that plus ``:`` and may start with a digit). ``cdiVersion`` is the lowest version whose
features the spec uses, as the CDI producer library computes it. Validation, with the CDI
library's messages, lives in :mod:`kubedra.driver.cdi_validate`.

Spec files are written as the library writes them: atomically, mode 0600, transient specs
named ``<vendor>-<class>_<id>`` with every ``/`` of the ID replaced by ``_``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kubedra.api.io.reading import LoadError, parse_json, parse_yaml
from kubedra.driver.cdi_validate import (
    HOOK_NAMES,
    KNOWN_VERSIONS,
    CDIError,
    decode_strict,
    minimum_version,
    parse_qualified_name,
    validate_class,
    validate_device_name,
    validate_spec,
    validate_vendor,
)
from kubedra.driver.files import remove_file, remove_stale_temp_files, write_atomic
from kubedra.driver.paths import DEFAULT_CDI_DIR
from kubedra.gofmt import quote

__all__ = [
    "HOOK_NAMES",
    "KNOWN_VERSIONS",
    "CDIDevice",
    "CDIError",
    "CDISpec",
    "CDIWriter",
    "ContainerEdits",
    "index_devices",
    "load_spec_file",
    "minimum_version",
    "parse_qualified_name",
    "qualified_name",
    "spec_file_name",
    "validate_class",
    "validate_device_name",
    "validate_spec",
    "validate_vendor",
]

SPEC_FILE_MODE = 0o600
# NAME_MAX of Linux file systems.
MAX_FILE_NAME_BYTES = 255


def qualified_name(vendor: str, cdi_class: str, name: str) -> str:
    return f"{vendor}/{cdi_class}={name}"


@dataclass
class ContainerEdits:
    """Edits applied to a container: environment, device nodes, network devices, mounts,
    hooks, Intel RDT and additional group IDs (the fields of the CDI spec, in its order)."""

    env: list[str] = field(default_factory=list)
    device_nodes: list[dict[str, Any]] = field(default_factory=list)
    mounts: list[dict[str, Any]] = field(default_factory=list)
    hooks: list[dict[str, Any]] = field(default_factory=list)
    net_devices: list[dict[str, str]] = field(default_factory=list)
    intel_rdt: dict[str, Any] | None = None
    additional_gids: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        edits: dict[str, Any] = {}
        if self.env:
            edits["env"] = list(self.env)
        if self.device_nodes:
            edits["deviceNodes"] = [dict(node) for node in self.device_nodes]
        if self.net_devices:
            edits["netDevices"] = [dict(device) for device in self.net_devices]
        if self.hooks:
            edits["hooks"] = [dict(hook) for hook in self.hooks]
        if self.mounts:
            edits["mounts"] = [dict(mount) for mount in self.mounts]
        if self.intel_rdt is not None:
            edits["intelRdt"] = dict(self.intel_rdt)
        if self.additional_gids:
            edits["additionalGids"] = list(self.additional_gids)
        return edits


@dataclass
class CDIDevice:
    name: str
    edits: ContainerEdits = field(default_factory=ContainerEdits)
    annotations: dict[str, str] = field(default_factory=dict)


@dataclass
class CDISpec:
    """One spec file: a ``vendor/class`` kind and its devices."""

    vendor: str
    cdi_class: str
    devices: list[CDIDevice]
    edits: ContainerEdits = field(default_factory=ContainerEdits)
    annotations: dict[str, str] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return f"{self.vendor}/{self.cdi_class}"

    def device_ids(self) -> list[str]:
        return [qualified_name(self.vendor, self.cdi_class, d.name) for d in self.devices]

    def to_json(self) -> dict[str, Any]:
        """The spec document; raises :class:`CDIError` with the library's message when the
        library would refuse it."""
        devices = []
        for device in self.devices:
            entry: dict[str, Any] = {"name": device.name}
            if device.annotations:
                entry["annotations"] = dict(device.annotations)
            entry["containerEdits"] = device.edits.to_json()
            devices.append(entry)
        spec: dict[str, Any] = {"cdiVersion": "", "kind": self.kind}
        if self.annotations:
            spec["annotations"] = dict(self.annotations)
        spec["devices"] = devices
        edits = self.edits.to_json()
        if edits:
            spec["containerEdits"] = edits
        spec["cdiVersion"] = minimum_version(spec)
        decode_strict(spec)  # a misspelt field in an edit would make every reader refuse the file
        problems = validate_spec(spec)
        if problems:
            raise CDIError("; ".join(problems))
        return spec


def spec_file_name(vendor: str, cdi_class: str, transient_id: str) -> str:
    """Per-claim spec file name, ``<vendor>-<class>_<id>.json``: the library's
    GenerateTransientSpecName (``/`` in the ID becomes ``_``) plus the JSON extension."""
    return f"{vendor}-{cdi_class}_{transient_id.replace('/', '_')}.json"


def _checked_file_name(vendor: str, cdi_class: str, transient_id: str) -> str:
    name = spec_file_name(vendor, cdi_class, transient_id)
    if "\x00" in name:
        raise CDIError(f"invalid transient spec ID {quote(transient_id)}: contains a NUL byte")
    if len(name.encode()) > MAX_FILE_NAME_BYTES:
        raise CDIError(
            f"CDI spec file name {quote(name)} is {len(name.encode())} bytes long; "
            f"file names allow at most {MAX_FILE_NAME_BYTES}"
        )
    return name


class CDIWriter:
    """Writes and removes spec files in one CDI directory (``/var/run/cdi`` by default)."""

    def __init__(self, directory: Path = DEFAULT_CDI_DIR) -> None:
        self.directory = directory

    def path_for(self, spec: CDISpec, transient_id: str) -> Path:
        return self.directory / _checked_file_name(spec.vendor, spec.cdi_class, transient_id)

    def write(self, spec: CDISpec, transient_id: str) -> Path:
        path = self.path_for(spec, transient_id)
        document = spec.to_json()
        write_atomic(path, json.dumps(document, indent=2) + "\n", SPEC_FILE_MODE)
        return path

    def remove(self, vendor: str, cdi_class: str, transient_id: str) -> bool:
        return remove_file(self.directory / _checked_file_name(vendor, cdi_class, transient_id))

    def remove_stale_temp_files(self, vendor: str, cdi_class: str) -> list[Path]:
        """Remove the temporary files of interrupted writes of this kind's spec files (only
        kubedra's own pattern, only this vendor and class: the directory is shared)."""
        prefix = spec_file_name(vendor, cdi_class, "").removesuffix(".json")
        return remove_stale_temp_files(self.directory, prefix=prefix)


def load_spec_file(path: Path) -> dict[str, Any]:
    """Read a ``.json`` or ``.yaml`` spec file as the library's ReadSpec does (strict: unknown
    fields and mistyped values are refused); raises :class:`CDIError` with its message."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CDIError(f"failed to read CDI Spec {quote(str(path))}: {error}") from error
    parse = parse_json if path.suffix == ".json" else parse_yaml
    documents = list(parse(text, str(path)))
    first = documents[0] if documents else None
    if isinstance(first, LoadError):
        raise CDIError(f"failed to parse CDI Spec {quote(str(path))}: {first.message}")
    if first is None or first.content is None:
        raise CDIError(f"failed to parse CDI Spec {quote(str(path))}, no Spec data")
    try:
        return decode_strict(first.content)
    except CDIError as error:
        raise CDIError(f"failed to parse CDI Spec {quote(str(path))}: {error}") from error


def index_devices(directory: Path) -> tuple[dict[str, Path], list[str]]:
    """Map every fully qualified device ID of the valid spec files in ``directory`` to its file;
    also return the problems of invalid files (the runtime ignores those files). Like the
    library, only ``.json`` and ``.yaml`` files are spec files."""
    devices: dict[str, Path] = {}
    problems: list[str] = []
    if not directory.is_dir():
        return devices, problems
    for path in sorted(directory.iterdir()):
        if path.suffix not in (".json", ".yaml") or not path.is_file():
            continue
        try:
            spec = load_spec_file(path)
        except CDIError as error:
            problems.append(str(error))
            continue
        spec_problems = validate_spec(spec)
        if spec_problems:
            problems.append(f"{path}: {'; '.join(spec_problems)}")
            continue
        for device in spec["devices"]:
            devices[f"{spec['kind']}={device['name']}"] = path
    return devices, problems
