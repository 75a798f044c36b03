"""Connecting to a live cluster with the official ``kubernetes`` client: a kubeconfig file and
context as kubectl picks them, or the in-cluster service account."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


class LiveError(Exception):
    """The cluster cannot be reached or read; the message says why, in one line."""


def _default_kubeconfig() -> str | None:
    """``$KUBECONFIG`` (its first existing entry) or ``~/.kube/config``, as kubectl looks."""
    for entry in os.environ.get("KUBECONFIG", "").split(os.pathsep):
        if entry and Path(entry).expanduser().is_file():
            return str(Path(entry).expanduser())
    default = Path("~/.kube/config").expanduser()
    return str(default) if default.is_file() else None


def connect(kubeconfig: str | Path | None = None, context: str | None = None) -> Any:
    """An ``ApiClient`` for the selected cluster.

    Without a kubeconfig file (none given, none in ``$KUBECONFIG`` or ``~/.kube/config``) and
    without ``--context``, the in-cluster configuration is used, as client-go does in a pod.
    """
    from kubernetes import client, config
    from kubernetes.config.config_exception import ConfigException

    path = str(kubeconfig) if kubeconfig is not None else _default_kubeconfig()
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
    if path is not None and not Path(path).is_file():
        raise LiveError(f"kubeconfig {path}: no such file")
    try:
        return config.new_client_from_config(config_file=path, context=context)
    except (ConfigException, OSError, ValueError, TypeError, KeyError) as error:
        where = path or "the kubeconfig"
        raise LiveError(f"cannot use {where}: {error}") from None
