"""The ``Status`` objects the apiserver answers errors with (``kubectl`` prints their message)."""

from __future__ import annotations

from typing import Any

from kubedra.cluster.kinds import KindInfo
from kubedra.cluster.store import StoreError
from kubedra.gofmt import quote


class ApiError(Exception):
    """An error answered as a ``Status``: HTTP code, reason, message and details."""

    def __init__(
        self, code: int, reason: str, message: str, details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details

    def status(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
        }
        if self.details:
            body["details"] = self.details
        body["code"] = self.code
        return body


def from_store_error(error: StoreError, info: KindInfo, name: str) -> ApiError:
    """The Status of a store refusal: details name the resource (the kind for Invalid)."""
    details: dict[str, Any] = {"name": name}
    if info.group:
        details["group"] = info.group
    details["kind"] = info.kind if error.reason == "Invalid" else info.resource
    if error.causes:
        details["causes"] = error.causes
    return ApiError(error.code, error.reason, error.message, details)


def not_found(info: KindInfo, name: str) -> ApiError:
    details: dict[str, Any] = {"name": name}
    if info.group:
        details["group"] = info.group
    details["kind"] = info.resource
    return ApiError(404, "NotFound", f"{info.group_resource} {quote(name)} not found", details)


def bad_request(message: str) -> ApiError:
    return ApiError(400, "BadRequest", message)


def path_not_found() -> ApiError:
    """What the apiserver answers for a path it does not serve."""
    return ApiError(404, "NotFound", "the server could not find the requested resource")


def method_not_allowed(verb: str, info: KindInfo) -> ApiError:
    return ApiError(
        405,
        "MethodNotAllowed",
        f"{verb} is not supported on resources of kind {quote(info.resource)}",
    )
