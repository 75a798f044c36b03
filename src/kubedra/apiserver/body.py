"""Request bodies: read with the apiserver's size limit, decoded with the manifest reader.

Every write verb of every kind goes through here, so a new kind gets the same checks:

* at most :data:`MAX_REQUEST_BODY_BYTES` (3 MiB, the apiserver's ``MaxRequestBodyBytes``)
  are read; a larger declared or streamed body is 413 ``Request entity too large``;
* YAML is read by :func:`kubedra.api.io.reading.parse_yaml`, the reader of manifest files
  (aliases that expand far beyond their text are refused in linear time, nesting is
  bounded), JSON by the standard parser after a linear check of its nesting depth; both
  run in a worker thread (:func:`decode_body` is synchronous), never on the event loop;
* a DELETE body is ``DeleteOptions``, decoded into its types like any object.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError
from starlette.requests import Request

from kubedra.api.io.decoding import describe_validation_error
from kubedra.api.io.reading import MAX_OBJECT_BYTES, LoadError, parse_yaml
from kubedra.api.models.base import Int64, KubeModel
from kubedra.apiserver import protobuf
from kubedra.apiserver.status import ApiError, bad_request

MAX_REQUEST_BODY_BYTES = MAX_OBJECT_BYTES
"""The apiserver's request body limit (3 MiB)."""

MAX_BODY_DEPTH = 1000
"""How deeply a body may nest (libyaml's limit, which the YAML reader has too): objects
are nowhere near it, and deeper ones would only exhaust the stack further on."""

UNDECODABLE = "the body of the request could not be decoded"

# A JSON string (skipped whole) or a bracket: the structure, in one linear scan.
_JSON_STRUCTURE = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def too_large() -> ApiError:
    return ApiError(
        413,
        "RequestEntityTooLarge",
        f"Request entity too large: limit is {MAX_REQUEST_BODY_BYTES}",
    )


async def read_body(request: Request) -> bytes:
    """The body, refused with 413 past the limit: by its Content-Length before reading,
    or as soon as a streamed body passes it (nothing more is read)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_REQUEST_BODY_BYTES:
        raise too_large()
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_REQUEST_BODY_BYTES:
            raise too_large()
        chunks.append(chunk)
    return b"".join(chunks)


def decode_body(raw: bytes, content_type: str, kind: str, method: str) -> Any:
    """The body as JSON data (None when empty); 400 for what does not decode. Synchronous
    and possibly slow (a 3 MiB body): callers run it in a worker thread."""
    if not raw.strip():
        return None
    if content_type.startswith(protobuf.PROTOBUF):
        if method == "DELETE":
            return None  # DeleteOptions: the defaults (background propagation) apply
        return protobuf.decode_body(raw, kind)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise bad_request(f"{UNDECODABLE}: not UTF-8 text: {error.reason}") from None
    if "yaml" in content_type:
        return _yaml(text)
    return _json(text)


def _yaml(text: str) -> Any:
    documents = list(parse_yaml(text, "request body"))
    for document in documents:
        if isinstance(document, LoadError):
            raise bad_request(f"{UNDECODABLE}: {document.message}")
    if len(documents) > 1:
        raise bad_request(f"{UNDECODABLE}: {len(documents)} YAML documents, not one object")
    return documents[0].content if documents else None  # type: ignore[union-attr]


def _json(text: str) -> Any:
    depth = 0
    for match in _JSON_STRUCTURE.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_BODY_DEPTH:
                raise bad_request(f"{UNDECODABLE}: nested more than {MAX_BODY_DEPTH} levels")
        elif token in "]}":
            depth -= 1
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as error:
        raise bad_request(f"{UNDECODABLE}: {error}") from None


class _Preconditions(KubeModel):
    uid: str | None = None
    resource_version: str | None = None


class DeleteOptions(KubeModel):
    """The fields of ``meta/v1 DeleteOptions`` kubedra reads, typed as Go decodes them."""

    api_version: str | None = None
    kind: str | None = None
    grace_period_seconds: Int64 | None = None
    preconditions: _Preconditions | None = None
    orphan_dependents: bool | None = None
    propagation_policy: str | None = None
    dry_run: list[str] | None = None


def delete_options(body: Any) -> dict[str, Any]:
    """A DELETE body as ``DeleteOptions`` (an empty body is the defaults); 400 naming the
    field when one has the wrong type (``{"preconditions": "x"}``)."""
    if body is None:
        return {}
    if not isinstance(body, dict):
        raise bad_request(f"{UNDECODABLE}: DeleteOptions must be an object")
    try:
        DeleteOptions.model_validate(body)
    except ValidationError as error:
        described = describe_validation_error(
            {"kind": "DeleteOptions", "metadata": {}}, DeleteOptions, error
        )
        raise bad_request(f"{UNDECODABLE}: {described}") from None
    return body
