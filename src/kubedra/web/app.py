"""The web app: the page, its JSON API (OpenAPI at /api/openapi.json), the cluster's
resourceVersion for the page to poll (``/api/changes``; ``/api/events`` streams the same as
server-sent events for other clients), and the simulated cluster's Kubernetes API under ``/k8s``.

All engine access happens under the served cluster's lock; every write goes through it, so a
pod created on the page or with ``kubectl`` is scheduled before the answer is sent.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from importlib import resources
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kubedra.apiserver import LiveCluster, create_app
from kubedra.apiserver.status import ApiError
from kubedra.cluster.kinds import CREATION_ORDER, kind_info
from kubedra.web.steps import StepCache
from kubedra.web.tryit import check_manifests, preview_selector, slice_devices
from kubedra.web.view import cluster_view

MAX_BODY_BYTES = 256 * 1024
"""Largest request body accepted (the editor's manifests, kubectl's objects)."""
MAX_TEXT = 64 * 1024
MAX_EXPRESSION = 10 * 1024
"""Upstream's limit on the length of a CEL selector expression."""
MAX_STEPS = 200
"""Decisions the step-through offers (the latest ones)."""
EVENT_POLL_SECONDS = 0.2
HEARTBEAT_SECONDS = 15.0
K8S_PREFIX = "/k8s"


class ManifestBody(BaseModel):
    """YAML (or JSON) text with one or more objects."""

    manifest: str = Field(max_length=MAX_TEXT, description="YAML documents, `---` separated")


class SelectorBody(BaseModel):
    expression: str = Field(max_length=MAX_EXPRESSION, description="A DRA CEL device selector")


class FieldProblem(BaseModel):
    object: str | None
    field: str | None
    message: str


class CheckResult(BaseModel):
    ok: bool
    objects: list[str]
    errors: list[FieldProblem]


class ApplyResult(CheckResult):
    created: list[str]


class SelectorResult(BaseModel):
    ok: bool
    error: str | None
    line: int | None
    column: int | None
    matches: list[str]
    errors: dict[str, str]


class ErrorBody(BaseModel):
    error: str


def error_json(code: int, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=code)


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes with 413, declared or streamed."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        too_big = JSONResponse(
            {"error": f"request body larger than {self.limit} bytes"}, status_code=413
        )
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await too_big(scope, receive, send)
            return
        # Read the whole body first (chunked ones too), so an oversized one is refused
        # before any handler sees it; then hand the buffered messages on.
        buffered: list[Message] = []
        seen = 0
        while True:
            message = await receive()
            buffered.append(message)
            if message["type"] != "http.request":
                break
            seen += len(message.get("body", b""))
            if seen > self.limit:
                await too_big(scope, receive, send)
                return
            if not message.get("more_body", False):
                break

        async def replay() -> Message:
            return buffered.pop(0) if buffered else await receive()

        await self.app(scope, replay, send)


def _static_dir() -> str:
    return str(resources.files("kubedra.web") / "static")


def create_web_app(cluster: LiveCluster, namespace: str = "default") -> FastAPI:
    """The page and its API over one served cluster (the Kubernetes API is under /k8s)."""
    app = FastAPI(
        title="kubedra web",
        version="1",
        description="The simulated cluster as the kubedra page shows it, and its editor.",
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    app.state.cluster = cluster
    store = cluster.store
    static = _static_dir()
    step_cache = StepCache()

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> Response:
        return error_json(error.status_code, str(error.detail))

    @app.exception_handler(RequestValidationError)
    async def bad_body(request: Request, error: RequestValidationError) -> Response:
        problems = [
            {
                "object": None,
                "field": ".".join(str(p) for p in e.get("loc", ()) if p != "body"),
                "message": str(e.get("msg")),
            }
            for e in error.errors()
        ]
        first = problems[0] if problems else {"field": "", "message": "invalid request"}
        return error_json(422, f"{first['field']}: {first['message']}", errors=problems)

    @app.exception_handler(Exception)
    async def internal(request: Request, error: Exception) -> Response:
        return error_json(500, f"internal error: {type(error).__name__}: {error}")

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(f"{static}/index.html", media_type="text/html")

    @app.get("/api/state", summary="The cluster view and the scheduling steps")
    def state() -> dict[str, Any]:
        with cluster.lock:
            view = cluster_view(store)
            decisions = list(getattr(_scheduler(cluster), "decisions", []))
            first = max(0, len(decisions) - MAX_STEPS)
            steps = step_cache.steps(store, decisions, first)
        return {**view, "steps": steps, "firstStep": first, "namespace": namespace}

    @app.get(
        "/api/explain/{ns}/{name}",
        summary="Why a pod is pending (or where it went)",
        responses={404: {"model": ErrorBody}},
    )
    def explain(ns: str, name: str) -> Any:
        from kubedra.scheduler.explain import explain_pod

        if len(ns) > 253 or len(name) > 253:
            return error_json(400, "name too long")
        scheduler = _scheduler(cluster)
        if scheduler is None:
            return error_json(404, "this cluster has no scheduler to explain")
        with cluster.lock:
            result = explain_pod(scheduler, ns, name)
        if result.get("found") is False:
            return error_json(404, f"pod {ns}/{name} not found")
        return result

    @app.post("/api/validate", summary="Check manifests with kubedra's validation")
    def validate(body: ManifestBody) -> CheckResult:
        checked = check_manifests(body.manifest, namespace)
        return CheckResult(
            ok=not checked.errors,
            objects=[_label(o) for o in checked.objects],
            errors=[FieldProblem(**e) for e in checked.errors],
        )

    @app.post(
        "/api/apply",
        summary="Create the objects in the cluster and schedule",
        responses={422: {"model": ApplyResult}},
    )
    def apply(body: ManifestBody) -> Any:
        checked = check_manifests(body.manifest, namespace)
        labels = [_label(o) for o in checked.objects]
        if checked.errors:
            return JSONResponse(
                {
                    "ok": False,
                    "objects": labels,
                    "errors": checked.errors,
                    "created": [],
                    "error": _first_message(checked.errors),
                },
                status_code=422,
            )
        # As kubectl create -f: every object is tried, each refusal reported (a second Create
        # names every object that already exists, not only the first).
        order = {kind: i for i, kind in enumerate(CREATION_ORDER)}
        created: list[str] = []
        problems: list[dict[str, Any]] = []
        codes: list[int] = []
        for obj in sorted(checked.objects, key=lambda o: order.get(str(o.get("kind")), 99)):
            info = kind_info(str(obj.get("kind")))
            assert info is not None  # check_manifests refused unknown kinds
            ns = (obj.get("metadata") or {}).get("namespace") if info.namespaced else None
            try:
                cluster.create(info, ns, obj)
            except ApiError as error:
                problems.append({"object": _label(obj), "field": None, "message": error.message})
                codes.append(error.code if 400 <= error.code < 500 else 422)
                continue
            created.append(_label(obj))
        if problems:
            return JSONResponse(
                {
                    "ok": False,
                    "objects": labels,
                    "errors": problems,
                    "created": created,
                    "error": _first_message(problems),
                },
                status_code=codes[0] if len(set(codes)) == 1 else 422,
            )
        return ApplyResult(ok=True, objects=labels, errors=[], created=created)

    @app.post("/api/selector", summary="The devices a CEL selector matches, or its error")
    def selector(body: SelectorBody) -> SelectorResult:
        with cluster.lock:
            devices = slice_devices(store)
        return SelectorResult(**preview_selector(devices, body.expression))

    @app.get(
        "/api/changes",
        summary="The cluster's resourceVersion: it moves with every change (the page polls it)",
    )
    def changes() -> dict[str, Any]:
        return {"resourceVersion": store.resource_version}

    @app.get("/api/events", summary="Server-sent events: `change` whenever the cluster changes")
    async def events(request: Request) -> StreamingResponse:
        async def stream() -> AsyncIterator[str]:
            last = store.resource_version
            idle = 0.0
            yield f"event: hello\ndata: {json.dumps({'resourceVersion': last})}\n\n"
            while not cluster.closed and not await request.is_disconnected():
                await asyncio.sleep(EVENT_POLL_SECONDS)
                now = store.resource_version
                if now != last:
                    last, idle = now, 0.0
                    yield f"event: change\ndata: {json.dumps({'resourceVersion': now})}\n\n"
                else:
                    idle += EVENT_POLL_SECONDS
                    if idle >= HEARTBEAT_SECONDS:
                        idle = 0.0
                        yield ": keep-alive\n\n"

        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)

    app.mount("/static", StaticFiles(directory=static), name="static")
    app.mount(K8S_PREFIX, create_app(cluster))
    return app


def wrap(app: FastAPI) -> ASGIApp:
    """The app behind the request size limit (covers the mounted Kubernetes API too)."""
    return BodyLimit(app)


def _scheduler(cluster: LiveCluster) -> Any:
    return getattr(cluster.simulation, "scheduler", None)


def _label(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    return f"{obj.get('kind')}/{meta.get('name') or meta.get('generateName') or ''}"


def _first_message(errors: list[dict[str, Any]]) -> str:
    e = errors[0]
    where = ": ".join(str(p) for p in (e.get("object"), e.get("field")) if p)
    return f"{where}: {e['message']}" if where else str(e["message"])
