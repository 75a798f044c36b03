"""The FastAPI application serving one Simulation as a Kubernetes API."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException

from kubedra.apiserver.backend import LiveCluster, SimulationLike
from kubedra.apiserver.resources import build_router, error_response
from kubedra.apiserver.status import ApiError, path_not_found


def create_app(simulation: SimulationLike | LiveCluster, prefix: str = "") -> FastAPI:
    """An app answering the Kubernetes API for ``simulation`` (its loop runs after writes).

    ``prefix`` (e.g. ``/k8s``) serves it under a path, as a kubeconfig server URL may name.
    ``app.state.cluster`` is the :class:`LiveCluster`; set its ``closed`` to end watches.
    """
    cluster = simulation if isinstance(simulation, LiveCluster) else LiveCluster(simulation)
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    app.state.cluster = cluster
    app.include_router(build_router(cluster), prefix=prefix.rstrip("/"))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> Response:
        if error.status_code == 404:
            return error_response(path_not_found())
        return error_response(ApiError(error.status_code, "BadRequest", str(error.detail)))

    @app.exception_handler(RequestValidationError)
    async def request_error(request: Request, error: RequestValidationError) -> Response:
        return error_response(ApiError(400, "BadRequest", str(error)))

    @app.exception_handler(Exception)
    async def internal_error(request: Request, error: Exception) -> Response:
        message = f"Internal error occurred: {type(error).__name__}: {error}"
        return error_response(ApiError(500, "InternalError", message))

    return app
