"""Where a driver's sockets, checkpoint and lock file live, derived from its name alone.

Follows upstream's kubelet plugin helper (k8s.io/dynamic-resource-allocation/kubeletplugin):
the registration socket is ``<registry dir>/<driver>-reg.sock`` and the DRA socket
``<plugins dir>/<driver>/dra.sock``. With rolling updates (a pod UID) both names carry the UID
so that two instances serve side by side; when the registration path would not fit in a Unix
socket address, the first of these that fits is used (``RollingUpdateRegistrarSocketFile``,
kubernetes/kubernetes#139623, with the bound of #141815: shorter than 108 bytes):

1. ``<driver>-<pod UID>-reg.sock``
2. ``<driver>-<base64url(SHA-256(pod UID)[:8])>-reg.sock``
3. ``dra-<base64url(SHA-256(driver NUL pod UID)[:16])>-reg.sock``

The DRA socket gets the same treatment (kubernetes/kubernetes#142002): ``dra-<pod UID>.sock``,
else ``dra-<base64url(SHA-256(pod UID)[:8])>.sock``, else ``<base64url(...)>.sock``. The kubelet
learns the DRA socket from the registration answer, so its name is free.
"""

from __future__ import annotations

import base64
import hashlib
import warnings
from pathlib import Path

from kubedra.driver.paths import KUBELET_PLUGINS_DIR, KUBELET_REGISTRY_DIR
from kubedra.driver.server import MAX_SOCKET_PATH, PluginPaths, check_path_names

UID_HASH_BYTES = 8
DRIVER_UID_HASH_BYTES = 16


def _digest(text: str, size: int) -> str:
    raw = hashlib.sha256(text.encode()).digest()[:size]
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def fits(path: Path) -> bool:
    """Whether ``path`` can be bound as a Unix socket (at most 107 bytes)."""
    return len(str(path).encode()) <= MAX_SOCKET_PATH


def _first_fitting(directory: Path, candidates: list[str]) -> Path:
    for name in candidates:
        if fits(directory / name):
            return directory / name
    return directory / candidates[-1]  # too long even so: the server says so at start


def registration_socket(registry_dir: Path, driver_name: str, pod_uid: str = "") -> Path:
    """The registration socket of one driver instance (see the module docstring)."""
    if not pod_uid:
        return registry_dir / f"{driver_name}-reg.sock"
    return _first_fitting(
        registry_dir,
        [
            f"{driver_name}-{pod_uid}-reg.sock",
            f"{driver_name}-{_digest(pod_uid, UID_HASH_BYTES)}-reg.sock",
            f"dra-{_digest(driver_name + chr(0) + pod_uid, DRIVER_UID_HASH_BYTES)}-reg.sock",
        ],
    )


def dra_socket(data_dir: Path, pod_uid: str = "") -> Path:
    """The DRA service socket inside the driver's plugin data directory."""
    if not pod_uid:
        return data_dir / "dra.sock"
    uid_hash = _digest(pod_uid, UID_HASH_BYTES)
    return _first_fitting(
        data_dir, [f"dra-{pod_uid}.sock", f"dra-{uid_hash}.sock", f"{uid_hash}.sock"]
    )


def plugin_paths(
    driver_name: str,
    registry_dir: Path = KUBELET_REGISTRY_DIR,
    plugin_dir: Path = KUBELET_PLUGINS_DIR,
    pod_uid: str = "",
    *,
    plugins_dir: Path | None = None,
) -> PluginPaths:
    """Every host path of one driver instance, from its name (and pod UID for rolling updates);
    ValueError when either is not safe as a file name.

    ``plugins_dir`` is the deprecated name of ``plugin_dir`` (the command line's
    ``--plugin-dir``).
    """
    plugin_dir = deprecated_plugins_dir(plugin_dir, plugins_dir)
    check_path_names(driver_name, pod_uid)
    data_dir = Path(plugin_dir) / driver_name
    return PluginPaths(
        registration_socket=registration_socket(Path(registry_dir), driver_name, pod_uid),
        dra_socket=dra_socket(data_dir, pod_uid),
        data_dir=data_dir,
    )


def deprecated_plugins_dir(plugin_dir: Path, plugins_dir: Path | None) -> Path:
    """``plugin_dir``, or the value given under its old name ``plugins_dir`` (with a
    DeprecationWarning naming the caller's line)."""
    if plugins_dir is None:
        return plugin_dir
    if Path(plugin_dir) not in (KUBELET_PLUGINS_DIR, Path(plugins_dir)):
        raise TypeError("plugin_dir and its deprecated name plugins_dir were both given")
    warnings.warn(
        "plugins_dir= is deprecated: use plugin_dir= (the name of the --plugin-dir option)",
        DeprecationWarning,
        stacklevel=3,
    )
    return Path(plugins_dir)
