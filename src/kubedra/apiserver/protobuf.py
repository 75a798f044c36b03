"""Reading the protobuf bodies kubectl's typed clients send (``kubectl create namespace``,
``kubectl create priorityclass``): the ``k8s\\0`` envelope and the few messages they carry.

Other kinds in protobuf are refused with 415; kubectl sends JSON for ``create -f``/``apply``.
"""

from __future__ import annotations

from typing import Any

from kubedra.apiserver.status import ApiError

MAGIC = b"k8s\x00"
PROTOBUF = "application/vnd.kubernetes.protobuf"

Fields = dict[int, list[int | bytes]]


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(data):
            raise ValueError("truncated varint")
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, at
        shift += 7


def fields(data: bytes) -> Fields:
    """Field number -> values (varints as ints, length-delimited as bytes)."""
    out: Fields = {}
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        value: int | bytes
        if wire == 0:
            value, at = _varint(data, at)
        elif wire == 2:
            length, at = _varint(data, at)
            value = data[at : at + length]
            if len(value) != length:
                raise ValueError("truncated field")
            at += length
        elif wire == 1:
            value, at = int.from_bytes(data[at : at + 8], "little"), at + 8
        elif wire == 5:
            value, at = int.from_bytes(data[at : at + 4], "little"), at + 4
        else:
            raise ValueError(f"unsupported wire type {wire}")
        out.setdefault(number, []).append(value)
    return out


def _message(values: Fields, number: int) -> bytes:
    """An embedded message's bytes (empty when absent)."""
    found = values.get(number)
    return found[-1] if found and isinstance(found[-1], bytes) else b""


def _text(values: Fields, number: int) -> str | None:
    found = values.get(number)
    return bytes(found[-1]).decode() if found and isinstance(found[-1], bytes) else None


def _texts(values: Fields, number: int) -> list[str]:
    return [bytes(v).decode() for v in values.get(number, []) if isinstance(v, bytes)]


def _map(values: Fields, number: int) -> dict[str, str]:
    entries = {}
    for entry in values.get(number, []):
        if isinstance(entry, bytes):
            pair = fields(entry)
            entries[_text(pair, 1) or ""] = _text(pair, 2) or ""
    return entries


def _int(values: Fields, number: int) -> int | None:
    found = values.get(number)
    if not found or not isinstance(found[-1], int):
        return None
    value = found[-1]
    return value - (1 << 64) if value >= 1 << 63 else value


def _object_meta(data: bytes) -> dict[str, Any]:
    values = fields(data)
    meta: dict[str, Any] = {}
    for key, number in (("name", 1), ("generateName", 2), ("namespace", 3)):
        text = _text(values, number)
        if text:
            meta[key] = text
    for key, number in (("labels", 11), ("annotations", 12)):
        entries = _map(values, number)
        if entries:
            meta[key] = entries
    finalizers = _texts(values, 14)
    if finalizers:
        meta["finalizers"] = finalizers
    return meta


def _namespace(values: Fields) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    spec = values.get(2)
    if spec and isinstance(spec[-1], bytes):
        finalizers = _texts(fields(spec[-1]), 1)
        if finalizers:
            obj["spec"] = {"finalizers": finalizers}
    return obj


def _priority_class(values: Fields) -> dict[str, Any]:
    obj: dict[str, Any] = {"value": _int(values, 2) or 0}
    if _int(values, 3):
        obj["globalDefault"] = True
    for key, number in (("description", 4), ("preemptionPolicy", 5)):
        text = _text(values, number)
        if text:
            obj[key] = text
    return obj


READERS = {"Namespace": _namespace, "PriorityClass": _priority_class}


def decode_body(raw: bytes, kind: str) -> dict[str, Any]:
    """The JSON form of a protobuf-encoded ``kind``; 415 for kinds not read here."""
    reader = READERS.get(kind)
    if reader is None:
        raise ApiError(
            415,
            "UnsupportedMediaType",
            f"protobuf bodies of kind {kind} are not supported by the simulated cluster; send JSON",
        )
    try:
        if not raw.startswith(MAGIC):
            raise ValueError("missing the k8s protobuf envelope")
        unknown = fields(raw[len(MAGIC) :])
        type_meta = fields(_message(unknown, 1))
        payload = fields(_message(unknown, 2))
        obj: dict[str, Any] = {
            "apiVersion": _text(type_meta, 1) or "",
            "kind": _text(type_meta, 2) or kind,
        }
        obj["metadata"] = _object_meta(_message(payload, 1))
        obj.update(reader(payload))
    except (ValueError, UnicodeDecodeError) as error:
        raise ApiError(400, "BadRequest", f"the protobuf body does not decode: {error}") from None
    if not obj["apiVersion"]:
        del obj["apiVersion"]
    return obj
