"""Running the web app with uvicorn: blocking for the CLI, or in a thread for tests."""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType

import uvicorn

from kubedra.apiserver import LiveCluster, SimulationLike
from kubedra.web.app import K8S_PREFIX, create_web_app, wrap

HOST = "127.0.0.1"
START_TIMEOUT_SECONDS = 10.0


class WebServer:
    """The page and the Kubernetes API of one simulation on ``host:port`` (0: a free port).

    Binding happens here, so a port in use raises OSError before anything is served.
    """

    def __init__(
        self,
        simulation: SimulationLike,
        port: int = 0,
        host: str = HOST,
        namespace: str = "default",
    ) -> None:
        self.cluster = LiveCluster(simulation)
        self.app = create_web_app(self.cluster, namespace)
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM)
        try:
            self.socket.bind((host, port))
            self.socket.listen(128)  # connections wait in the backlog until uvicorn runs
        except OSError:
            self.socket.close()
            raise
        self.host = host
        self.port = int(self.socket.getsockname()[1])
        config = uvicorn.Config(
            wrap(self.app), log_level="warning", timeout_graceful_shutdown=1, lifespan="off"
        )
        self.server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def api_url(self) -> str:
        """The Kubernetes API's server URL (for a kubeconfig)."""
        return self.url + K8S_PREFIX

    def serve_forever(self) -> None:
        try:
            self.server.run(sockets=[self.socket])
        finally:
            self.cluster.closed = True
            self.socket.close()

    def start(self) -> WebServer:
        self._thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the web server did not start on {self.url}")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self.cluster.closed = True
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
        self.socket.close()

    def __enter__(self) -> WebServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
