"""The simulated cluster served as a Kubernetes API (kubectl, client libraries, watches)."""

from kubedra.apiserver.app import create_app
from kubedra.apiserver.backend import LiveCluster, SimulationLike
from kubedra.apiserver.kubeconfig import kubeconfig, write_kubeconfig
from kubedra.apiserver.resources import build_router
from kubedra.apiserver.runner import UvicornRunner
from kubedra.apiserver.server import ApiServer

__all__ = [
    "ApiServer",
    "LiveCluster",
    "SimulationLike",
    "UvicornRunner",
    "build_router",
    "create_app",
    "kubeconfig",
    "write_kubeconfig",
]
