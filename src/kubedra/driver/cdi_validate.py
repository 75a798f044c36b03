"""CDI spec validation as the CDI Go library (tags.cncf.io/container-device-interface) does it.

Facts and messages follow ``pkg/parser`` (names), ``specs-go`` (the spec's fields and version
rules), ``pkg/cdi`` (spec, device and container-edit checks) and ``internal/validation``
(annotations: Kubernetes' qualified-name key rules, 256 kB in total). The library stops at the
first problem; :func:`validate_spec` reports every problem, each in the words the library would
use for it. Reading is strict like the library's ``yaml.UnmarshalStrict``: unknown fields and
mistyped values are refused with Go's JSON decoder messages.

One check goes beyond the library: a hook ``timeout`` must be greater than zero, as the OCI
runtime spec requires (runtimes refuse the container otherwise).
"""

from __future__ import annotations

import re
from typing import Any

from kubedra.api.naming import is_dns1123_subdomain, regex_error
from kubedra.gofmt import quote

KNOWN_VERSIONS: tuple[str, ...] = (
    *("0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0"),
    *("1.0.0", "1.1.0"),
)
# Newest first, as the library's validSpecVersions.
_VERSION_ORDER = tuple(reversed(KNOWN_VERSIONS))
EARLIEST_VERSION = "0.3.0"
HOOK_NAMES = frozenset(
    {"prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop"}
)
DEVICE_NODE_TYPES = frozenset({"", "b", "c", "u", "p"})
NO_PERMISSIONS = "none"
TOTAL_ANNOTATION_SIZE_LIMIT = 256 * (1 << 10)
CLOS_ID_MAX_LENGTH = 4096


class CDIError(ValueError):
    """An invalid CDI name, device ID or spec."""


# --- names (pkg/parser) ------------------------------------------------------------------


def _is_letter(char: str) -> bool:
    return ("a" <= char <= "z") or ("A" <= char <= "Z")


def _is_alnum(char: str) -> bool:
    return _is_letter(char) or ("0" <= char <= "9")


def _vendor_or_class_problem(name: str) -> str:
    if not name:
        return "empty name"
    if not _is_letter(name[0]):
        return f"{quote(name)}, should start with letter"
    if len(name) == 1:
        return ""
    for char in name[1:-1]:
        if not (_is_alnum(char) or char in "_-."):
            return f"invalid character '{char}' in name {quote(name)}"
    if not _is_alnum(name[-1]):
        return f"{quote(name)}, should end with a letter or digit"
    return ""


def validate_vendor(vendor: str) -> None:
    problem = _vendor_or_class_problem(vendor)
    if problem:
        raise CDIError(f"invalid vendor. {problem}")


def validate_class(cdi_class: str) -> None:
    problem = _vendor_or_class_problem(cdi_class)
    if problem:
        raise CDIError(f"invalid class. {problem}")


def validate_device_name(name: str) -> None:
    if not name:
        raise CDIError("invalid (empty) device name")
    if not _is_alnum(name[0]):
        # sic: the library says "class" here
        raise CDIError(f"invalid class {quote(name)}, should start with a letter or digit")
    if len(name) == 1:
        return
    for char in name[1:-1]:
        if not (_is_alnum(char) or char in "_-.:"):
            raise CDIError(f"invalid character '{char}' in device name {quote(name)}")
    if not _is_alnum(name[-1]):
        raise CDIError(f"invalid name {quote(name)}, should end with a letter or digit")


def parse_qualifier(kind: str) -> tuple[str, str]:
    """``vendor/class`` -> (vendor, class); ("", kind) when it does not split."""
    vendor, slash, cdi_class = kind.partition("/")
    if not slash or not vendor or not cdi_class:
        return "", kind
    return vendor, cdi_class


def parse_qualified_name(device_id: str) -> tuple[str, str, str]:
    """Split ``vendor/class=name`` and validate each part; raises :class:`CDIError`."""
    vendor, cdi_class, name = "", "", device_id
    if device_id and not device_id.startswith("/"):
        qualifier, sep, rest = device_id.partition("=")
        if sep and qualifier and rest:
            vendor, cdi_class = parse_qualifier(qualifier)
            name = rest if vendor else device_id
            if not vendor:
                cdi_class = ""
    if not vendor:
        raise CDIError(f"unqualified device {quote(device_id)}, missing vendor")
    try:
        validate_vendor(vendor)
        validate_class(cdi_class)
        validate_device_name(name)
    except CDIError as error:
        raise CDIError(f"invalid device {quote(device_id)}: {error}") from error
    return vendor, cdi_class, name


# --- strict decoding (specs-go types, Go's encoding/json messages) -------------------------

_STRUCTS: dict[str, dict[str, str]] = {
    "Spec": {
        "cdiVersion": "string",
        "kind": "string",
        "annotations": "map[string]string",
        "devices": "[]Device",
        "containerEdits": "ContainerEdits",
    },
    "Device": {
        "name": "string",
        "annotations": "map[string]string",
        "containerEdits": "ContainerEdits",
    },
    "ContainerEdits": {
        "env": "[]string",
        "deviceNodes": "[]*DeviceNode",
        "netDevices": "[]*LinuxNetDevice",
        "hooks": "[]*Hook",
        "mounts": "[]*Mount",
        "intelRdt": "*IntelRdt",
        "additionalGids": "[]uint32",
    },
    "DeviceNode": {
        "path": "string",
        "hostPath": "string",
        "type": "string",
        "major": "int64",
        "minor": "int64",
        "fileMode": "*os.FileMode",
        "permissions": "string",
        "uid": "*uint32",
        "gid": "*uint32",
    },
    "Mount": {
        "hostPath": "string",
        "containerPath": "string",
        "options": "[]string",
        "type": "string",
    },
    "Hook": {
        "hookName": "string",
        "path": "string",
        "args": "[]string",
        "env": "[]string",
        "timeout": "*int",
    },
    "IntelRdt": {
        "closID": "string",
        "l3CacheSchema": "string",
        "memBwSchema": "string",
        "schemata": "[]string",
        "enableMonitoring": "bool",
    },
    "LinuxNetDevice": {"hostInterfaceName": "string", "name": "string"},
}
_INT_RANGES = {
    "int64": (-(2**63), 2**63 - 1),
    "int": (-(2**63), 2**63 - 1),
    "uint32": (0, 2**32 - 1),
    "os.FileMode": (0, 2**32 - 1),
}


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


class _DecodeError(Exception):
    pass


def _go_type(name: str) -> str:
    """How Go prints a type: ``[]*Hook`` -> ``[]*specs.Hook``, ``os.FileMode`` -> fs's."""
    name = name.replace("os.FileMode", "fs.FileMode")
    return re.sub(r"\b(" + "|".join(_STRUCTS) + r")\b", r"specs.\1", name)


def _mismatch(value: Any, struct: str, path: str, go_type: str, number: bool = False) -> None:
    shown = f"number {value}" if number else _json_kind(value)
    where = f"Go struct field {struct}.{path}" if path else "Go value"
    raise _DecodeError(f"json: cannot unmarshal {shown} into {where} of type {_go_type(go_type)}")


def _decode(value: Any, go_type: str, struct: str, path: str) -> Any:
    """``value`` checked against ``go_type``, with struct keys spelt as the spec spells them."""
    if value is None:
        return None  # null leaves the Go zero value
    go_type = go_type.removeprefix("*")
    if go_type.startswith("[]"):
        if not isinstance(value, list):
            _mismatch(value, struct, path, go_type)
        return [_decode(item, go_type[2:], struct, path) for item in value]
    if go_type == "map[string]string":
        if not isinstance(value, dict):
            _mismatch(value, struct, path, go_type)
        for item in value.values():
            _decode(item, "string", struct, path)
        return value
    if go_type == "string":
        if not isinstance(value, str):
            _mismatch(value, struct, path, go_type)
        return value
    if go_type == "bool":
        if not isinstance(value, bool):
            _mismatch(value, struct, path, go_type)
        return value
    if go_type in _INT_RANGES:
        if isinstance(value, bool) or not isinstance(value, int | float):
            _mismatch(value, struct, path, go_type)
        low, high = _INT_RANGES[go_type]
        if isinstance(value, float) and not value.is_integer():
            _mismatch(value, struct, path, go_type, number=True)
        if not low <= int(value) <= high:
            _mismatch(value, struct, path, go_type, number=True)
        return value
    return _decode_struct(value, go_type, path)


def _decode_struct(value: Any, name: str, path: str) -> dict[str, Any]:
    fields = _STRUCTS[name]
    if not isinstance(value, dict):
        _mismatch(value, name, path, name)
    lowered = {key.lower(): key for key in fields}
    decoded: dict[str, Any] = {}
    for key, item in value.items():
        field = key if key in fields else lowered.get(str(key).lower())  # Go matches any case
        if field is None:
            raise _DecodeError(f"json: unknown field {quote(str(key))}")
        inner = fields[field].removeprefix("[]").removeprefix("*")
        struct = inner if inner in _STRUCTS else name
        decoded[field] = _decode(item, fields[field], struct, f"{path}.{field}" if path else field)
    return decoded


def decode_strict(document: Any) -> dict[str, Any]:
    """The spec as the library's ``yaml.UnmarshalStrict`` into ``specs.Spec`` reads it (keys
    matched case-insensitively, as Go does); unknown fields and mistyped values are errors."""
    try:
        return _decode_struct(document, "Spec", "")
    except _DecodeError as error:
        raise CDIError(
            f"failed to unmarshal CDI Spec: error unmarshaling JSON: while decoding JSON: {error}"
        ) from error


# --- versions (specs-go/version.go) ---------------------------------------------------------


def _all_edits(spec: dict[str, Any]) -> list[dict[str, Any]]:
    edits = [_dict(device.get("containerEdits")) for device in _devices(spec)]
    return [*edits, _dict(spec.get("containerEdits"))]


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _devices(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [d for d in _list(spec.get("devices")) if isinstance(d, dict)]


def minimum_version(spec: dict[str, Any]) -> str:
    """The lowest ``cdiVersion`` that supports every feature the spec uses."""
    edits = _all_edits(spec)
    devices = _devices(spec)
    rdts = [e.get("intelRdt") for e in edits if e.get("intelRdt") is not None]
    if any(e.get("netDevices") for e in edits) or any(
        _dict(r).get("schemata") is not None or _dict(r).get("enableMonitoring") for r in rdts
    ):
        return "1.1.0"
    if rdts or any(e.get("additionalGids") for e in edits):
        return "0.7.0"
    cdi_class = str(spec.get("kind", "")).partition("/")[2]
    if spec.get("annotations") or any(d.get("annotations") for d in devices) or "." in cdi_class:
        return "0.6.0"
    if any(str(d.get("name", ""))[:1].isdigit() for d in devices) or any(
        _dict(node).get("hostPath") for e in edits for node in _list(e.get("deviceNodes"))
    ):
        return "0.5.0"
    if any(_dict(mount).get("type") for e in edits for mount in _list(e.get("mounts"))):
        return "0.4.0"
    return EARLIEST_VERSION


def version_problem(spec: dict[str, Any]) -> str:
    version = str(spec.get("cdiVersion") or "").removeprefix("v")
    if version not in KNOWN_VERSIONS:
        return f"invalid version {quote(str(spec.get('cdiVersion') or ''))}"
    needed = minimum_version(spec)
    if _VERSION_ORDER.index(needed) < _VERSION_ORDER.index(version):
        return f"the spec version must be at least v{needed}"
    return ""


# --- annotations (internal/validation) ------------------------------------------------------

_QNAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QNAME_RE = re.compile(_QNAME_FMT)
_QNAME_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character"
)
_QNAME_MAX_LENGTH = 63


def _qualified_name_problems(value: str) -> list[str]:
    parts = value.split("/")
    problems: list[str] = []
    if len(parts) > 2:
        return [
            "a qualified name "
            + regex_error(_QNAME_MSG, _QNAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    name = parts[-1]
    if len(parts) == 2:
        if not parts[0]:
            problems.append("prefix part must be non-empty")
        else:
            problems.extend("prefix part " + m for m in is_dns1123_subdomain(parts[0]))
    if not name:
        problems.append("name part must be non-empty")
    elif len(name.encode()) > _QNAME_MAX_LENGTH:
        problems.append(f"name part must be no more than {_QNAME_MAX_LENGTH} characters")
    if _QNAME_RE.fullmatch(name) is None:
        problems.append(
            "name part " + regex_error(_QNAME_MSG, _QNAME_FMT, "MyName", "my.name", "123-abc")
        )
    return problems


def annotation_problems(owner: str, annotations: Any) -> list[str]:
    """Kubernetes' annotation rules, with the library's ``<owner>.annotations`` paths."""
    if not annotations:
        return []
    path = f"{owner}.annotations" if owner else "annotations"
    problems = []
    total = 0
    for key, value in annotations.items():
        for message in _qualified_name_problems(str(key).lower()):
            problems.append(f"{path}.{key} is invalid: {message}")
        total += len(str(key).encode()) + len(str(value).encode())
    if total > TOTAL_ANNOTATION_SIZE_LIMIT:
        problems.append(
            f"{path} is too long: annotations size {total} is larger than limit "
            f"{TOTAL_ANNOTATION_SIZE_LIMIT}"
        )
    return problems


# --- container edits (pkg/cdi/container-edits.go) -------------------------------------------


def _env_problems(env: Any) -> list[str]:
    return [
        f"invalid environment variable {quote(str(v))}" for v in _list(env) if str(v).find("=") <= 0
    ]


def edits_problems(edits: dict[str, Any]) -> list[str]:
    problems = [f"invalid container edits: {p}" for p in _env_problems(edits.get("env"))]
    for node in map(_dict, _list(edits.get("deviceNodes"))):
        path = str(node.get("path") or "")
        if not path:
            problems.append("invalid (empty) device path")
            continue
        kind = str(node.get("type") or "")
        if kind not in DEVICE_NODE_TYPES:
            problems.append(f"device {quote(path)}: invalid type {quote(kind)}")
        permissions = str(node.get("permissions") or "")
        if permissions and permissions != NO_PERMISSIONS and permissions.strip("rwm"):
            problems.append(f"device {quote(path)}: invalid permissions {quote(permissions)}")
    for hook in map(_dict, _list(edits.get("hooks"))):
        name = str(hook.get("hookName") or "")
        if name not in HOOK_NAMES:
            problems.append(f"invalid hook name {quote(name)}")
            continue
        if not hook.get("path"):
            problems.append(f"invalid hook {quote(name)} with empty path")
            continue
        problems.extend(f"invalid hook {quote(name)}: {p}" for p in _env_problems(hook.get("env")))
        timeout = hook.get("timeout")
        if timeout is not None and not (isinstance(timeout, int) and timeout > 0):
            problems.append(f"invalid hook {quote(name)}: timeout must be greater than zero")
    for mount in map(_dict, _list(edits.get("mounts"))):
        if not mount.get("hostPath"):
            problems.append("invalid mount, empty host path")
        elif not mount.get("containerPath"):
            problems.append("invalid mount, empty container path")
    rdt = edits.get("intelRdt")
    if rdt is not None:
        clos = str(_dict(rdt).get("closID") or "")
        if clos != "/" and (
            len(clos.encode()) >= CLOS_ID_MAX_LENGTH
            or clos in (".", "..")
            or "/" in clos
            or "\n" in clos
        ):
            problems.append("invalid ClosID")
    problems.extend(_net_device_problems(_list(edits.get("netDevices"))))
    return problems


def _net_device_problems(devices: list[Any]) -> list[str]:
    problems = []
    hosts: dict[str, str] = {}
    names: dict[str, str] = {}
    for device in map(_dict, devices):
        host, name = str(device.get("hostInterfaceName") or ""), str(device.get("name") or "")
        if not host:
            problems.append("invalid linux net device, empty HostInterfaceName")
            continue
        if not name:
            problems.append("invalid linux net device, empty Name")
            continue
        if host in hosts:
            problems.append(
                f"invalid linux net device, duplicate HostInterfaceName {quote(host)} with names "
                f"{quote(name)} and {quote(hosts[host])}"
            )
        hosts.setdefault(host, name)
        if name in names:
            problems.append(
                f"invalid linux net device, duplicate Name {quote(name)} with HostInterfaceName "
                f"{quote(host)} and {quote(names[name])}"
            )
        names.setdefault(name, host)
    return problems


def _edits_empty(edits: dict[str, Any]) -> bool:
    keys = ("env", "deviceNodes", "hooks", "mounts", "additionalGids", "netDevices")
    return not any(edits.get(k) for k in keys) and edits.get("intelRdt") is None


# --- the whole spec (pkg/cdi/spec.go, device.go) --------------------------------------------


def validate_spec(spec: dict[str, Any]) -> list[str]:
    """Problems that make the CDI library (and so the container runtime) reject the spec,
    each as ``invalid CDI Spec: <the library's message>``; empty when it is valid."""
    problems: list[str] = []
    version = version_problem(spec)
    if version:
        problems.append(version)
    kind = str(spec.get("kind") or "")
    vendor, cdi_class = parse_qualifier(kind)
    for check, value in ((validate_vendor, vendor), (validate_class, cdi_class)):
        try:
            check(value)
        except CDIError as error:
            problems.append(str(error))
    problems.extend(annotation_problems(kind, spec.get("annotations")))
    problems.extend(edits_problems(_dict(spec.get("containerEdits"))))
    seen: set[str] = set()
    devices = _devices(spec)
    for device in devices:
        name = str(device.get("name") or "")
        for problem in _device_problems(vendor, cdi_class, device):
            problems.append(f"failed add device {quote(name)}: {problem}")
        if name in seen:
            problems.append(f"invalid spec, multiple device {quote(name)}")
        seen.add(name)
    if not devices:
        problems.append("invalid spec, no devices")
    return [f"invalid CDI Spec: {p}" for p in problems]


def _device_problems(vendor: str, cdi_class: str, device: dict[str, Any]) -> list[str]:
    name = str(device.get("name") or "")
    try:
        validate_device_name(name)
    except CDIError as error:
        return [str(error)]
    problems = annotation_problems(f"{vendor}/{cdi_class}={name}", device.get("annotations"))
    edits = _dict(device.get("containerEdits"))
    if _edits_empty(edits):
        return [*problems, "invalid device, empty device edits"]
    return problems + [f"invalid device {quote(name)}: {p}" for p in edits_problems(edits)]
