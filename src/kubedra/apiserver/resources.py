"""The REST endpoints: discovery, get, list (selectors, pages), watch, create, update,
patch and delete, with ``Status`` bodies for errors and Tables when kubectl asks for them.

Paths are parsed by hand (``/api/v1/namespaces/NS/pods/NAME/status``) because a route
table cannot tell ``namespaces/NS/status`` from ``namespaces/NS/pods``.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import functools
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from kubedra.apiserver import discovery, openapi
from kubedra.apiserver.backend import LiveCluster, shown_as
from kubedra.apiserver.body import decode_body, delete_options, read_body
from kubedra.apiserver.selectors import Matcher, field_matcher, label_matcher
from kubedra.apiserver.status import ApiError, bad_request, method_not_allowed, path_not_found
from kubedra.apiserver.tables import to_table, wants_table
from kubedra.cluster.kinds import KindInfo
from kubedra.gofmt import quote

WATCH_POLL_SECONDS = 0.05
DEFAULT_WATCH_SECONDS = 1800
INITIAL_EVENTS_END = "k8s.io/initial-events-end"
_VERBS = {"POST": "create", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}


def json_response(body: Any, code: int = 200, media: str = "application/json") -> Response:
    return Response(
        content=json.dumps(body, separators=(",", ":")), status_code=code, media_type=media
    )


def error_response(error: ApiError) -> Response:
    return json_response(error.status(), error.code)


@dataclass(frozen=True)
class Target:
    """What a resource path names."""

    info: KindInfo
    namespace: str | None
    name: str | None
    subresource: str


def parse_target(
    api_version: str,
    segments: list[str],
    release: str | None = None,
    hidden: frozenset[str] = frozenset(),
) -> Target:
    """``[namespaces, NS,] RESOURCE [, NAME [, SUB]]`` under one group/version."""
    namespace: str | None = None
    if len(segments) >= 3 and segments[0] == "namespaces" and segments[2] not in ("status",):
        namespace = segments[1]
        segments = segments[2:]
    if not segments or len(segments) > 3:
        raise path_not_found()
    info = discovery.find_resource(api_version, segments[0], release, hidden)
    if info is None or (namespace is not None and not info.namespaced):
        raise path_not_found()
    name = segments[1] if len(segments) > 1 else None
    subresource = segments[2] if len(segments) > 2 else ""
    if subresource and (subresource != "status" or info.kind not in discovery.WITH_STATUS):
        raise path_not_found()
    return Target(info, namespace, name, subresource)


class ContinueToken:
    """``?continue=``: where the next page starts (the last uid seen, or an offset)."""

    @staticmethod
    def encode(offset: int, uid: str) -> str:
        raw = json.dumps({"offset": offset, "uid": uid}).encode()
        return base64.urlsafe_b64encode(raw).decode()

    @staticmethod
    def start(token: str, items: list[dict[str, Any]]) -> int:
        try:
            data = json.loads(base64.urlsafe_b64decode(token.encode()))
        except (ValueError, TypeError, binascii.Error, RecursionError):
            raise bad_request("continue key is not valid: illegal base64 data") from None
        offset = data.get("offset") if isinstance(data, dict) else None
        uid = data.get("uid") if isinstance(data, dict) else None
        if type(offset) is not int or offset < 0 or not isinstance(uid, str):
            # Not one this server wrote (1e999, a string, a negative offset...).
            raise bad_request("continue key is not valid: not a continue token of this server")
        for index, item in enumerate(items):
            if item["metadata"].get("uid") == uid:
                return index + 1
        return offset


class ApiRoutes:
    """The request handlers for one LiveCluster."""

    def __init__(self, cluster: LiveCluster) -> None:
        self.cluster = cluster

    # --- discovery -------------------------------------------------------------------------

    async def core(self, request: Request) -> Response:
        if discovery.wants_aggregated(request.headers.get("accept")):
            body = discovery.aggregated(
                core=True, release=self.cluster.release, hidden=self.cluster.hidden_kinds
            )
            return json_response(body, media=discovery.AGGREGATED)
        return json_response(discovery.api_versions(request.url.netloc))

    async def groups(self, request: Request) -> Response:
        if discovery.wants_aggregated(request.headers.get("accept")):
            body = discovery.aggregated(
                core=False, release=self.cluster.release, hidden=self.cluster.hidden_kinds
            )
            return json_response(body, media=discovery.AGGREGATED)
        return json_response(discovery.api_groups(self.cluster.release, self.cluster.hidden_kinds))

    async def version(self, request: Request) -> Response:
        return json_response(discovery.version_info(self.cluster.release))

    async def healthz(self, request: Request) -> Response:
        return Response("ok", media_type="text/plain")

    async def openapi_v2(self, request: Request) -> Response:
        if not openapi.wants_json(request.headers.get("accept")):
            message = "only application/json is served for the OpenAPI v2 document"
            return error_response(ApiError(406, "NotAcceptable", message))
        return json_response(openapi.swagger(self.cluster.release, self.cluster.hidden_kinds))

    async def openapi_v3(self, request: Request, rest: str = "") -> Response:
        release = self.cluster.release
        hidden = self.cluster.hidden_kinds
        key = rest.strip("/")
        body = openapi.document(key, release, hidden) if key else openapi.root(release, hidden)
        if body is None:
            return error_response(path_not_found())
        return json_response(body)

    # --- resources -------------------------------------------------------------------------

    async def core_path(self, request: Request, rest: str) -> Response:
        segments = [s for s in rest.split("/") if s]
        if not segments:
            return await self.core(request)
        if segments[0] != "v1":
            return error_response(path_not_found())
        return await self._dispatch(request, "v1", segments[1:])

    async def group_path(self, request: Request, rest: str) -> Response:
        segments = [s for s in rest.split("/") if s]
        if not segments:
            return await self.groups(request)
        group = segments[0]
        if len(segments) == 1:
            served = discovery.group_versions(self.cluster.release, self.cluster.hidden_kinds)
            if group not in {gv.group for gv in served if gv.group}:
                return error_response(path_not_found())
            return json_response(
                discovery.api_group(group, self.cluster.release, self.cluster.hidden_kinds)
            )
        return await self._dispatch(request, f"{group}/{segments[1]}", segments[2:])

    async def _dispatch(self, request: Request, api_version: str, segments: list[str]) -> Response:
        try:
            if not segments:
                if request.method != "GET":
                    raise path_not_found()
                resources = discovery.resource_list(
                    api_version, self.cluster.release, self.cluster.hidden_kinds
                )
                if resources is None:
                    raise path_not_found()
                return json_response(resources)
            target = parse_target(
                api_version, segments, self.cluster.release, self.cluster.hidden_kinds
            )
            return await self._serve(request, target)
        except ApiError as error:
            return error_response(error)

    async def _serve(self, request: Request, target: Target) -> Response:
        method = request.method
        params = request.query_params
        cluster = self.cluster
        if target.info.namespaced and target.namespace is None and (method != "GET" or target.name):
            raise path_not_found()
        if method == "GET" and target.name is None:
            if params.get("watch") in ("true", "1"):
                return self._watch(request, target)
            return await run_in_threadpool(self._list, request, target)
        if method == "GET":
            assert target.name is not None
            obj = await run_in_threadpool(cluster.get, target.info, target.name, target.namespace)
            if wants_table(request.headers.get("accept")):
                table = to_table(
                    target.info.kind,
                    [obj],
                    cluster.clock.now(),
                    {"resourceVersion": obj["metadata"].get("resourceVersion", "")},
                    params.get("includeObject", "Metadata"),
                )
                return json_response(table)
            return json_response(obj)
        if target.info in discovery.READ_ONLY:  # made by the server, never written by clients
            raise method_not_allowed(_VERBS.get(method, method.lower()), target.info)
        raw = await read_body(request)
        content_type = request.headers.get("content-type", "")
        body = await run_in_threadpool(
            decode_body, raw, content_type, target.info.kind, request.method
        )
        options = delete_options(body) if method == "DELETE" else {}
        dry_run = dry_run_of(request, method, options)
        if method == "POST" and target.name is None:
            created = await run_in_threadpool(
                functools.partial(cluster.create, dry_run=dry_run),
                target.info,
                target.namespace,
                body,
            )
            return json_response(created, 201)
        if method == "DELETE":
            options = with_query_grace_period(request, options)
        if method == "DELETE" and target.name is None:
            return await run_in_threadpool(
                self._delete_collection, request, target, options, dry_run
            )
        if target.name is None:
            raise ApiError(405, "MethodNotAllowed", f"{method} is not supported on collections")
        if method == "PUT":
            updated = await run_in_threadpool(
                functools.partial(cluster.replace, dry_run=dry_run),
                target.info,
                target.namespace,
                target.name,
                body,
                target.subresource,
            )
            return json_response(updated)
        if method == "PATCH":
            patched = await run_in_threadpool(
                functools.partial(cluster.patch, dry_run=dry_run),
                target.info,
                target.namespace,
                target.name,
                body,
                content_type,
                target.subresource,
            )
            return json_response(patched)
        if method == "DELETE":
            last = await run_in_threadpool(
                functools.partial(cluster.delete, dry_run=dry_run),
                target.info,
                target.namespace,
                target.name,
                options,
            )
            return json_response(last)
        raise ApiError(405, "MethodNotAllowed", f"{method} is not supported")

    def _matchers(self, request: Request, target: Target) -> tuple[Matcher, Matcher]:
        params = request.query_params
        return (
            label_matcher(params.get("labelSelector")),
            field_matcher(params.get("fieldSelector"), target.info.kind),
        )

    def _list(self, request: Request, target: Target) -> Response:
        params = request.query_params
        labels, fields = self._matchers(request, target)
        items, version = self.cluster.list(target.info, target.namespace)
        items = [obj for obj in items if labels(obj) and fields(obj)]
        start = 0
        if params.get("continue"):
            start = ContinueToken.start(params["continue"], items)
        meta: dict[str, Any] = {"resourceVersion": str(version)}
        limit = _int_param(params.get("limit"), "limit")
        page = items[start:]
        if limit and len(page) > limit:
            page = page[:limit]
            meta["continue"] = ContinueToken.encode(
                start + limit, str(page[-1]["metadata"].get("uid", ""))
            )
            meta["remainingItemCount"] = len(items) - start - limit
        if wants_table(request.headers.get("accept")):
            table = to_table(
                target.info.kind,
                page,
                self.cluster.clock.now(),
                meta,
                params.get("includeObject", "Metadata"),
            )
            return json_response(table)
        return json_response(
            {
                "kind": f"{target.info.kind}List",
                "apiVersion": target.info.api_version,
                "metadata": meta,
                "items": page,
            }
        )

    def _delete_collection(
        self, request: Request, target: Target, options: dict[str, Any], dry_run: bool
    ) -> Response:
        """``deletecollection``: delete every selected object; answer the list of them."""
        labels, fields = self._matchers(request, target)
        with self.cluster.lock:
            items, _ = self.cluster.list(target.info, target.namespace)
            deleted = []
            for obj in items:
                if labels(obj) and fields(obj):
                    meta = obj["metadata"]
                    name, namespace = meta["name"], meta.get("namespace")
                    deleted.append(
                        self.cluster.delete(target.info, namespace, name, options, dry_run=dry_run)
                    )
            version = self.cluster.store.resource_version
        return json_response(
            {
                "kind": f"{target.info.kind}List",
                "apiVersion": target.info.api_version,
                "metadata": {"resourceVersion": str(version)},
                "items": deleted,
            }
        )

    # --- watch -----------------------------------------------------------------------------

    def _watch(self, request: Request, target: Target) -> StreamingResponse:
        params = request.query_params
        labels, fields = self._matchers(request, target)
        timeout = _int_param(params.get("timeoutSeconds"), "timeoutSeconds")
        as_table = wants_table(request.headers.get("accept"))
        stream = self._watch_events(
            target,
            labels,
            fields,
            params.get("resourceVersion", ""),
            params.get("sendInitialEvents") == "true",
            params.get("allowWatchBookmarks") == "true",
            timeout or DEFAULT_WATCH_SECONDS,
            as_table,
        )
        return StreamingResponse(stream, media_type="application/json")

    async def _watch_events(
        self,
        target: Target,
        labels: Matcher,
        fields: Matcher,
        version_text: str,
        send_initial: bool,
        bookmarks: bool,
        timeout: int,
        as_table: bool,
    ) -> AsyncIterator[bytes]:
        cluster = self.cluster
        info = target.info

        def matches(obj: dict[str, Any] | None) -> bool:
            if obj is None:
                return False
            if target.namespace and obj["metadata"].get("namespace") != target.namespace:
                return False
            return labels(obj) and fields(obj)

        def line(type_: str, obj: dict[str, Any]) -> bytes:
            obj = shown_as(info, obj)
            if as_table and type_ in ("ADDED", "MODIFIED", "DELETED"):
                meta = {"resourceVersion": obj["metadata"].get("resourceVersion", "")}
                obj = to_table(info.kind, [obj], cluster.clock.now(), meta)
            return (
                json.dumps({"type": type_, "object": obj}, separators=(",", ":")).encode() + b"\n"
            )

        def begin() -> tuple[list[dict[str, Any]], int, int]:
            """The initial objects, the version and feed position to go on from (-1: gone)."""
            with cluster.lock:
                if version_text in ("", "0") or send_initial:
                    items, version = cluster.list(info, target.namespace)
                    return [obj for obj in items if matches(obj)], version, cluster.feed.end()
                try:
                    version = int(version_text)
                except ValueError:
                    version = -1
                if version < 0 or cluster.feed.expired(version):
                    return [], version, -1
                return [], version, cluster.feed.position_after(version)

        initial, version, position = await run_in_threadpool(begin)
        if position < 0:
            message = f"too old resource version: {version_text} ({cluster.feed.oldest})"
            yield line("ERROR", ApiError(410, "Expired", message).status())
            return
        for obj in initial:
            yield line("ADDED", obj)
        if send_initial and bookmarks:
            marker = {
                "kind": info.kind,
                "apiVersion": info.api_version,
                "metadata": {
                    "resourceVersion": str(version),
                    "annotations": {INITIAL_EVENTS_END: "true"},
                },
            }
            yield line("BOOKMARK", marker)
        deadline = time.monotonic() + timeout
        while not cluster.closed and time.monotonic() < deadline:
            events, position = cluster.feed.read(position)
            for event in events:
                if event.kind != info.kind:
                    continue
                now_match = event.type != "DELETED" and matches(event.obj)
                was_match = matches(event.old) if event.type == "MODIFIED" else False
                if event.type == "DELETED":
                    if matches(event.obj):
                        yield line("DELETED", event.obj)
                elif now_match and (event.type == "ADDED" or was_match):
                    yield line(event.type, event.obj)
                elif now_match:
                    yield line("ADDED", event.obj)
                elif was_match:
                    yield line("DELETED", event.obj)
            if not events:
                await asyncio.sleep(WATCH_POLL_SECONDS)


OPTIONS_KINDS = {
    "POST": "CreateOptions",
    "PUT": "UpdateOptions",
    "PATCH": "PatchOptions",
    "DELETE": "DeleteOptions",
}


def dry_run_of(request: Request, method: str, options: dict[str, Any]) -> bool:
    """``?dryRun=All`` (or DeleteOptions' ``dryRun: [All]``): the only value upstream takes;
    any other is refused as the apiserver's options validation refuses it."""
    values = list(request.query_params.getlist("dryRun"))
    given = options.get("dryRun")
    if isinstance(given, list):
        values += [str(v) for v in given]
    elif given is not None:
        values.append(str(given))
    for index, value in enumerate(values):
        if value != "All":
            kind = OPTIONS_KINDS.get(method, "CreateOptions")
            message = (
                f'{kind}.meta.k8s.io "" is invalid: dryRun[{index}]: Unsupported value: '
                f'{quote(value)}: supported values: "All"'
            )
            raise ApiError(422, "Invalid", message, {"group": "meta.k8s.io", "kind": kind})
    return bool(values)


def with_query_grace_period(request: Request, options: dict[str, Any]) -> dict[str, Any]:
    """DeleteOptions with ``?gracePeriodSeconds=`` as the apiserver reads it (over the
    body's)."""
    text = request.query_params.get("gracePeriodSeconds")
    if text is None:
        return options
    try:
        grace = int(text)
    except ValueError:
        raise bad_request(
            f"gracePeriodSeconds: invalid value {text!r}: must be an integer"
        ) from None
    return {**options, "gracePeriodSeconds": grace}


def _int_param(text: str | None, name: str) -> int:
    if not text:
        return 0
    try:
        value = int(text)
    except ValueError:
        raise bad_request(f"{name}: invalid value {text!r}: must be an integer") from None
    if value < 0:
        raise bad_request(f"{name}: invalid value {text!r}: must be non-negative")
    return value


def build_router(cluster: LiveCluster) -> APIRouter:
    """The Kubernetes API of ``cluster`` as a router, to mount in any FastAPI app."""
    routes = ApiRoutes(cluster)
    router = APIRouter()
    methods = ["GET", "POST", "PUT", "PATCH", "DELETE"]
    router.add_api_route("/version", routes.version, methods=["GET"], include_in_schema=False)
    for path in ("/healthz", "/readyz", "/livez"):
        router.add_api_route(path, routes.healthz, methods=["GET"], include_in_schema=False)
    router.add_api_route("/openapi/v2", routes.openapi_v2, methods=["GET"], include_in_schema=False)
    router.add_api_route("/openapi/v3", routes.openapi_v3, methods=["GET"], include_in_schema=False)
    router.add_api_route(
        "/openapi/v3/{rest:path}", routes.openapi_v3, methods=["GET"], include_in_schema=False
    )
    router.add_api_route("/api", routes.core, methods=["GET"], include_in_schema=False)
    router.add_api_route("/apis", routes.groups, methods=["GET"], include_in_schema=False)
    router.add_api_route(
        "/api/{rest:path}", routes.core_path, methods=methods, include_in_schema=False
    )
    router.add_api_route(
        "/apis/{rest:path}", routes.group_path, methods=methods, include_in_schema=False
    )
    return router
