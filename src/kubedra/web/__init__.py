"""``kubedra serve``: a local web page that shows DRA at work on the simulated cluster."""

from kubedra.web.app import create_web_app
from kubedra.web.server import WebServer

__all__ = ["WebServer", "create_web_app"]
