"""A kubeconfig pointing kubectl and client libraries at the simulated cluster."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

CONTEXT = "kubedra"


def kubeconfig(server: str, namespace: str = "default") -> dict[str, Any]:
    """One cluster, user and context named ``kubedra``; plain HTTP, no credentials."""
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": CONTEXT, "cluster": {"server": server}}],
        "users": [{"name": CONTEXT, "user": {}}],
        "contexts": [
            {
                "name": CONTEXT,
                "context": {"cluster": CONTEXT, "user": CONTEXT, "namespace": namespace},
            }
        ],
        "current-context": CONTEXT,
        "preferences": {},
    }


def write_kubeconfig(path: Path, server: str, namespace: str = "default") -> Path:
    """Write atomically (a reader waiting for the file never sees half of it)."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(yaml.safe_dump(kubeconfig(server, namespace), sort_keys=False))
    partial.replace(path)
    return path
