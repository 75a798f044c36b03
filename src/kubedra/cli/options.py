"""kubectl's flags, defined once for every kubedra command.

* ``-f/--filename FILE|DIR|-`` (repeatable) and positional paths name the input. As kubectl,
  ``-f DIR`` reads the directory's own manifests and ``-R/--recursive`` its subdirectories too.
  Positional paths keep kubedra's earlier meaning (directories are always read recursively),
  so ``kubedra validate examples/`` still finds every example; ``-R`` changes nothing for them.
* ``-n/--namespace`` is the namespace of objects that name none (an object naming another
  one is an error, as with ``kubectl create -n``); ``-A/--all-namespaces`` means every
  namespace where a command reads a cluster.
* ``-o/--output`` takes kubectl's ``yaml``, ``json``, ``wide`` and ``name``.
* ``--kubeconfig``/``--context`` select a live cluster; ``--kubernetes-version`` and
  ``--feature-gates`` the release whose DRA feature gates apply.
* ``-h`` is ``--help`` for every command (:data:`CONTEXT_SETTINGS`).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from kubedra.features import DEFAULT, FeatureGateError, FeatureGates, ReleaseError, parse_version

if TYPE_CHECKING:  # the object model loads only when a command needs it
    from kubedra.api.io import LoadError, LoadResult

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
STDIN = "-"

CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"]}
"""Typer/Click settings shared by the app and every command: ``-h`` as a help alias."""


class Output(enum.StrEnum):
    """``-o`` values: kubectl's four, and ``text`` (the default report for people)."""

    TEXT = "text"
    YAML = "yaml"
    JSON = "json"
    WIDE = "wide"
    NAME = "name"


Paths = Annotated[
    list[Path] | None,
    typer.Argument(
        help="Manifest files or directories (read recursively); - for standard input.",
        show_default=False,
    ),
]
Filename = Annotated[
    list[Path] | None,
    typer.Option(
        "--filename",
        "-f",
        help="A manifest file, a directory of them (see -R) or - for standard input; repeatable.",
        show_default=False,
    ),
]
Recursive = Annotated[
    bool,
    typer.Option("--recursive", "-R", help="Read the subdirectories of -f directories too."),
]
Namespace = Annotated[
    str | None,
    typer.Option(
        "--namespace", "-n", help="Namespace for objects that do not name one.", show_default=False
    ),
]
AllNamespaces = Annotated[
    bool,
    typer.Option("--all-namespaces", "-A", help="Every namespace (where a cluster is read)."),
]
OutputOption = Annotated[
    Output,
    typer.Option("--output", "-o", help="text (default), yaml, json, wide or name."),
]
Kubeconfig = Annotated[
    Path | None,
    typer.Option(
        "--kubeconfig",
        help="Path to the kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster).",
        show_default=False,
    ),
]
Context = Annotated[
    str | None,
    typer.Option("--context", help="The kubeconfig context to use.", show_default=False),
]
KubernetesVersion = Annotated[
    str | None,
    typer.Option(
        "--kubernetes-version",
        help="The release whose DRA feature gates apply: 1.34 to 1.37 (default: the newest).",
        show_default=False,
    ),
]
FeatureGatesOption = Annotated[
    str | None,
    typer.Option(
        "--feature-gates",
        help="Gate overrides as kube-scheduler takes them, e.g. DRAListTypeAttributes=true.",
        show_default=False,
    ),
]


def input_paths(
    paths: Sequence[Path] | None,
    filenames: Sequence[Path] | None,
    recursive: bool,
) -> tuple[list[str | Path], list[LoadError]]:
    """The files and directories to load, and errors for ``-f`` directories without manifests.

    Raises ``typer.BadParameter`` when nothing was given, as kubectl says "must specify -f".
    """
    from kubedra.api.io import LoadError

    if not paths and not filenames:
        raise typer.BadParameter(
            "give manifest paths or -f FILE|DIR|- (repeatable)", param_hint="'PATHS' / '-f'"
        )
    resolved: list[str | Path] = list(paths or [])
    errors: list[LoadError] = []
    for filename in filenames or []:
        if str(filename) == STDIN or recursive or not filename.is_dir():
            resolved.append(filename)
            continue
        found = sorted(_direct_manifests(filename))
        if found:
            resolved.extend(found)
        else:
            errors.append(
                LoadError(
                    str(filename),
                    None,
                    "directory holds no .yaml, .yml or .json files (use -R for subdirectories)",
                )
            )
    return resolved, errors


def _direct_manifests(directory: Path) -> Iterable[Path]:
    try:
        for entry in directory.iterdir():
            hidden = entry.name.startswith(".")
            if entry.suffix in MANIFEST_SUFFIXES and not hidden and entry.is_file():
                yield entry
    except OSError:
        yield directory  # the loader reports the reading error


CLUSTER_SCOPED_KINDS = frozenset(
    {
        "DeviceClass",
        "ResourceSlice",
        "DeviceTaintRule",
        "Node",
        "Namespace",
        "PriorityClass",
        "PersistentVolume",
        "StorageClass",
        "ClusterRole",
        "ClusterRoleBinding",
        "CustomResourceDefinition",
        "RuntimeClass",
    }
)
"""Kinds without a namespace; every other kind is taken as namespaced (as most are)."""


def namespace_problem(obj: dict[str, Any], kind: str, namespace: str) -> str | None:
    """Set ``namespace`` on a namespaced object without one; the kubectl error on a mismatch."""
    if kind in CLUSTER_SCOPED_KINDS:
        return None
    metadata = obj.setdefault("metadata", {})
    if not isinstance(metadata, dict):
        return None
    current = metadata.get("namespace")
    if not current:
        metadata["namespace"] = namespace
        return None
    if current != namespace:
        return (
            f'the namespace from the provided object "{current}" does not match the namespace '
            f"\"{namespace}\". You must pass '--namespace={current}' to perform this operation."
        )
    return None


def apply_namespace(result: LoadResult, namespace: str | None) -> LoadResult:
    """``-n``: default the namespace of every namespaced object (in place); mismatches become
    load errors. (Helper "api" moves this default into the loaders as ``namespace=``.)"""
    from kubedra.api.io import LoadError

    if not namespace:
        return result
    entries: list[Any] = []
    for entry in result.entries:
        if isinstance(entry, LoadError):
            entries.append(entry)
            continue
        target = entry.wire if hasattr(entry, "wire") else entry.content
        problem = namespace_problem(target, entry.kind, namespace)
        if problem is None:
            entries.append(entry)
        else:
            entries.append(LoadError(entry.source, entry.document, problem, entry.item))
    result.entries = entries
    return result


def feature_gates(version: str | None, gates: str | None) -> FeatureGates:
    """The gates of ``--kubernetes-version`` and ``--feature-gates``.

    A bad value is a usage error (exit status 2) printed on one line the way kube-scheduler's
    flag parsing prints it: ``invalid argument "X=true" for "--feature-gates" flag: ...``.
    """
    try:
        release = parse_version(version) if version else DEFAULT
    except ReleaseError as error:
        _flag_error("--kubernetes-version", version or "", str(error))
    try:
        return FeatureGates.for_release(release, gates or None)
    except FeatureGateError as error:
        _flag_error("--feature-gates", gates or "", str(error))


def _flag_error(flag: str, value: str, message: str) -> NoReturn:
    typer.echo(f'Error: invalid argument "{value}" for "{flag}" flag: {message}', err=True)
    raise typer.Exit(2)
