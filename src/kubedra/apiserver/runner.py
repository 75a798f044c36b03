"""Serving an ASGI app with uvicorn on an already bound socket, in a thread or blocking.

Shared by the API server and the web server: both bind first (so a port in use fails before
anything is served), then hand the socket to uvicorn, and both close their cluster's watches
on the way out so that uvicorn's graceful shutdown does not wait on open streams.
"""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType
from typing import Self

import uvicorn
from starlette.types import ASGIApp

from kubedra.apiserver.backend import LiveCluster

HOST = "127.0.0.1"
START_TIMEOUT_SECONDS = 10.0


class UvicornRunner:
    """Runs ``asgi`` on ``sock`` and closes ``cluster`` when it stops."""

    label = "server"  # named in the error when the server does not start

    def __init__(self, asgi: ASGIApp, cluster: LiveCluster, sock: socket.socket) -> None:
        self.cluster = cluster
        self.socket = sock
        config = uvicorn.Config(
            asgi, log_level="warning", timeout_graceful_shutdown=1, lifespan="off"
        )
        self.server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.socket.getsockname()[:2]
        return f"http://{host}:{port}"

    def serve_forever(self) -> None:
        """Serve in this thread until interrupted (uvicorn handles SIGINT/SIGTERM)."""
        try:
            self.server.run(sockets=[self.socket])
        finally:
            self.cluster.closed = True
            self.socket.close()

    def start(self) -> Self:
        """Serve in a background thread; returns once the server accepts connections."""
        self._thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the {self.label} did not start on {self.url}")
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

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
