"""Running the web app with uvicorn: blocking for the CLI, or in a thread for tests."""

from __future__ import annotations

import socket

from kubedra.apiserver import LiveCluster, SimulationLike
from kubedra.apiserver.runner import HOST, UvicornRunner
from kubedra.web.app import K8S_PREFIX, create_web_app, wrap


class WebServer(UvicornRunner):
    """The page and the Kubernetes API of one simulation on ``host:port`` (0: a free port).

    Binding happens here, so a port in use raises OSError before anything is served.
    ``follow_wall_clock`` moves the simulated clock on with the wall clock (``kubedra serve``).
    """

    label = "web server"

    def __init__(
        self,
        simulation: SimulationLike,
        port: int = 0,
        host: str = HOST,
        namespace: str = "default",
        follow_wall_clock: bool = False,
    ) -> None:
        cluster = LiveCluster(simulation, follow_wall_clock=follow_wall_clock)
        self.app = create_web_app(cluster, namespace)
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.bind((host, port))
            sock.listen(128)  # connections wait in the backlog until uvicorn runs
        except OSError:
            sock.close()
            raise
        self.host = host
        self.port = int(sock.getsockname()[1])
        super().__init__(wrap(self.app), cluster, sock)

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def api_url(self) -> str:
        """The Kubernetes API's server URL (for a kubeconfig)."""
        return self.url + K8S_PREFIX
