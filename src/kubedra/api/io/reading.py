"""Reading manifest files into raw documents: paths, directories, YAML and JSON streams.

Every problem becomes a :class:`LoadError` with the file, the document index and one line of
text; nothing here raises for bad input.
"""

from __future__ import annotations

import datetime
import json
import math
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import yaml
import yaml_rs

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
STDIN = "-"
STDIN_NAME = "<stdin>"

_BaseLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


MAX_OBJECT_BYTES = 3 * 1024 * 1024
"""The apiserver's request body limit (3 MiB): one object's JSON may not be larger."""

MAX_FILE_BYTES = 64 * 1024 * 1024
"""The most one file (or standard input) may hold: a stream of many objects may exceed the
per-object limit, but reading stays bounded in time and memory (about 30 bytes of memory per
byte of YAML)."""


class ManifestLoader(_BaseLoader):  # type: ignore[misc,valid-type]
    """The C safe loader, read as Kubernetes (go-yaml v2 through sigs.k8s.io/yaml) reads
    manifests: timestamps stay strings, no base-60 numbers, a key repeated in one mapping is an
    error (``key "name" already set in map``), and every value is JSON data: ``!!set`` is a
    mapping to nulls, ``!!binary`` a string, ``!!timestamp`` an RFC 3339 string, ``!!omap`` and
    ``!!pairs`` lists of one-entry mappings. A scalar that does not fit its explicit tag
    (``!!int +``) is an error with its line, never a Python exception."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[tuple[str, str]] = set()
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == MERGE_TAG:
                continue
            key = (key_node.tag, key_node.value)
            if key in seen:
                problem = f"key {json.dumps(key_node.value)} already set in map"
                raise yaml.constructor.ConstructorError(None, None, problem, key_node.start_mark)
            seen.add(key)
        mapping: dict[Any, Any] = super().construct_mapping(node, deep)
        return mapping


MERGE_TAG = "tag:yaml.org,2002:merge"
TAG_PREFIX = "tag:yaml.org,2002:"
FLOAT_TAG = TAG_PREFIX + "float"
INT_TAG = TAG_PREFIX + "int"
TIMESTAMP_TAG = TAG_PREFIX + "timestamp"

_GO_EXPONENT_FLOAT = re.compile(r"^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][-+]?[0-9]+$")
"""Floats with an exponent that Go's YAML reads (``1e3``, ``1.5E-2``) but PyYAML's YAML 1.1
pattern does not (it wants a dot and a signed exponent)."""

_INT_1_1 = re.compile(
    r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$"
)
"""YAML 1.1 integers without the base-60 form (``1:20``), which go-yaml reads as a string."""

_FLOAT_1_1 = re.compile(
    r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    r"|" + _GO_EXPONENT_FLOAT.pattern
)
"""YAML 1.1 floats without base 60, plus Go's exponent forms."""


def _manifest_resolver(tag: str, regexp: re.Pattern[str]) -> tuple[str, re.Pattern[str]]:
    if tag == FLOAT_TAG:
        return tag, _FLOAT_1_1
    if tag == INT_TAG:
        return tag, _INT_1_1
    return tag, regexp


ManifestLoader.yaml_implicit_resolvers = {
    first: [_manifest_resolver(tag, regexp) for tag, regexp in resolvers if tag != TIMESTAMP_TAG]
    for first, resolvers in _BaseLoader.yaml_implicit_resolvers.items()
}


def _tag_error(node: yaml.Node, what: str) -> yaml.constructor.ConstructorError:
    value = node.value if isinstance(node, yaml.ScalarNode) else ""
    shown = json.dumps(value if len(value) <= 40 else value[:37] + "...")
    return yaml.constructor.ConstructorError(
        None, None, f"cannot decode {shown} as {what}", node.start_mark
    )


def _scalar(loader: ManifestLoader, node: yaml.Node, what: str) -> str:
    if not isinstance(node, yaml.ScalarNode):
        raise _tag_error(node, what)
    return str(loader.construct_scalar(node))


def _construct_int(loader: ManifestLoader, node: yaml.Node) -> int:
    text = _scalar(loader, node, "an integer").replace("_", "")
    sign, digits = (-1, text[1:]) if text[:1] == "-" else (1, text.lstrip("+"))
    try:
        if digits.startswith("0b"):
            return sign * int(digits[2:], 2)
        if digits.startswith("0x"):
            return sign * int(digits[2:], 16)
        if digits.startswith("0") and len(digits) > 1:
            return sign * int(digits, 8)
        if not digits.isascii() or not digits.isdigit():
            raise ValueError(digits)
        return sign * int(digits)
    except ValueError:  # not a number, or too many digits for Python's int()
        raise _tag_error(node, "an integer") from None


_FLOAT_WORDS = {".inf": math.inf, ".nan": math.nan}


def _construct_float(loader: ManifestLoader, node: yaml.Node) -> float:
    text = _scalar(loader, node, "a float").replace("_", "").lower()
    sign, body = (-1.0, text[1:]) if text[:1] == "-" else (1.0, text.lstrip("+"))
    if body in _FLOAT_WORDS:
        return sign * _FLOAT_WORDS[body]
    if not re.fullmatch(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:e[-+]?[0-9]+)?", body):
        raise _tag_error(node, "a float")
    return sign * float(body)


_BOOLS = {word: True for word in ("yes", "true", "on")} | {
    word: False for word in ("no", "false", "off")
}


def _construct_bool(loader: ManifestLoader, node: yaml.Node) -> bool:
    value = _BOOLS.get(_scalar(loader, node, "a boolean").lower())
    if value is None:
        raise _tag_error(node, "a boolean")
    return value


_TIMESTAMP = re.compile(
    r"(\d{4})-(\d{1,2})-(\d{1,2})"
    r"(?:(?:[Tt]|[ \t]+)(\d{1,2}):(\d{2}):(\d{2})(?:\.(\d+))?"
    r"(?:[ \t]*(Z|[-+]\d{1,2}(?::?\d{2})?))?)?"
)


def _construct_timestamp(loader: ManifestLoader, node: yaml.Node) -> str:
    """An RFC 3339 string, as Go's time.Time is written to JSON."""
    match = _TIMESTAMP.fullmatch(_scalar(loader, node, "a timestamp"))
    if match is None:
        raise _tag_error(node, "a timestamp")
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    try:
        datetime.datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0))
        if int(second or 0) > 60:
            raise ValueError(second)
    except ValueError:
        raise _tag_error(node, "a timestamp") from None
    text = f"{year}-{int(month):02d}-{int(day):02d}T{int(hour or 0):02d}:{minute or '00'}"
    text += f":{second or '00'}"
    if fraction and fraction.rstrip("0"):
        text += "." + fraction.rstrip("0")
    if zone is None or zone == "Z":
        return text + "Z"
    hours, _, minutes = zone[1:].partition(":")
    if not minutes and len(hours) > 2:
        hours, minutes = hours[:-2], hours[-2:]
    return f"{text}{zone[0]}{int(hours):02d}:{minutes or '00'}"


def _construct_binary(loader: ManifestLoader, node: yaml.Node) -> str:
    if not isinstance(node, yaml.ScalarNode):
        raise _tag_error(node, "binary data")
    data: bytes = yaml.constructor.SafeConstructor.construct_yaml_binary(loader, node)
    return data.decode("utf-8", errors="replace")


def _construct_set(loader: ManifestLoader, node: yaml.Node) -> dict[Any, None]:
    if not isinstance(node, yaml.MappingNode):
        raise _tag_error(node, "a set")
    return dict.fromkeys(loader.construct_mapping(node, deep=True))


def _construct_pairs(loader: ManifestLoader, node: yaml.Node) -> list[dict[Any, Any]]:
    if not isinstance(node, yaml.SequenceNode):
        raise _tag_error(node, "ordered pairs")
    pairs: list[dict[Any, Any]] = []
    for item in node.value:
        if not isinstance(item, yaml.MappingNode) or len(item.value) != 1:
            raise _tag_error(item, "a one-entry mapping")
        pairs.append(loader.construct_mapping(item, deep=True))
    return pairs


_CONSTRUCTORS: dict[str, Callable[[ManifestLoader, yaml.Node], Any]] = {
    "int": _construct_int,
    "float": _construct_float,
    "bool": _construct_bool,
    "timestamp": _construct_timestamp,
    "binary": _construct_binary,
    "set": _construct_set,
    "omap": _construct_pairs,
    "pairs": _construct_pairs,
}
for _name, _constructor in _CONSTRUCTORS.items():
    ManifestLoader.add_constructor(TAG_PREFIX + _name, _constructor)

_TERMINATOR = r"(?=[ \t]*(?:[,\]}\r\n#]|:[ \t\r\n]|:$|$))"
"""Where a plain scalar may end: a flow indicator, a comment, a line break or a key's colon."""

_AGREED_FORMS = (
    r"[-+]?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"  # plain decimal numbers
    r"|[0-9]+(?:\.[0-9]+){2,}"  # versions and addresses: 1.2.3, 10.0.0.1
    r"|[0-9][0-9a-zA-Z.]*-[0-9a-zA-Z.-]*"  # dates (no timestamps in either reader), UIDs
    r"|[-+]?[0-9][^\s,\[\]{}#]*?[^0-9a-fA-FoOxX._:+\s,\[\]{}#-][^\s,\[\]{}#]*?"  # 16Gi, 1/2
)
"""Number-like plain scalars that both readers read the same way."""

_DISPUTED_BODY = (
    r"[ \t]*(?=[-+._0-9yYnNoO:])"
    r"(?::|(?:[yYnN]|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF)" + _TERMINATOR + r"|"
    r"(?!(?:" + _AGREED_FORMS + r")" + _TERMINATOR + r")"
    r"[-+]?[._0-9][^\s,\[\]{}#]*?" + _TERMINATOR + r")"
)
_DISPUTED_AFTER = [
    re.compile(context + _DISPUTED_BODY)
    for context in (": ", ":\t", "- ", "-\t", r"\[", r"\{", ",", r"\? ")
]
"""A plain scalar that YAML 1.1 (PyYAML, like Kubernetes' go-yaml v2) may read differently from
the YAML 1.2 fast reader: an empty key or a scalar starting with a colon (``- : v``, ``[:0]``),
y/n/yes/no/on/off, and every number-like scalar except the agreed
forms (``0o17``, ``017``, ``0x1F``, ``1_000``, ``_2``, ``.5``, ``+.inf``, ...). The differential
test in tests/api/test_yaml_readers.py checks this over a grammar of scalar forms. One pattern
per leading context, because a literal prefix lets the regex engine skip ahead fast."""

_DISPUTED_AT_LINE_START = re.compile("\n" + _DISPUTED_BODY)
"""The same at the start of a line (block mapping keys, flow content over several lines)."""

_SUSPECT_LINE_START = re.compile(
    r"\n[ \t]*+(?:[+_0-9:]|\.(?!\.\.)|-(?!--)[^ \t\r\n]"
    r"|(?:[yYnN]|[yY]es|YES|[nN]o|NO|[oO]n|ON|[oO]ff|OFF)(?:[ \t:,\]}#\r\n]|$))"
)
"""A line that may start with a disputed scalar (not ``---`` or ``...``); only then is the
slower exact line-start pattern run over the text."""

_COLON_BEFORE_FLOW_INDICATOR = re.compile(r":[,\]}]")
"""``[a:]``: YAML 1.2 reads a mapping, YAML 1.1 readers may refuse it. (A colon where a scalar
starts, an implicit empty key as in ``- : v`` or ``[:0]``, is a disputed scalar too.)"""


def _has_disputed_scalar(text: str) -> bool:
    if _COLON_BEFORE_FLOW_INDICATOR.search(text):
        return True
    if any(pattern.search(text) for pattern in _DISPUTED_AFTER):
        return True
    first_line = "\n" + text.partition("\n")[0]
    if not (_SUSPECT_LINE_START.search(text) or _SUSPECT_LINE_START.match(first_line)):
        return False
    return _DISPUTED_AT_LINE_START.search("\n" + text) is not None


FAST_PATH_MAX_LINE = 1000
"""Block nesting needs indentation or a ``- `` per level, so lines of at most this length keep
the depth far below what overflows ``yaml_rs``'s stack (tens of thousands of levels); flow
nesting it limits itself."""

_STREAM_PREFIX = "--- 0\n...\n"
"""A document put before the text so that the fast parser always returns a list of them."""

_TAG = re.compile(r"(?:^|[\s\[{,:\-])![^=\s]")

_ALIAS = re.compile(r"(?:^|[\s\[{,:])\*[^\s*,\]}]")


@dataclass(frozen=True)
class LoadError:
    """A file or document that could not be turned into an object."""

    source: str
    document: int | None
    message: str
    item: int | None = None

    def location(self) -> str:
        """``file``, ``file: document N`` or ``file: document N, items[M]``."""
        where = self.source
        if self.document is not None:
            where += f": document {self.document}"
        if self.item is not None:
            where += f", items[{self.item}]"
        return where

    def __str__(self) -> str:
        """One line, always: line breaks inside names and values are escaped."""
        text = f"{self.location()}: {self.message}"
        return text.translate(_LINE_BREAK_ESCAPES)


_LINE_BREAK_ESCAPES = str.maketrans(
    {
        "\n": "\\n",
        "\r": "\\r",
        "\v": "\\v",
        "\f": "\\f",
        "\x85": "\\x85",
        "\u2028": "\\u2028",
        "\u2029": "\\u2029",
        "\x1c": "\\x1c",
        "\x1d": "\\x1d",
        "\x1e": "\\x1e",
    }
)


@dataclass(frozen=True)
class RawDocument:
    source: str
    document: int
    content: Any
    measure: bool = False
    """Whether the text was large enough that an object in it may exceed
    :data:`MAX_OBJECT_BYTES`, so that decoding measures each one."""


def manifest_files(paths: Iterable[str | Path]) -> Iterator[Path | str | LoadError]:
    """Expand the given paths: files as given, directories recursively (sorted, manifest
    suffixes only, hidden entries skipped), ``-`` for standard input."""
    for path in paths:
        if str(path) == STDIN:
            yield STDIN
            continue
        try:
            yield from _expand(Path(path))
        except OSError as error:  # permissions, name too long...
            yield LoadError(str(path), None, f"cannot read: {error.strerror or error}")


def _expand(path: Path) -> Iterator[Path | LoadError]:
    if path.is_dir():
        found = sorted(
            candidate
            for candidate in path.rglob("*")
            if candidate.suffix in MANIFEST_SUFFIXES
            and candidate.is_file()
            and not any(part.startswith(".") for part in candidate.relative_to(path).parts)
        )
        if not found:
            yield LoadError(str(path), None, "directory holds no .yaml, .yml or .json files")
        yield from found
    elif path.exists():
        yield path
    else:
        yield LoadError(str(path), None, "no such file or directory")


def read_documents(file: Path | str) -> Iterator[RawDocument | LoadError]:
    """The documents of one file (or of standard input for ``-``).

    Only regular files are read (a device or FIFO could be endless or block forever), and at
    most :data:`MAX_FILE_BYTES` of them or of standard input.
    """
    source = STDIN_NAME if file == STDIN else str(file)
    text = read_text(file)
    if isinstance(text, LoadError):
        yield text
        return
    if isinstance(file, Path) and file.suffix == ".json":
        yield from parse_json(text, source)
    else:
        yield from parse_yaml(text, source)


def read_text(file: Path | str) -> str | LoadError:
    """The UTF-8 text of one regular file (or of standard input for ``-``), read as
    :func:`read_documents` reads it (bounded, never blocking on a FIFO), or the LoadError."""
    source = STDIN_NAME if file == STDIN else str(file)
    try:
        data = _read_stdin() if file == STDIN else _read_file(Path(file))
    except _TooLargeError:
        return LoadError(source, None, _too_large_message())
    except _NotRegularError as error:
        return LoadError(source, None, f"not a regular file ({error}): refusing to read it")
    except OSError as error:
        return LoadError(source, None, f"cannot read: {error.strerror or error}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        return LoadError(source, None, f"not UTF-8 text: {error.reason} at byte {error.start}")


class _TooLargeError(Exception):
    pass


class _NotRegularError(Exception):
    pass


def _too_large_message() -> str:
    return f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB ({MAX_FILE_BYTES} bytes): not read"


def _read_file(path: Path) -> bytes:
    """Checked before opening: opening a FIFO would block until a writer comes."""
    mode = path.stat().st_mode
    if not stat.S_ISREG(mode):
        raise _NotRegularError(_file_kind(mode))
    if path.stat().st_size > MAX_FILE_BYTES:
        raise _TooLargeError
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)  # never wait on a swapped-in FIFO
    descriptor = os.open(path, flags)
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise _NotRegularError(_file_kind(os.fstat(handle.fileno()).st_mode))
        return _read_bounded(handle)


def _read_stdin() -> bytes:
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:  # a text stream without bytes (tests replace stdin so)
        text = sys.stdin.read(MAX_FILE_BYTES + 1)
        if len(text) > MAX_FILE_BYTES:
            raise _TooLargeError
        return text.encode("utf-8", errors="surrogateescape")
    return _read_bounded(stream)


def _read_bounded(handle: BinaryIO) -> bytes:
    data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise _TooLargeError
    return data


def _file_kind(mode: int) -> str:
    for check, name in (
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a directory"),
    ):
        if check(mode):
            return name
    return "not a plain file"


def oversized_text(text: str, source: str) -> LoadError | None:
    """The error for a text beyond :data:`MAX_FILE_BYTES`, as for a file, else None."""
    if len(text) <= MAX_FILE_BYTES // 4 or len(text.encode("utf-8", "surrogatepass")) <= (
        MAX_FILE_BYTES
    ):
        return None
    return LoadError(source, None, _too_large_message())


class _JSONProblem(ValueError):
    """A JSON value Kubernetes' strict decoder refuses although Python's json accepts it."""


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for name, _ in pairs:
            if name in seen:
                raise _JSONProblem(f"duplicate field {json.dumps(name, ensure_ascii=False)}")
            seen.add(name)
    return obj


def _json_int(text: str) -> int:
    if len(text) > 4000:  # Python refuses over 4300 digits; no Go number type holds these
        raise _JSONProblem(f"number with {len(text)} digits is out of range")
    return int(text)


def _json_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _JSONProblem(f"number {text[:40]} is out of range")
    return value


def _json_constant(name: str) -> Any:
    raise _JSONProblem(f"invalid value {name} (not JSON)")


_JSON_DECODER = json.JSONDecoder(
    object_pairs_hook=_json_object,
    parse_int=_json_int,
    parse_float=_json_float,
    parse_constant=_json_constant,
)
"""Strict as Kubernetes: a repeated field is an error (kubectl's strict validation refuses it
in JSON as go-yaml does in YAML), and so are NaN, Infinity and numbers no Go type holds."""


def parse_json(text: str, source: str) -> Iterator[RawDocument | LoadError]:
    """A JSON value, or a stream of them as ``kubectl`` accepts."""
    position, index = 0, 0
    measure = len(text) > MAX_OBJECT_BYTES // 4
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position >= len(text):
            return
        try:
            content, position = _JSON_DECODER.raw_decode(text, position)
        except json.JSONDecodeError as error:
            yield LoadError(
                source,
                index,
                f"JSON syntax error at line {error.lineno}, column {error.colno}: {error.msg}",
            )
            return
        except _JSONProblem as error:
            yield LoadError(source, index, f"JSON error: {error}")
            return
        except RecursionError:
            yield LoadError(source, index, "JSON document nested too deeply")
            return
        yield RawDocument(source, index, content, measure)
        index += 1


def parse_yaml(text: str, source: str) -> Iterator[RawDocument | LoadError]:
    """The documents of a YAML stream; empty documents are skipped as ``kubectl`` does.

    Documents before a syntax error are kept; the error ends the stream.

    Well-formed streams without YAML 1.1-only scalars or aliases take the fast path (the Rust
    parser of ``yaml_rs``, about four times quicker than libyaml through PyYAML); anything else,
    including every stream with an error, goes through PyYAML, whose YAML 1.1 reading matches
    Kubernetes and whose errors name the line.
    """
    measure = len(text) > MAX_OBJECT_BYTES // 4
    documents = _parse_fast(text)
    if documents is not None:
        large = _large_documents(text, len(documents)) if measure else frozenset()
        for index, content in enumerate(documents):
            if content is not None:
                yield RawDocument(source, index, content, large is None or index in large)
        return
    yield from _parse_pyyaml(text, source, measure)


def _large_documents(text: str, count: int) -> frozenset[int] | None:
    """The documents whose text may make an object beyond :data:`MAX_OBJECT_BYTES` (its JSON
    is rarely more than a few times its YAML), or None when the ``---`` lines do not tell the
    documents apart, so that every object is measured."""
    starts = [match.start() + 1 for match in re.finditer("\n---", text)]
    if text.startswith("---"):
        starts.insert(0, 0)
    head = text[: starts[0]] if starts else text
    if not starts or any(
        line.strip() and not line.lstrip().startswith(("#", "%")) for line in head.splitlines()
    ):
        starts.insert(0, 0)
    if len(starts) != count:
        return None
    ends = [*starts[1:], len(text)]
    limit = MAX_OBJECT_BYTES // 4
    sizes = (end - start for start, end in zip(starts, ends, strict=True))
    return frozenset(index for index, size in enumerate(sizes) if size > limit)


def _parse_fast(text: str) -> list[Any] | None:
    """The documents, or None when the fast parser must not or cannot read the text."""
    if "<<" in text or ("*" in text and _ALIAS.search(text)) or ("!" in text and _TAG.search(text)):
        return None  # merge keys, aliases and tags: PyYAML's handling is the reference
    lines = text.split("\n")
    if max(map(len, lines)) > FAST_PATH_MAX_LINE:
        return None  # possibly deep block nesting, which overflows the fast parser's stack
    if _has_disputed_scalar(text):
        return None
    try:
        parsed = yaml_rs.loads(_STREAM_PREFIX + text, parse_datetime=False)
    except Exception:  # any refusal (syntax, limits, oddities) is handled by the slow path
        return None
    return parsed[1:] if isinstance(parsed, list) else []


def _parse_pyyaml(text: str, source: str, measure: bool) -> Iterator[RawDocument | LoadError]:
    guard = _AliasGuard(len(text)) if "*" in text and _ALIAS.search(text) else None
    measure = measure or guard is not None
    index = 0
    documents = yaml.load_all(text, Loader=ManifestLoader)
    while True:
        try:
            content = next(documents)
        except StopIteration:
            return
        except yaml.MarkedYAMLError as error:
            yield LoadError(source, index, _describe_yaml_error(error))
            return
        except yaml.reader.ReaderError as error:
            character = f"#x{error.character:04x}" if isinstance(error.character, int) else "byte"
            message = f"YAML error at character {error.position}: unacceptable {character}"
            yield LoadError(source, index, f"{message}: {error.reason}")
            return
        except (yaml.YAMLError, ValueError, TypeError, AttributeError, LookupError) as error:
            # a constructor's own failure; ManifestLoader turns the known ones into YAML errors
            yield LoadError(source, index, "YAML error: " + " ".join(str(error).split()))
            return
        except RecursionError:
            yield LoadError(source, index, "YAML document nested too deeply")
            return
        if content is not None:
            problem = guard.check(content) if guard is not None else None
            if problem is not None:
                yield LoadError(source, index, problem)
            else:
                yield RawDocument(source, index, content, measure)
        index += 1


def _describe_yaml_error(error: yaml.MarkedYAMLError) -> str:
    mark = error.problem_mark or error.context_mark
    problem = error.problem or error.context or "invalid YAML"
    kind = (
        "YAML error"
        if isinstance(error, yaml.constructor.ConstructorError)
        else "YAML syntax error"
    )
    if mark is None:
        return f"{kind}: {problem}"
    return f"{kind} at line {mark.line + 1}, column {mark.column + 1}: {problem}"


class _AliasGuard:
    """Rejects documents whose aliases make them recursive or expand far beyond their text.

    PyYAML shares aliased nodes instead of copying them, so a small file can describe a
    structure with billions of nodes ("billion laughs"); Kubernetes refuses those too.
    """

    def __init__(self, text_length: int) -> None:
        self.budget = 10 * text_length + 10_000

    def check(self, content: Any) -> str | None:
        """The expanded size, computed once per distinct node (an aliased subtree is shared, so
        its size is reused): linear in the text, however often the aliases repeat it. One
        depth-first walk; the path from the root is one set, entered and left."""
        if not isinstance(content, dict | list):
            return None
        sizes: dict[int, int] = {}
        on_path: set[int] = set()
        stack: list[tuple[Any, bool]] = [(content, False)]
        while stack:
            node, leaving = stack.pop()
            node_id = id(node)
            children = [
                child
                for child in (node.values() if isinstance(node, dict) else node)
                if isinstance(child, dict | list)
            ]
            if leaving:
                on_path.discard(node_id)
                size = len(node) + sum(sizes[id(child)] for child in children)
                if size > self.budget:
                    return "YAML document contains excessive aliasing"
                sizes[node_id] = size
                continue
            if node_id in sizes:
                continue
            if node_id in on_path:
                return "YAML aliases make the document recursive"
            on_path.add(node_id)
            stack.append((node, True))
            stack.extend((child, False) for child in children if id(child) not in sizes)
        return None
