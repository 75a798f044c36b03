"""Connecting to a live cluster with the official ``kubernetes`` client: a kubeconfig file and
context as kubectl picks them, or the in-cluster service account."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


class LiveError(Exception):
    """The cluster cannot be reached or read; the message says why, in one line."""


def default_kubeconfig() -> str | None:
    """The kubeconfig files kubectl reads when ``--kubeconfig`` is not given, or None.

    As client-go's loading rules: when ``$KUBECONFIG`` is set, its existing entries (a
    ``os.pathsep``-separated list, merged in order: the first file to set a value wins) and
    never ``~/.kube/config``; otherwise ``~/.kube/config`` if it exists. The official client
    merges such a list itself, so the entries are returned joined as they were given.
    """
    listed = os.environ.get("KUBECONFIG", "")
    if listed:
        existing = [
            str(Path(entry).expanduser())
            for entry in listed.split(os.pathsep)
            if entry and Path(entry).expanduser().is_file()
        ]
        return os.pathsep.join(existing) or None
    default = Path("~/.kube/config").expanduser()
    return str(default) if default.is_file() else None


def cluster_configured() -> bool:
    """Whether kubectl would find a cluster without flags: a kubeconfig file or, inside a
    pod, the service account's environment."""
    return default_kubeconfig() is not None or bool(os.environ.get("KUBERNETES_SERVICE_HOST"))


def _first_current_context(paths: list[str]) -> str | None:
    """The ``current-context`` of a merged kubeconfig list: the first file that sets it wins,
    as in kubectl (the official client would take the last one)."""
    import yaml

    for path in paths:
        try:
            loaded = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue  # the client reports the unreadable file itself
        if isinstance(loaded, dict) and loaded.get("current-context"):
            return str(loaded["current-context"])
    return None


def connect(kubeconfig: str | Path | None = None, context: str | None = None) -> Any:
    """An ``ApiClient`` for the selected cluster.

    Without a kubeconfig file (none given, none in ``$KUBECONFIG`` or ``~/.kube/config``) and
    without ``--context``, the in-cluster configuration is used, as client-go does in a pod.
    """
    from kubernetes import client, config
    from kubernetes.config.config_exception import ConfigException

    path = str(kubeconfig) if kubeconfig is not None else default_kubeconfig()
    if path is None and context is None:
        configuration = client.Configuration()
        try:
            config.load_incluster_config(client_configuration=configuration)
        except ConfigException as error:
            raise LiveError(
                "no kubeconfig found (--kubeconfig, $KUBECONFIG, ~/.kube/config) and not "
                f"running in a cluster: {error}"
            ) from None
        return client.ApiClient(configuration)
    if kubeconfig is not None and not Path(kubeconfig).is_file():  # kubectl: it must exist
        raise LiveError(f"kubeconfig {kubeconfig}: no such file")
    if context is None and path is not None and os.pathsep in path:
        context = _first_current_context(path.split(os.pathsep))
    try:
        return config.new_client_from_config(config_file=path, context=context)
    except (ConfigException, OSError, ValueError, TypeError, KeyError) as error:
        where = path or "the kubeconfig"
        raise LiveError(f"cannot use {where}: {error}") from None
