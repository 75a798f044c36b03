"""What ``simulate``, ``explain`` and ``serve-api`` start a simulated cluster from.

One place turns kubectl's input flags (paths, ``-f``/``-R``, ``--example``, ``--kubeconfig``/
``--context`` for a live cluster's snapshot) into the objects to load: workloads (Deployment,
Job, StatefulSet, DaemonSet, ...) become the pods their controllers would create, kinds
kubedra does not model are listed as skipped, and the DRA features the input uses are stated
with their maturity in the release that ``--kubernetes-version``/``--feature-gates`` chose.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from kubedra.api.limits import DEFAULT_MAX_PODS
from kubedra.cli import options
from kubedra.cluster.examples import UnknownExample, example_names, example_text

__all__ = ["InputFlags", "SimInput", "example_names", "example_text", "gather", "gather_shown"]

if TYPE_CHECKING:
    from kubedra.allocator.features import Features
    from kubedra.api.io import LoadResult
    from kubedra.cluster.admission import AdmissionConfig
    from kubedra.features import FeatureGates


@dataclass
class SimInput:
    """The objects to load (v1 wire dicts, workloads expanded) and what to tell the user."""

    gates: FeatureGates
    objects: list[dict[str, Any]] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    """Unreadable input, one line each: the command exits without simulating."""
    skipped: list[str] = field(default_factory=list)
    """Kinds kubedra does not model; neither errors nor a change of exit status."""
    expanded: list[str] = field(default_factory=list)
    """``Deployment default/web: 3 pods``, one line per workload."""
    usage: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def features(self) -> Features:
        """The allocator's and scheduler's switches for the chosen release."""
        return self.gates.allocator_features()

    @property
    def admission(self) -> AdmissionConfig:
        """What the simulated apiserver admits and drops on create, for the chosen release."""
        from kubedra.cluster.admission import AdmissionConfig

        return AdmissionConfig(release=self.gates.release, gates=dict(self.gates.overrides))


@dataclass
class InputFlags:
    """The shared flags as a command received them.

    There is no ``-A``: a simulation always sees every namespace of its input (and of a live
    cluster), as the scheduler does; ``namespace`` only names the one of objects naming none.
    """

    paths: Sequence[Path] | None = None
    filenames: Sequence[Path] | None = None
    recursive: bool = False
    example: str | None = None
    kubeconfig: Path | None = None
    context: str | None = None
    namespace: str | None = None
    kubernetes_version: str | None = None
    feature_gates: str | None = None
    _: KW_ONLY
    default_cluster: bool = False
    """Read the cluster kubectl would use without flags ($KUBECONFIG, ~/.kube/config,
    in-cluster): set when nothing else names the input."""
    max_pods: int = DEFAULT_MAX_PODS
    """The most pods the input's workloads may make (``--max-pods``)."""

    @property
    def live(self) -> bool:
        return self.kubeconfig is not None or self.context is not None or self.default_cluster

    @property
    def given(self) -> bool:
        return bool(self.paths or self.filenames or self.example is not None or self.live)


NO_INPUT = (
    "give manifests (PATH..., -f FILE|DIR|-), --example NAME or a cluster (--kubeconfig, "
    "--context, $KUBECONFIG or ~/.kube/config)"
)


def gather(flags: InputFlags) -> SimInput:
    """Read every input the flags name. Bad flag values exit 2 (as kubectl's flag errors)."""
    from kubedra.api.io import LoadResult, load_text

    gates = options.feature_gates(flags.kubernetes_version, flags.feature_gates)
    result = SimInput(gates)
    loaded = LoadResult()
    # As the apiserver receives kubectl's requests: objects naming no namespace get -n's (else
    # default); objects in other namespaces keep theirs (the input is one cluster); the fields
    # decode as the chosen release has them.
    request: dict[str, Any] = {
        "namespace": flags.namespace or "default",
        "kubernetes_version": gates.release,
    }
    if flags.example is not None:
        text = example_text(flags.example)
        if text is None:
            result.errors.append(f"error: {UnknownExample(flags.example)}")
            return result
        loaded.entries += load_text(text, f"example {flags.example}", **request).entries
    if flags.live:
        snapshot = _read_live(flags, result)
        if snapshot is not None:
            loaded.entries += snapshot.entries
    if flags.paths or flags.filenames:
        from kubedra.api.io import load_paths

        inputs, input_errors = options.input_paths(flags.paths, flags.filenames, flags.recursive)
        loaded.entries += input_errors
        loaded.entries += load_paths(inputs, **request).entries
    _collect(loaded, result, flags.max_pods)
    return result


def gather_shown(
    flags: InputFlags,
    echo: Callable[[str], None],
    exit_code: int,
    *,
    require: bool = True,
    prefix_errors: bool = False,
) -> SimInput:
    """gather() for a command: each input error is shown through ``echo`` (with ``error: ``
    put in front where ``prefix_errors`` and it lacks one). No input at all, where ``require``,
    reads the cluster kubectl would use, and exits with ``exit_code`` when there is none;
    unreadable input exits only in ``stop_if_unreadable``, so that a command can still name
    its other bad flags first.
    """
    if require and not flags.given:
        from kubedra.live import cluster_configured

        # As kubectl: without flags, the cluster of $KUBECONFIG (or ~/.kube/config, or the
        # pod's service account) is the input.
        if not cluster_configured():
            echo(f"error: {NO_INPUT}")
            raise typer.Exit(exit_code)
        flags = replace(flags, default_cluster=True)
    read = gather(flags)
    for error in read.errors:
        echo(f"error: {error}" if prefix_errors and not error.startswith("error: ") else error)
    return read


def stop_if_unreadable(
    read: SimInput, echo: Callable[[str], None], exit_code: int, notes: Sequence[str] = ()
) -> None:
    """Exit with ``exit_code`` when the input had errors; else show ``notes``, then warnings."""
    if read.errors:
        raise typer.Exit(exit_code)
    for line in notes:
        echo(line)
    for warning in read.warnings:
        echo(f"Warning: {warning}")


def _read_live(flags: InputFlags, result: SimInput) -> LoadResult | None:
    from kubedra.live import LiveError, read_cluster

    # Every namespace, whatever -n says: claims elsewhere hold devices the scheduler must see.
    try:
        snapshot = read_cluster(str(flags.kubeconfig) if flags.kubeconfig else None, flags.context)
    except LiveError as error:
        result.errors.append(f"error: {error}")
        return None
    result.skipped += [f"cluster: skipped {skipped}" for skipped in snapshot.skipped]
    return snapshot.load("cluster")


def _collect(loaded: LoadResult, result: SimInput, max_pods: int = DEFAULT_MAX_PODS) -> None:
    """Objects, expanded workloads and skipped kinds, in input order; then feature usage.

    A workload whose replica counts do not decode or validate is an error, and so is input
    whose workloads would make more than ``max_pods`` pods (counted before any is made)."""
    from kubedra.api.io import LoadedObject, LoadError
    from kubedra.api.io.decoding import object_name
    from kubedra.api.validation import format_invalid
    from kubedra.api.workloads import Taken, check_fields, expand_pods, is_workload, pod_count
    from kubedra.features import describe_feature_usage, feature_warnings

    nodes = [
        entry.wire
        for entry in loaded.entries
        if isinstance(entry, LoadedObject) and entry.kind == "Node"
    ]
    # Names of the input's own pods: generated names are drawn again on a collision.
    taken: Taken = {
        (entry.wire["metadata"].get("namespace"), entry.wire["metadata"]["name"])
        for entry in loaded.entries
        if isinstance(entry, LoadedObject) and entry.kind == "Pod"
    }
    made = 0
    described: list[dict[str, Any]] = []
    for entry in loaded.entries:
        if isinstance(entry, LoadError):
            result.errors.append(str(entry))
        elif isinstance(entry, LoadedObject):
            result.objects.append(entry.wire)
            result.sources.append(entry.location())
            described.append(entry.wire)
        elif is_workload(entry.content):
            name = object_name(entry.content)
            fields = check_fields(entry.content)
            if fields.decode_error is not None:
                result.errors.append(f"{entry.location()}: {fields.decode_error}")
                continue
            if fields.errors:
                invalid = format_invalid(entry.content, fields.errors)
                result.errors.append(f"{invalid}\n  in {entry.location()}")
                continue
            count = pod_count(entry.content, nodes)
            if made + count > max_pods:
                before = f" ({made} before it)" if made else ""
                result.errors.append(
                    f"{entry.location()}: {name} makes {count} pods{before}: more than "
                    f"the {max_pods} one command makes (raise the bound with --max-pods)"
                )
                continue
            made += count
            pods = expand_pods(entry.content, nodes=nodes, taken=taken)
            noun = "pod" if len(pods) == 1 else "pods"
            result.expanded.append(f"{entry.location()}: {name} makes {len(pods)} {noun}")
            described.append(entry.content)
            for index, pod in enumerate(pods):
                result.objects.append(pod)
                result.sources.append(f"{entry.location()} ({name}, pod {index + 1})")
        else:
            result.skipped.append(
                f"{entry.location()}: skipped {object_name(entry.content)} "
                f"({entry.api_version}): kubedra does not model this kind"
            )
    release = result.gates.release
    result.usage = describe_feature_usage(described, release, result.gates)
    result.warnings = [
        *result.gates.warnings,
        *feature_warnings(described, release, result.gates),
    ]
