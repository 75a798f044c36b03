"""Running the API with uvicorn on 127.0.0.1: in a thread (tests, embedding) or blocking."""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType

import uvicorn

from kubedra.apiserver.app import create_app
from kubedra.apiserver.backend import LiveCluster, SimulationLike

HOST = "127.0.0.1"
START_TIMEOUT_SECONDS = 10.0


class ApiServer:
    """The simulated cluster served on ``127.0.0.1:port`` (port 0: a free one)."""

    def __init__(
        self,
        simulation: SimulationLike,
        port: int = 0,
        host: str = HOST,
        prefix: str = "",
        release: str | None = None,
    ) -> None:
        self.cluster = LiveCluster(simulation)
        self.cluster.release = release
        self.prefix = prefix.rstrip("/")
        self.app = create_app(self.cluster, self.prefix)
        # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say they are TCP,
        # and without it each keep-alive answer waits ~40 ms for a delayed ACK.
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind((host, port))
        self.host = host
        self.port = int(self.socket.getsockname()[1])
        config = uvicorn.Config(
            self.app, log_level="warning", timeout_graceful_shutdown=1, lifespan="off"
        )
        self.server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}{self.prefix}"

    def serve_forever(self) -> None:
        """Serve in this thread until interrupted (uvicorn handles SIGINT/SIGTERM)."""
        try:
            self.server.run(sockets=[self.socket])
        finally:
            self.cluster.closed = True
            self.socket.close()

    def start(self) -> ApiServer:
        """Serve in a background thread; returns once the server accepts connections."""
        self._thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the API server did not start on {self.url}")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        """End the watches, stop the server and wait for its thread."""
        self.cluster.closed = True
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
        self.socket.close()

    def __enter__(self) -> ApiServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
