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
import re
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from kubedra.features import DEFAULT, FeatureGateError, FeatureGates, ReleaseError, parse_version

if TYPE_CHECKING:  # the object model loads only when a command needs it
    from kubedra.api.io import LoadError, LoadResult

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")
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
        metavar="PATH...",
    ),
]
Filename = Annotated[
    list[Path] | None,
    typer.Option(
        "--filename",
        "-f",
        help="A manifest file, a directory of them (see -R) or - for standard input; repeatable.",
        show_default=False,
        metavar="FILE|DIR|-",
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
MaxPods = Annotated[
    int,
    typer.Option(
        "--max-pods",
        min=1,
        help="Make at most N pods of the input's workloads (Deployments, Jobs...).",
    ),
]
MaxNodes = Annotated[
    int,
    typer.Option(
        "--max-nodes",
        min=1,
        help="Add at most N nodes (plan nodes; each add-nodes step).",
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

StartTime = Annotated[
    str | None,
    typer.Option(
        "--start-time",
        help="Start the simulated clock at this RFC 3339 time (e.g. 2026-01-01T00:00:00Z) and "
        "move it only as the simulation does, for reproducible runs (default: now, following "
        "the wall clock).",
        show_default=False,
    ),
]


def start_time(text: str | None) -> datetime | None:
    """``--start-time`` as a UTC instant (whole seconds); None when not given. A value that is
    not RFC 3339 exits 2, as kubectl's flag errors."""
    if text is None:
        return None
    from kubedra.cluster.clock import parse_time

    if not RFC3339.fullmatch(text.strip()) or (moment := parse_time(text.strip())) is None:
        _flag_error("--start-time", text, "not an RFC 3339 time such as 2026-01-01T00:00:00Z")
    return moment.astimezone(UTC).replace(microsecond=0)


def wall_clock_now() -> datetime:
    """Now, in whole seconds (the API's timestamps have no fractions)."""
    return datetime.now(UTC).replace(microsecond=0)


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


def load_inputs(
    inputs: Sequence[str | Path],
    input_errors: Sequence[LoadError],
    namespace: str | None,
    all_namespaces: bool,
    release: str,
) -> LoadResult:
    """Load the manifests as the apiserver receives them from kubectl: namespaced objects without
    a namespace get ``-n`` (else ``default``), and with ``-n`` (not ``-A``) an object in another
    namespace is refused; fields are those of ``release``. ``input_errors`` come first."""
    from kubedra.api.io import load_paths

    loaded = load_paths(
        inputs,
        namespace or "default",
        enforce_namespace=bool(namespace) and not all_namespaces,
        kubernetes_version=release,
    )
    loaded.entries[:0] = list(input_errors)
    return loaded


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


POLICY_NAMES = (
    "first-fit",
    "best-fit",
    "spread",
    "random",
    "dot-product",
    "gpu-packing",
    "gpu-clustering",
    "fgd",
    "most-allocated",
    "least-allocated",
)
"""The built-in placement policies (kubedra.scheduler.policies; a test keeps both equal)."""

WRAP = 76
"""Width of the policy list in help: 80 columns less click's epilog indent, and a margin."""

_POLICY_SUMMARIES = (
    ("first-fit", "Upstream's default profile, with devices taken in pool order (the default)."),
    (
        "best-fit",
        "Fills the fullest node that fits (least cpu and devices left) and, inside it, "
        "the device with the least capacity left.",
    ),
    ("spread", "Devices only: takes the device with the most capacity left (nodes as upstream)."),
    ("random", "Picks a random feasible node and random fitting devices (seeded)."),
    (
        "dot-product",
        "Tetris: the node whose free cpu and devices align least with the pod's request "
        "(smallest dot product), best-fit devices.",
    ),
    (
        "gpu-packing",
        "Partly used devices first, then free devices on a used node, then an idle node: "
        "keeps whole devices and idle nodes free.",
    ),
    (
        "gpu-clustering",
        "Puts pods with the same device request (count, share or whole) on the same "
        "nodes, fuller nodes first.",
    ),
    (
        "fgd",
        "Fragmentation Gradient Descent: the node and devices where the workload's "
        "expected unusable free device capacity grows least.",
    ),
    (
        "most-allocated",
        "Adds DRADeviceUtilization beside the default scores: prefers nodes with most "
        "devices in use (packs).",
    ),
    (
        "least-allocated",
        "Adds DRADeviceUtilization beside the default scores: prefers nodes with most "
        "devices free (spreads).",
    ),
)


def _policy_help() -> str:
    """The epilog, wrapped to fit 80 columns with click's indent of 2 (click keeps a \\b block
    as written)."""
    import textwrap

    lines = textwrap.wrap(
        "Placement policies (--policy NAME; opt-in, the default profile stays upstream's):", WRAP
    )
    for name, summary in _POLICY_SUMMARIES:
        lines += textwrap.wrap(f"- {name}: {summary}", WRAP, subsequent_indent="  ")
    lines += textwrap.wrap(
        "--device-policy NAME takes only a policy's device choice, --node-score NAME only its "
        "node score; see docs/guides/policies.md.",
        WRAP,
    )
    return "\b\n" + "\n".join(lines)


POLICY_HELP = _policy_help()
"""The policies with what each optimises, for the epilog of commands taking --policy."""

PlacementPolicy = Annotated[
    str | None,
    typer.Option(
        "--policy",
        help=f"Placement policy by name (opt-in): {', '.join(POLICY_NAMES)}, or one registered "
        "in Python (see below and docs/guides/policies.md).",
        show_default=False,
    ),
]
DevicePolicy = Annotated[
    str | None,
    typer.Option(
        "--device-policy",
        help="Only the device choice of a policy: first-fit (upstream), best-fit, spread, ...",
        show_default=False,
    ),
]
NodeScore = Annotated[
    str | None,
    typer.Option(
        "--node-score",
        help="Only the node score of a policy: most-allocated, least-allocated, fgd, ...",
        show_default=False,
    ),
]
