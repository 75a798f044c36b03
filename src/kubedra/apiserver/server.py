"""Running the API with uvicorn on 127.0.0.1: in a thread (tests, embedding) or blocking."""

from __future__ import annotations

import socket
from collections.abc import Callable

from kubedra.apiserver.app import create_app
from kubedra.apiserver.backend import LiveCluster, SimulationLike
from kubedra.apiserver.runner import HOST, START_TIMEOUT_SECONDS, UvicornRunner

__all__ = ["HOST", "START_TIMEOUT_SECONDS", "ApiServer"]


class ApiServer(UvicornRunner):
    """The simulated cluster served on ``127.0.0.1:port`` (port 0: a free one).

    ``follow_wall_clock``: the simulated clock moves on with the wall clock (``kubedra
    serve-api`` without ``--start-time``); else it moves only as the simulation moves it.
    """

    label = "API server"

    def __init__(
        self,
        simulation: SimulationLike,
        port: int = 0,
        host: str = HOST,
        prefix: str = "",
        release: str | None = None,
        follow_wall_clock: bool = False,
        gate_enabled: Callable[[str], bool] | None = None,
    ) -> None:
        # Alpha APIs (ResourcePoolStatusRequest) are served only with their gate on.
        cluster = LiveCluster(
            simulation,
            follow_wall_clock=follow_wall_clock,
            release=release,
            gate_enabled=gate_enabled,
        )
        self.prefix = prefix.rstrip("/")
        self.app = create_app(cluster, self.prefix)
        # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say they are TCP,
        # and without it each keep-alive answer waits ~40 ms for a delayed ACK.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        self.host = host
        self.port = int(sock.getsockname()[1])
        super().__init__(self.app, cluster, sock)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}{self.prefix}"
