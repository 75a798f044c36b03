"""Container Device Interface (CDI) spec files: names, minimum spec version, atomic writes.

The kubelet passes the CDI device IDs that a driver returns to the container runtime, which
looks them up in the spec files of its CDI directories. Names follow the CDI rules (vendor and
class: a letter first, then letters, digits, ``_ - .``, ending in a letter or digit; device:
like that plus ``:`` and may start with a digit). ``cdiVersion`` is the lowest version whose
features the spec uses, as the CDI producer library computes it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from kubedra.driver.files import remove_file, remove_stale_temp_files, write_atomic
from kubedra.driver.paths import DEFAULT_CDI_DIR

KNOWN_VERSIONS = ("0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0", "1.0.0", "1.1.0")
HOOK_NAMES = frozenset(
    {"prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop"}
)


class CDIError(ValueError):
    """An invalid CDI name, device ID or spec."""


def _is_letter(char: str) -> bool:
    return ("a" <= char <= "z") or ("A" <= char <= "Z")


def _is_alnum(char: str) -> bool:
    return _is_letter(char) or ("0" <= char <= "9")


def _check_name(what: str, name: str, first_ok: Any, inner: str) -> None:
    if not name:
        raise CDIError(f"invalid {what} name: empty")
    if not first_ok(name[0]):
        expected = "a letter" if first_ok is _is_letter else "a letter or digit"
        raise CDIError(f"invalid {what} name {name!r}: should start with {expected}")
    for char in name[1:-1]:
        if not (_is_alnum(char) or char in inner):
            raise CDIError(f"invalid {what} name {name!r}: invalid character {char!r}")
    if not _is_alnum(name[-1]):
        raise CDIError(f"invalid {what} name {name!r}: should end with a letter or digit")


def validate_vendor(vendor: str) -> None:
    _check_name("vendor", vendor, _is_letter, "_-.")


def validate_class(cdi_class: str) -> None:
    _check_name("class", cdi_class, _is_letter, "_-.")


def validate_device_name(name: str) -> None:
    _check_name("device", name, _is_alnum, "_-.:")


def qualified_name(vendor: str, cdi_class: str, name: str) -> str:
    return f"{vendor}/{cdi_class}={name}"


def parse_qualified_name(device_id: str) -> tuple[str, str, str]:
    """Split ``vendor/class=name`` and validate each part; raises :class:`CDIError`."""
    qualifier, sep, name = device_id.partition("=")
    vendor, slash, cdi_class = qualifier.partition("/")
    if not sep or not slash or not vendor or not cdi_class or not name:
        raise CDIError(f"unqualified CDI device {device_id!r}: expected vendor/class=name")
    try:
        validate_vendor(vendor)
        validate_class(cdi_class)
        validate_device_name(name)
    except CDIError as error:
        raise CDIError(f"invalid CDI device {device_id!r}: {error}") from error
    return vendor, cdi_class, name


@dataclass
class ContainerEdits:
    """Edits applied to a container: environment, device nodes, mounts, hooks."""

    env: list[str] = field(default_factory=list)
    device_nodes: list[dict[str, Any]] = field(default_factory=list)
    mounts: list[dict[str, Any]] = field(default_factory=list)
    hooks: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        edits: dict[str, Any] = {}
        if self.env:
            edits["env"] = list(self.env)
        if self.device_nodes:
            edits["deviceNodes"] = [dict(node) for node in self.device_nodes]
        if self.mounts:
            edits["mounts"] = [dict(mount) for mount in self.mounts]
        if self.hooks:
            edits["hooks"] = [dict(hook) for hook in self.hooks]
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
        validate_vendor(self.vendor)
        validate_class(self.cdi_class)
        devices = []
        for device in self.devices:
            validate_device_name(device.name)
            entry: dict[str, Any] = {"name": device.name, "containerEdits": device.edits.to_json()}
            if device.annotations:
                entry["annotations"] = dict(device.annotations)
            devices.append(entry)
        spec: dict[str, Any] = {"cdiVersion": "", "kind": self.kind, "devices": devices}
        if self.annotations:
            spec["annotations"] = dict(self.annotations)
        edits = self.edits.to_json()
        if edits:
            spec["containerEdits"] = edits
        spec["cdiVersion"] = minimum_version(spec)
        problems = validate_spec(spec)
        if problems:
            raise CDIError(f"invalid CDI spec {self.kind}: {'; '.join(problems)}")
        return spec


def _all_edits(spec: dict[str, Any]) -> list[dict[str, Any]]:
    edits = [device.get("containerEdits") or {} for device in spec.get("devices") or []]
    return [*edits, spec.get("containerEdits") or {}]


def minimum_version(spec: dict[str, Any]) -> str:
    """The lowest ``cdiVersion`` that supports every feature the spec uses."""
    edits = _all_edits(spec)
    devices = spec.get("devices") or []
    if any(e.get("netDevices") for e in edits) or any(
        (e.get("intelRdt") or {}).get("schemata") is not None
        or (e.get("intelRdt") or {}).get("enableMonitoring")
        for e in edits
    ):
        return "1.1.0"
    if any(e.get("intelRdt") is not None or e.get("additionalGids") for e in edits):
        return "0.7.0"
    cdi_class = str(spec.get("kind", "")).partition("/")[2]
    if spec.get("annotations") or any(d.get("annotations") for d in devices) or "." in cdi_class:
        return "0.6.0"
    if any(str(d.get("name", ""))[:1].isdigit() for d in devices) or any(
        node.get("hostPath") for e in edits for node in e.get("deviceNodes") or []
    ):
        return "0.5.0"
    if any(mount.get("type") for e in edits for mount in e.get("mounts") or []):
        return "0.4.0"
    return "0.3.0"


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def validate_spec(spec: dict[str, Any]) -> list[str]:
    """Problems that make a container runtime reject the spec; empty when it is valid."""
    problems: list[str] = []
    version = str(spec.get("cdiVersion", "")).removeprefix("v")
    if version not in KNOWN_VERSIONS:
        problems.append(f"cdiVersion: unknown version {spec.get('cdiVersion')!r}")
    elif _version_key(version) < _version_key(minimum_version(spec)):
        problems.append(f"cdiVersion: the spec version must be at least v{minimum_version(spec)}")
    vendor, slash, cdi_class = str(spec.get("kind", "")).partition("/")
    try:
        if not slash:
            raise CDIError(f"invalid kind {spec.get('kind')!r}: expected vendor/class")
        validate_vendor(vendor)
        validate_class(cdi_class)
    except CDIError as error:
        problems.append(f"kind: {error}")
    devices = spec.get("devices")
    if not isinstance(devices, list) or not devices:
        problems.append("devices: at least one device is required")
        devices = []
    seen: set[str] = set()
    for index, device in enumerate(devices):
        name = str(device.get("name", ""))
        try:
            validate_device_name(name)
        except CDIError as error:
            problems.append(f"devices[{index}].name: {error}")
        if name in seen:
            problems.append(f"devices[{index}].name: duplicate device {name!r}")
        seen.add(name)
        problems.extend(
            _edit_problems(f"devices[{index}].containerEdits", device.get("containerEdits"))
        )
    problems.extend(_edit_problems("containerEdits", spec.get("containerEdits")))
    return problems


def _edit_problems(path: str, edits: Any) -> list[str]:
    if edits is None:
        return []
    if not isinstance(edits, dict):
        return [f"{path}: expected an object"]
    problems = []
    for index, variable in enumerate(edits.get("env") or []):
        if "=" not in str(variable) or str(variable).startswith("="):
            problems.append(f"{path}.env[{index}]: expected NAME=value, got {variable!r}")
    for index, node in enumerate(edits.get("deviceNodes") or []):
        if not str(node.get("path", "")).startswith("/"):
            problems.append(f"{path}.deviceNodes[{index}].path: must be an absolute path")
    for index, mount in enumerate(edits.get("mounts") or []):
        if not mount.get("hostPath") or not mount.get("containerPath"):
            problems.append(f"{path}.mounts[{index}]: hostPath and containerPath are required")
    for index, hook in enumerate(edits.get("hooks") or []):
        if hook.get("hookName") not in HOOK_NAMES:
            problems.append(f"{path}.hooks[{index}].hookName: invalid {hook.get('hookName')!r}")
        if not str(hook.get("path", "")).startswith("/"):
            problems.append(f"{path}.hooks[{index}].path: must be an absolute path")
    return problems


def spec_file_name(vendor: str, cdi_class: str, transient_id: str) -> str:
    """Per-claim spec file name, ``<vendor>-<class>_<id>.json`` as CDI transient specs use."""
    return f"{vendor}-{cdi_class}_{transient_id}.json".replace("/", "-")


class CDIWriter:
    """Writes and removes spec files in one CDI directory (``/var/run/cdi`` by default)."""

    def __init__(self, directory: Path = DEFAULT_CDI_DIR) -> None:
        self.directory = directory

    def path_for(self, spec: CDISpec, transient_id: str) -> Path:
        return self.directory / spec_file_name(spec.vendor, spec.cdi_class, transient_id)

    def write(self, spec: CDISpec, transient_id: str) -> Path:
        path = self.path_for(spec, transient_id)
        write_atomic(path, json.dumps(spec.to_json(), indent=2) + "\n")
        return path

    def remove(self, vendor: str, cdi_class: str, transient_id: str) -> bool:
        return remove_file(self.directory / spec_file_name(vendor, cdi_class, transient_id))

    def remove_stale_temp_files(self, vendor: str, cdi_class: str) -> list[Path]:
        """Remove the temporary files of interrupted writes of this kind's spec files (only
        kubedra's own pattern, only this vendor and class: the directory is shared)."""
        prefix = spec_file_name(vendor, cdi_class, "").removesuffix(".json")
        return remove_stale_temp_files(self.directory, prefix=prefix)


def load_spec_file(path: Path) -> dict[str, Any]:
    """Parse a ``.json`` or ``.yaml`` spec file; raises :class:`CDIError` when unreadable."""
    try:
        text = path.read_text()
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (OSError, ValueError, yaml.YAMLError) as error:
        raise CDIError(f"{path}: unreadable CDI spec: {error}") from error
    if not isinstance(data, dict):
        raise CDIError(f"{path}: a CDI spec must be an object")
    return data


def index_devices(directory: Path) -> tuple[dict[str, Path], list[str]]:
    """Map every fully qualified device ID of the valid spec files in ``directory`` to its file;
    also return the problems of invalid files (the runtime ignores those files)."""
    devices: dict[str, Path] = {}
    problems: list[str] = []
    if not directory.is_dir():
        return devices, problems
    for path in sorted(directory.iterdir()):
        if path.name.startswith(".") or path.suffix not in (".json", ".yaml", ".yml"):
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
