"""Reading manifest files into raw documents: paths, directories, YAML and JSON streams.

Every problem becomes a :class:`LoadError` with the file, the document index and one line of
text; nothing here raises for bad input.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
import yaml_rs

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
STDIN = "-"
STDIN_NAME = "<stdin>"

_BaseLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class ManifestLoader(_BaseLoader):  # type: ignore[misc,valid-type]
    """The C safe loader, read as Kubernetes reads manifests: timestamps stay strings, and a key
    repeated in one mapping is an error (``key "name" already set in map``)."""

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


FLOAT_TAG = "tag:yaml.org,2002:float"
TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"

_GO_EXPONENT_FLOAT = re.compile(r"^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][-+]?[0-9]+$")
"""Floats with an exponent that Go's YAML reads (``1e3``, ``1.5E-2``) but PyYAML's YAML 1.1
pattern does not (it wants a dot and a signed exponent)."""


def _manifest_resolver(tag: str, regexp: re.Pattern[str]) -> tuple[str, re.Pattern[str]]:
    if tag != FLOAT_TAG:
        return tag, regexp
    combined = f"(?:{regexp.pattern})|(?:{_GO_EXPONENT_FLOAT.pattern})"
    return tag, re.compile(combined, regexp.flags)


ManifestLoader.yaml_implicit_resolvers = {
    first: [_manifest_resolver(tag, regexp) for tag, regexp in resolvers if tag != TIMESTAMP_TAG]
    for first, resolvers in _BaseLoader.yaml_implicit_resolvers.items()
}

_YAML_1_1_WORDS = (
    r"(?:[yYnN]|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|[-+]?0[0-7_]+|[-+]?0b[01_]+"
    r"|[-+]?(?=[0-9._eE+-]*_)[0-9._]+(?:[eE][-+]?[0-9_]+)?)"
)
_YAML_1_1_SCALAR = r"[ \t]*" + _YAML_1_1_WORDS + r"[ \t]*(?:[,\]}#\r\n:]|$)"
_YAML_1_1_ONLY = [
    re.compile(re.escape(context) + _YAML_1_1_SCALAR)
    for context in (": ", ":\t", "- ", "-\t", "[", "{", ",")
]
"""Plain scalars that YAML 1.1 (PyYAML, and Kubernetes' YAML library) reads differently from
YAML 1.2: y/n/yes/no/on/off booleans, 0-prefixed octal, binary and underscored numbers
(``yaml_rs`` reads an underscore anywhere in a number, even ``_0`` or ``._5``, which YAML 1.1
keeps as strings), as values or flow keys. One pattern per leading context because a literal
prefix lets the regex engine skip ahead fast. Block keys are checked by
:func:`_has_underscore_number`."""

_NUMBER_CHARS = frozenset("0123456789._eE+-")
_UNDERSCORE_NUMBER = re.compile(r"[-+]?(?=[^eE]*[0-9])[0-9._]+(?:[eE][-+]?[0-9_]+)?")
_TOKEN_BEFORE = frozenset(" \t\r\n[{,:")
_TOKEN_AFTER = frozenset(",]}#\r\n:")


def _has_underscore_number(text: str) -> bool:
    """Whether a plain scalar anywhere (a block key too) is a number with an underscore.

    Scanning from each underscore is far quicker than a line-anchored pattern, and most
    manifests have few underscores (or none).
    """
    position = text.find("_")
    while position != -1:
        start, end = position, position + 1
        while start > 0 and text[start - 1] in _NUMBER_CHARS:
            start -= 1
        while end < len(text) and text[end] in _NUMBER_CHARS:
            end += 1
        after = end
        while after < len(text) and text[after] in " \t":
            after += 1
        before_ok = start == 0 or text[start - 1] in _TOKEN_BEFORE
        after_ok = after == len(text) or text[after] in _TOKEN_AFTER
        if before_ok and after_ok and _UNDERSCORE_NUMBER.fullmatch(text, start, end):
            return True
        position = text.find("_", end)
    return False


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
    """The documents of one file (or of standard input for ``-``)."""
    source = STDIN_NAME if file == STDIN else str(file)
    try:
        text = sys.stdin.read() if file == STDIN else Path(file).read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        yield LoadError(source, None, f"not UTF-8 text: {error.reason} at byte {error.start}")
        return
    except OSError as error:
        yield LoadError(source, None, f"cannot read: {error.strerror or error}")
        return
    if isinstance(file, Path) and file.suffix == ".json":
        yield from parse_json(text, source)
    else:
        yield from parse_yaml(text, source)


def parse_json(text: str, source: str) -> Iterator[RawDocument | LoadError]:
    """A JSON value, or a stream of them as ``kubectl`` accepts."""
    decoder = json.JSONDecoder()
    position, index = 0, 0
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position >= len(text):
            return
        try:
            content, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError as error:
            yield LoadError(
                source,
                index,
                f"JSON syntax error at line {error.lineno}, column {error.colno}: {error.msg}",
            )
            return
        except RecursionError:
            yield LoadError(source, index, "JSON document nested too deeply")
            return
        yield RawDocument(source, index, content)
        index += 1


def parse_yaml(text: str, source: str) -> Iterator[RawDocument | LoadError]:
    """The documents of a YAML stream; empty documents are skipped as ``kubectl`` does.

    Documents before a syntax error are kept; the error ends the stream.

    Well-formed streams without YAML 1.1-only scalars or aliases take the fast path (the Rust
    parser of ``yaml_rs``, about four times quicker than libyaml through PyYAML); anything else,
    including every stream with an error, goes through PyYAML, whose YAML 1.1 reading matches
    Kubernetes and whose errors name the line.
    """
    documents = _parse_fast(text)
    if documents is not None:
        for index, content in enumerate(documents):
            if content is not None:
                yield RawDocument(source, index, content)
        return
    yield from _parse_pyyaml(text, source)


def _parse_fast(text: str) -> list[Any] | None:
    """The documents, or None when the fast parser must not or cannot read the text."""
    if "<<" in text or ("*" in text and _ALIAS.search(text)) or ("!" in text and _TAG.search(text)):
        return None  # merge keys, aliases and tags: PyYAML's handling is the reference
    if any(pattern.search(text) for pattern in _YAML_1_1_ONLY) or _has_underscore_number(text):
        return None
    if max(map(len, text.split("\n"))) > FAST_PATH_MAX_LINE:
        return None  # possibly deep block nesting, which overflows the fast parser's stack
    try:
        parsed = yaml_rs.loads(_STREAM_PREFIX + text, parse_datetime=False)
    except Exception:  # any refusal (syntax, limits, oddities) is handled by the slow path
        return None
    return parsed[1:] if isinstance(parsed, list) else []


def _parse_pyyaml(text: str, source: str) -> Iterator[RawDocument | LoadError]:
    guard = _AliasGuard(len(text)) if "*" in text and _ALIAS.search(text) else None
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
        except (yaml.YAMLError, ValueError, TypeError) as error:
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
                yield RawDocument(source, index, content)
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
        seen = 0
        stack: list[tuple[Any, frozenset[int]]] = [(content, frozenset())]
        while stack:
            node, ancestors = stack.pop()
            if not isinstance(node, dict | list):
                continue
            if id(node) in ancestors:
                return "YAML aliases make the document recursive"
            seen += len(node)
            if seen > self.budget:
                return "YAML document contains excessive aliasing"
            inner = ancestors | {id(node)}
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, inner) for child in children)
        return None
