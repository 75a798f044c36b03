"""Trace files: the arrivals and timeline actions a replay applies over time.

A trace is a YAML list (or JSON Lines, one entry per line, for ``.jsonl``/``.ndjson``; a
JSON array for ``.json``). Each entry happens ``at`` a time from the start (seconds or a
duration: ``90s``, ``5m``, ``2h``, ``1d``) and is either an arrival::

    - at: 30m
      duration: 1h        # each pod runs this long once bound; absent: until the end
      count: 3            # copies, every object named <name>-0, -1, ... (references follow)
      restart: true       # pods preempted or evicted are replaced, as a Job's are
      objects: [...]      # Pods, workloads (Job, Deployment, ...), claims, templates, ...
      # or  file: jobs/train.yaml   (relative to the trace, inside its directory)

or one timeline action (``create``, ``delete``, ``taint``, ``untaint``, ``cordon``,
``uncordon``, ``condition``, ``add-nodes``, ``drain``, ``remove-node``, ``add-slice``,
``remove-slice``, ``set-class-selector``; see kubedra.cluster.steps). Every object is decoded
and validated as the apiserver would when the trace is read, so that a broken trace fails
before the replay starts; errors name the file, the entry (counted from 1) and the field:
``trace.yaml: entry 12.duration: not a duration (like 30, 90s, 5m, 1h, 1d): 'soon'``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kubedra.api.defaults import apply_defaults
from kubedra.api.io import (
    DecodeOptions,
    LoadedObject,
    LoadError,
    RawDocument,
    UnmodeledObject,
    parse_json,
    parse_yaml,
    read_documents,
    read_text,
)
from kubedra.api.io.decoding import decode_document, json_type
from kubedra.api.limits import DEFAULT_MAX_PODS
from kubedra.api.releases import DEFAULT
from kubedra.api.validation import validate_object
from kubedra.api.workloads import check_workload, is_workload, pod_count, pod_spec_of
from kubedra.cluster.steps import ALL, build
from kubedra.cluster.timeline import TimelineError, parse_duration

ARRIVAL_FIELDS = ("at", "duration", "count", "restart", "objects", "file")
ACTIONS = tuple(a for a in ALL if a != "wait")
"""The timeline actions an entry may be (``at`` says when; ``wait`` has no use)."""
MAX_COUNT = 100_000
"""The most copies one entry may make (a typo of a few zeros should not start a long run)."""
JSON_LINES_SUFFIXES = (".jsonl", ".ndjson")

Action = Callable[[Any], None]


class TraceError(ValueError):
    """A trace that cannot be replayed: the file, the entry, the field and why."""


@dataclass(frozen=True)
class Entry:
    """One trace entry: an arrival (``objects``) or a timeline action (``action``)."""

    index: int
    """Counted from 1, as errors and reports name it."""
    at: float
    duration: float | None = None
    count: int | None = None
    restart: bool = False
    objects: tuple[dict[str, Any], ...] = ()
    """v1 wire dicts of modeled kinds, and workloads (Job, Deployment, ...) as written."""
    description: str = ""
    action: Action | None = None

    @property
    def copies(self) -> int:
        return self.count or 1

    def instances(self) -> Iterator[list[dict[str, Any]]]:
        """The objects of each copy: renamed ``<name>-<i>`` when ``count`` is given, with the
        references between them (claims, templates, PodGroups) renamed along."""
        if self.count is None:
            yield [copy.deepcopy(o) for o in self.objects]
            return
        for i in range(self.count):
            yield renamed(self.objects, f"-{i}")


@dataclass
class Trace:
    """The entries of a trace file in the order they happen (ties keep file order)."""

    source: str
    entries: list[Entry] = field(default_factory=list)

    @property
    def arrivals(self) -> int:
        return sum(1 for e in self.entries if e.action is None)

    @property
    def span(self) -> float:
        """When the last entry happens, in seconds from the start."""
        return max((e.at for e in self.entries), default=0.0)


def load_trace(
    path: str | Path,
    namespace: str = "default",
    release: str = DEFAULT,
    max_pods: int = DEFAULT_MAX_PODS,
) -> Trace:
    """Read and check every entry of a trace file; raises TraceError (also when its entries
    would make more than ``max_pods`` pods, counted before any is made)."""
    path = Path(path)
    text = read_text(path)
    if isinstance(text, LoadError):
        raise TraceError(str(text))
    source = str(path)
    if path.suffix in JSON_LINES_SUFFIXES or path.suffix == ".json":
        documents = list(parse_json(text, source))
    else:
        documents = list(parse_yaml(text, source))
    for document in documents:
        if isinstance(document, LoadError):
            raise TraceError(_syntax_error(document, path.suffix in JSON_LINES_SUFFIXES))
    raws = [d.content for d in documents if isinstance(d, RawDocument)]
    if path.suffix in JSON_LINES_SUFFIXES:
        data: Any = raws
    elif len(raws) > 1:
        raise TraceError(f"{source}: a trace is one list of entries, not {len(raws)} documents")
    else:
        data = raws[0] if raws else []
    return parse_trace(data, source, path.parent, namespace, release, max_pods)


def _syntax_error(error: LoadError, json_lines: bool) -> str:
    """The reader's error as a trace's: in JSON Lines each document is an entry (counted from
    1, as the others are); a YAML or JSON trace is one document, whose number says nothing."""
    if json_lines and error.document is not None:
        error = LoadError(error.source, None, f"entry {error.document + 1}: {error.message}")
    elif error.document == 0:
        error = LoadError(error.source, None, error.message)
    return str(error)


def parse_trace(
    data: Any,
    source: str = "<trace>",
    base_dir: Path | None = None,
    namespace: str = "default",
    release: str = DEFAULT,
    max_pods: int = DEFAULT_MAX_PODS,
) -> Trace:
    """The entries of a trace read from YAML or JSON (a list of mappings); at most
    ``max_pods`` pods in all (copies and workloads' pods counted)."""
    if data is None:
        data = []
    if not isinstance(data, list):
        raise TraceError(f"{source}: a trace is a list of entries, not {json_type(data)}")
    reader = _EntryReader(
        source, base_dir or Path("."), DecodeOptions(namespace, False, release), max_pods
    )
    entries = [reader.entry(i + 1, raw) for i, raw in enumerate(data)]
    entries.sort(key=lambda e: e.at)  # stable: ties keep their order in the file
    return Trace(source, entries)


class _EntryReader:
    def __init__(self, source: str, base_dir: Path, options: DecodeOptions, max_pods: int) -> None:
        self.source = source
        self.base_dir = base_dir
        self.options = options
        self.max_pods = max_pods
        self.made = 0
        """Pods the entries read so far make (one command's bound, kubedra.api.limits)."""
        self._files: dict[Path, tuple[dict[str, Any], ...]] = {}

    def entry(self, index: int, raw: Any) -> Entry:
        where = f"{self.source}: entry {index}"
        if not isinstance(raw, dict):
            raise TraceError(f"{where}: an entry is an object with at and objects, file or action")
        actions = [k for k in raw if k in ACTIONS]
        unknown = [k for k in raw if k not in ACTIONS and k not in ARRIVAL_FIELDS]
        if unknown:
            raise TraceError(f"{where}: unknown field {str(unknown[0])!r}")
        if "at" not in raw:
            raise TraceError(f"{where}.at: required (when it happens, e.g. 0s, 90m, 2h)")
        at = self._duration(raw["at"], f"{where}.at")
        sources = [k for k in ("objects", "file") if k in raw]
        if len(actions) + len(sources) != 1:
            found = ", ".join(map(str, [*sources, *actions])) or "none"
            raise TraceError(
                f"{where}: needs exactly one of objects, file or an action "
                f"({', '.join(ACTIONS)}); found {found}"
            )
        if actions:
            for extra in ("duration", "count", "restart"):
                if extra in raw:
                    raise TraceError(f"{where}.{extra}: only for objects or file, not actions")
            name = actions[0]
            try:
                description, action = build(
                    name, raw[name], f"{where}.{name}", self.base_dir, recreate_drained=False
                )
            except TimelineError as error:
                raise TraceError(str(error)) from None
            return Entry(index, at, description=description, action=action)
        duration = None
        if raw.get("duration") is not None:
            duration = self._duration(raw["duration"], f"{where}.duration")
        count = raw.get("count")
        if count is not None and (
            not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_COUNT
        ):
            raise TraceError(f"{where}.count: a whole number from 1 to {MAX_COUNT}, not {count!r}")
        restart = raw.get("restart", False)
        if not isinstance(restart, bool):
            raise TraceError(f"{where}.restart: true or false, not {restart!r}")
        if "objects" in raw:
            objects = self._objects(raw["objects"], f"{where}.objects")
        else:
            objects = self._file(raw["file"], f"{where}.file")
        if count is not None:
            self._check_renamed(objects, f"-{count - 1}", f"{where}.count")
        self._count_pods(objects, count or 1, where)
        return Entry(index, at, duration, count, restart, objects)

    def _count_pods(self, objects: tuple[dict[str, Any], ...], copies: int, where: str) -> None:
        """The pods this entry makes, counted before any is made (a ReplicationController
        may ask for two billion); a DaemonSet counts none here, its pods are bounded by the
        nodes."""
        makes = copies * sum(pod_count(obj) for obj in objects)
        if self.made + makes > self.max_pods:
            before = f" ({self.made} before it)" if self.made else ""
            raise TraceError(
                f"{where}: makes {makes} pods{before}: more than the {self.max_pods} one "
                "replay makes (raise the bound with --max-pods)"
            )
        self.made += makes

    def _duration(self, value: Any, where: str) -> float:
        try:
            return parse_duration(value, where)
        except TimelineError as error:
            raise TraceError(str(error)) from None

    def _objects(self, value: Any, where: str) -> tuple[dict[str, Any], ...]:
        if not isinstance(value, list) or not value:
            raise TraceError(f"{where}: a list of one or more objects (manifests)")
        out: list[dict[str, Any]] = []
        for j, item in enumerate(value):
            out += self._decode(item, f"{where}[{j}]")
        return tuple(out)

    def _decode(self, item: Any, where: str) -> list[dict[str, Any]]:
        if not isinstance(item, dict):
            raise TraceError(f"{where}: a manifest is an object, not {json_type(item)}")
        found: list[dict[str, Any]] = []
        for decoded in decode_document(RawDocument(where, 0, item), self.options):
            if isinstance(decoded, LoadError):
                raise TraceError(f"{where}: {decoded.message}")
            if isinstance(decoded, UnmodeledObject):
                found.append(self._workload(decoded, where))
                continue
            problem = decoded.strict_error()
            if problem is not None:
                raise TraceError(f"{where}: {problem.message}")
            self._validate(decoded.wire, where)
            found.append(decoded.wire)
        return found

    def _workload(self, decoded: UnmodeledObject, where: str) -> dict[str, Any]:
        if not is_workload(decoded.content):
            raise TraceError(
                f"{where}: kind {decoded.kind} ({decoded.api_version}) is not modelled; a trace "
                "creates Pods, workloads (Job, Deployment, ...), claims, templates, PodGroups "
                "and the cluster's own kinds"
            )
        check = check_workload(decoded.content)
        if check.decode_error is not None:
            raise TraceError(f"{where}: {check.decode_error}")
        if check.errors:
            raise TraceError(f"{where}.{check.errors[0]}")
        return decoded.content

    @staticmethod
    def _validate(wire: dict[str, Any], where: str) -> None:
        errors = validate_object(apply_defaults(wire))
        if errors:
            raise TraceError(f"{where}.{errors[0]}")

    def _check_renamed(self, objects: tuple[dict[str, Any], ...], suffix: str, where: str) -> None:
        """The longest copy name must still be a valid name."""
        for obj in renamed(objects, suffix):
            if is_workload(obj):
                continue
            errors = [e for e in validate_object(apply_defaults(obj)) if e.field == "metadata.name"]
            if errors:
                raise TraceError(f"{where}: the copy named {_name(obj)}: {errors[0]}")

    def _file(self, value: Any, where: str) -> tuple[dict[str, Any], ...]:
        if not isinstance(value, str) or not value:
            raise TraceError(f"{where}: a file name relative to the trace")
        # The name goes into every message below: one with control characters (a newline,
        # a terminal escape) is shown escaped, so it cannot forge lines or colours.
        where = f"{where}: {value if value.isprintable() else ascii(value)}"
        try:
            base = self.base_dir.resolve()
            path = (self.base_dir / value).resolve()
            if not path.is_relative_to(base):
                raise TraceError(f"{where}: outside the trace's directory ({base})")
            if not path.exists():
                raise TraceError(f"{where}: no such file")
        except (OSError, RuntimeError, ValueError) as error:
            # A name too long, a symlink loop (RuntimeError before Python 3.13), a NUL byte.
            if isinstance(error, TraceError):
                raise
            reason = error.strerror if isinstance(error, OSError) and error.strerror else error
            raise TraceError(f"{where}: cannot read: {reason}") from None
        cached = self._files.get(path)
        if cached is not None:
            return cached
        objects: list[dict[str, Any]] = []
        for document in read_documents(path):
            if isinstance(document, LoadError):
                raise TraceError(f"{where}: {document.message}")
            found = decode_document(document, self.options)
            for position, decoded in enumerate(found):
                at = f"{where}: document {document.document}"
                if isinstance(decoded, LoadError):
                    raise TraceError(f"{at}: {decoded.message}")
                if isinstance(decoded, LoadedObject):
                    problem = decoded.strict_error()
                    if problem is not None:
                        raise TraceError(f"{at}: {problem.message}")
                    self._validate(decoded.wire, f"{at} ({_name(decoded.wire)})")
                    objects.append(decoded.wire)
                else:
                    objects.append(self._workload(decoded, f"{at}, item {position}"))
        if not objects:
            raise TraceError(f"{where}: holds no objects")
        self._files[path] = tuple(objects)
        return self._files[path]


def renamed(objects: tuple[dict[str, Any], ...], suffix: str) -> list[dict[str, Any]]:
    """Copies of ``objects`` named ``<name><suffix>``; a pod's (or pod template's) claims,
    templates and PodGroup that are among ``objects`` are referred to by their new names."""
    local: dict[str, set[str]] = {}
    for obj in objects:
        local.setdefault(str(obj.get("kind")), set()).add(_name(obj))
    out: list[dict[str, Any]] = []
    for obj in objects:
        new = copy.deepcopy(obj)
        meta = new.setdefault("metadata", {})
        if meta.get("name"):
            meta["name"] = f"{meta['name']}{suffix}"
        for spec in _pod_specs(new):
            _rename_references(spec, local, suffix)
        if new.get("kind") == "PodGroup":
            _rename_claims((new.get("spec") or {}).get("resourceClaims"), local, suffix)
        out.append(new)
    return out


def _pod_specs(obj: dict[str, Any]) -> list[dict[str, Any]]:
    if obj.get("kind") == "Pod":
        spec = obj.get("spec")
        return [spec] if isinstance(spec, dict) else []
    if is_workload(obj):
        spec = pod_spec_of(obj)
        return [spec] if spec is not None else []
    return []


def _rename_references(spec: dict[str, Any], local: dict[str, set[str]], suffix: str) -> None:
    _rename_claims(spec.get("resourceClaims"), local, suffix)
    group = spec.get("schedulingGroup")
    if isinstance(group, dict) and group.get("podGroupName") in local.get("PodGroup", ()):
        group["podGroupName"] = f"{group['podGroupName']}{suffix}"


def _rename_claims(entries: Any, local: dict[str, set[str]], suffix: str) -> None:
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        for key, kind in (
            ("resourceClaimName", "ResourceClaim"),
            ("resourceClaimTemplateName", "ResourceClaimTemplate"),
        ):
            if entry.get(key) in local.get(kind, ()):
                entry[key] = f"{entry[key]}{suffix}"


def _name(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata")
    return str(meta.get("name") or "") if isinstance(meta, dict) else ""
