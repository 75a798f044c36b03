"""Default host paths of the kubelet plugin mechanism and CDI.

Kept in a module of their own (no imports) so the command line can show them as option
defaults without loading gRPC and the object model.
"""

from __future__ import annotations

from pathlib import Path

KUBELET_PLUGINS_DIR = Path("/var/lib/kubelet/plugins")
KUBELET_REGISTRY_DIR = Path("/var/lib/kubelet/plugins_registry")
DEFAULT_CDI_DIR = Path("/var/run/cdi")
