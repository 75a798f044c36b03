"""``trace generate``: a seeded synthetic trace from stated distributions, and its cluster.

* Arrivals are a Poisson process: the gaps between pods are exponential with mean
  ``mean_interarrival`` seconds, or, when that is not given, with the mean that offers the
  cluster ``load`` (the fraction of its GPUs that arriving work keeps busy on average:
  rate x mean duration x mean GPUs per pod = load x GPUs). Arrival times are rounded to whole
  seconds.
* Durations are log-normal: ``median x exp(sigma x Z)`` with Z standard normal, rounded to
  whole seconds, at least one (the mean is ``median x exp(sigma^2 / 2)``).
* Request shapes are drawn from ``mix`` by weight: whole GPUs, a share of one GPU
  (``gpu_milli``), or no GPU; cpu and memory requests scale with the GPUs a pod takes.

The same options and seed give the same bytes: one :class:`random.Random` draws, in pod order,
the gap, the shape and the duration of each pod.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from kubedra.api.gcpause import paused_gc
from kubedra.api.limits import MAX_DURATION_SECONDS, MAX_DURATION_TEXT
from kubedra.traces.errors import TraceInputError
from kubedra.traces.gpu_cluster import MAX_GPUS_PER_NODE, WHOLE_GPU, GpuNode, cluster_objects
from kubedra.traces.pods import arrival, pod_manifest
from kubedra.traces.shapes import GpuShape, claim_template
from kubedra.traces.trace_dir import Trace

DRIVER = "gpu.example.com"

MAX_SECONDS = 1e9
"""About 31 years: longer median run times or gaps are typos, and keep the draws finite."""

MAX_PODS = 1_000_000
"""Ten times the replay benchmark; a trace of a million pods is some 330 MB of YAML."""
MAX_NODES = 100_000
"""Twenty times the replay benchmark's 5,000 nodes (a typo of a few zeros should not build
a hundred million nodes before failing)."""
MIN_GAP_SECONDS = 1e-6
"""Arrivals are rounded to whole seconds; a mean gap below a microsecond (a --load of 1e300)
puts every pod at 0s and, at 0, cannot be drawn."""

MAX_STRING_ATTRIBUTE = 64
"""A device attribute's string value holds at most 64 characters (the model is one)."""

Mix = tuple[tuple[GpuShape | None, float], ...]
"""Request shapes (None: no GPU) with their weights."""

DEFAULT_MIX_TEXT = "cpu=10,share:250=10,share:500=20,gpu:1=45,gpu:2=8,gpu:4=4,gpu:8=3"
"""About the Alibaba default trace's mix (13% without GPU, 38% sharing one, 48% one whole
GPU), with more multi-GPU pods so that the larger shapes matter."""


def parse_mix(text: str, flag: str = "--mix") -> Mix:
    """``cpu=10,share:500=20,gpu:1=45``: ``cpu`` (no GPU), ``gpu:N`` (N whole GPUs),
    ``share:M`` (M thousandths of one GPU), each ``=WEIGHT``; weights need not sum to 100."""
    shapes: dict[GpuShape | None, float] = {}
    for item in text.split(","):
        item = item.strip()
        kind, equals, weight_text = item.partition("=")
        where = f"{flag}: {item!r}"
        if not equals:
            raise TraceInputError(f"{where}: expected SHAPE=WEIGHT (like gpu:1=45)")
        try:
            weight = float(weight_text)
        except ValueError:
            raise TraceInputError(f"{where}: weight {weight_text!r} is not a number") from None
        if not 0 <= weight < math.inf:
            raise TraceInputError(f"{where}: weight must be zero or more")
        shape = _shape(kind.strip(), where)
        if shape in shapes:
            raise TraceInputError(f"{where}: shape given twice")
        shapes[shape] = weight
    if not any(shapes.values()):
        raise TraceInputError(f"{flag}: the weights must not all be zero")
    if not math.isfinite(sum(shapes.values())):
        raise TraceInputError(f"{flag}: the weights must add up to a finite number")
    return tuple(shapes.items())


def _shape(kind: str, where: str) -> GpuShape | None:
    if kind == "cpu":
        return None
    name, colon, number = kind.partition(":")
    if not colon or name not in ("gpu", "share") or not number.isdigit():
        raise TraceInputError(f"{where}: shape must be cpu, gpu:N or share:M")
    amount = int(number)
    if name == "gpu":
        if not 1 <= amount <= MAX_GPUS_PER_NODE:
            raise TraceInputError(f"{where}: gpu:N takes 1 to {MAX_GPUS_PER_NODE} GPUs")
        return GpuShape(gpus=amount)
    if not 1 <= amount < WHOLE_GPU:
        raise TraceInputError(f"{where}: share:M takes 1 to {WHOLE_GPU - 1} thousandths")
    return GpuShape(gpus=1, milli=amount)


@dataclass(frozen=True)
class SyntheticOptions:
    """The cluster and the distributions; the defaults make a small trace that runs anywhere."""

    pods: int = 1000
    nodes: int = 16
    gpus_per_node: int = 8
    gpu_model: str = "A100"
    gpu_memory: str | None = "80Gi"
    node_cpu_milli: int = 128_000
    node_memory_mib: int = 1024 * 1024
    pods_per_node: int = 110
    cpu_milli_per_gpu: int = 8000
    memory_mib_per_gpu: int = 64 * 1024
    mix: Mix = ()
    """Empty: :data:`DEFAULT_MIX_TEXT`."""
    duration_median: float = 3600.0
    duration_sigma: float = 1.0
    mean_interarrival: float | None = None
    load: float = 0.8
    seed: int = 0
    namespace: str = "default"


def generate(options: SyntheticOptions) -> Trace:
    """The cluster and trace ``options`` describe; raises :class:`TraceInputError` for
    options that describe none (no nodes, a GPU-less mix without an arrival rate, ...)."""
    with paused_gc():  # hundreds of thousands of small dicts and no cycles
        return _generate(options)


def _generate(options: SyntheticOptions) -> Trace:
    _check(options)
    mix = options.mix or parse_mix(DEFAULT_MIX_TEXT)
    gap = _mean_interarrival(options, mix)
    shapes = [shape for shape, _ in mix]
    weights = [weight for _, weight in mix]
    rng = random.Random(options.seed)
    mu = math.log(options.duration_median)
    width = len(str(options.pods - 1))
    entries: list[dict[str, Any]] = []
    used: Counter[GpuShape | None] = Counter()
    clock = 0.0
    for index in range(options.pods):
        clock += rng.expovariate(1.0 / gap)
        shape = rng.choices(shapes, weights)[0]
        duration = max(1, round(rng.lognormvariate(mu, options.duration_sigma)))
        name = f"pod-{index:0{width}d}"
        _check_drawn(name, clock, duration)
        used[shape] += 1
        entries.append(arrival(round(clock), duration, [_pod(name, shape, options)]))
    node_width = len(str(options.nodes - 1))
    nodes = [
        GpuNode(
            name=f"node-{index:0{node_width}d}",
            cpu_milli=options.node_cpu_milli,
            memory_mib=options.node_memory_mib,
            gpus=options.gpus_per_node,
            model=options.gpu_model,
            gpu_memory=options.gpu_memory,
            pods=options.pods_per_node,
        )
        for index in range(options.nodes)
    ]
    templates = sorted(shape for shape in used if shape is not None)
    cluster = cluster_objects(nodes, DRIVER)
    cluster.extend(claim_template(shape, DRIVER, options.namespace) for shape in templates)
    return Trace(
        cluster=cluster,
        entries=entries,
        header=_header(options, mix, gap),
        summary={
            "nodes": options.nodes,
            "gpus": options.nodes * options.gpus_per_node,
            "pods": options.pods,
            "meanInterarrivalSeconds": round(gap, 3),
            "lastArrivalSeconds": entries[-1]["at"] if entries else None,
            "podsByShape": {
                (shape.template_name if shape else "cpu"): used[shape]
                for shape in shapes
                if used[shape]
            },
            "templates": [shape.template_name for shape in templates],
        },
    )


def _check_drawn(name: str, clock: float, duration: int) -> None:
    """What a trace's ``at`` and ``duration`` may say (Go's time.Duration, as kubedra replay
    checks), so that replay takes what generate writes."""
    if round(clock) > MAX_DURATION_SECONDS:
        raise TraceInputError(
            f"{name} arrives after {MAX_DURATION_TEXT} (Go's time.Duration, the longest "
            "a trace may say): fewer --pods or a shorter --mean-interarrival (or more --load)"
        )
    if duration > MAX_DURATION_SECONDS:
        raise TraceInputError(
            f"{name} draws a duration of {duration} s, longer than {MAX_DURATION_TEXT} "
            "(Go's time.Duration): a shorter --duration-median or a smaller --duration-sigma"
        )


def _check(options: SyntheticOptions) -> None:
    for name, value in (
        ("--pods", options.pods),
        ("--nodes", options.nodes),
        ("--pods-per-node", options.pods_per_node),
    ):
        if value < 1:
            raise TraceInputError(f"{name}: must be at least 1 (got {value})")
    if not 0 <= options.gpus_per_node <= MAX_GPUS_PER_NODE:
        raise TraceInputError(f"--gpus-per-node: 0 to {MAX_GPUS_PER_NODE} (one ResourceSlice)")
    for name, seconds in (
        ("--duration-median", options.duration_median),
        ("--mean-interarrival", options.mean_interarrival),
    ):
        if seconds is not None and not 0 < seconds <= MAX_SECONDS:
            raise TraceInputError(f"{name}: more than zero and at most {MAX_SECONDS:g} s")
    if options.pods > MAX_PODS:
        raise TraceInputError(f"--pods: at most {MAX_PODS:,} (got {options.pods:,})")
    if options.nodes > MAX_NODES:
        raise TraceInputError(f"--nodes: at most {MAX_NODES:,} (got {options.nodes:,})")
    if not 0 <= options.duration_sigma <= 10:
        raise TraceInputError("--duration-sigma: 0 to 10")
    if not 0 < options.load < math.inf:
        raise TraceInputError("--load: must be more than zero")
    if options.seed < 0:
        raise TraceInputError("--seed: must not be negative")
    if not 1 <= len(options.gpu_model) <= MAX_STRING_ATTRIBUTE:
        raise TraceInputError(f"--gpu-model: 1 to {MAX_STRING_ATTRIBUTE} characters")


def _mean_interarrival(options: SyntheticOptions, mix: Mix) -> float:
    if options.mean_interarrival is not None:
        return options.mean_interarrival
    total = sum(weight for _, weight in mix)
    gpus_per_pod = sum(weight * shape.gpu_count() for shape, weight in mix if shape) / total
    gpus = options.nodes * options.gpus_per_node
    if not gpus_per_pod or not gpus:
        raise TraceInputError(
            "--load needs GPUs in the cluster and in the mix; give --mean-interarrival instead"
        )
    mean_duration = options.duration_median * math.exp(options.duration_sigma**2 / 2)
    gap = mean_duration * gpus_per_pod / (options.load * gpus)
    if not MIN_GAP_SECONDS <= gap <= MAX_SECONDS:
        raise TraceInputError(
            f"--load {options.load:g}: gives a mean gap between arrivals of {gap:g} s, not "
            f"{MIN_GAP_SECONDS:g} to {MAX_SECONDS:g} s; give --mean-interarrival instead"
        )
    return gap


def _pod(name: str, shape: GpuShape | None, options: SyntheticOptions) -> dict[str, Any]:
    gpus = shape.gpu_count() if shape is not None else 1.0  # a CPU pod asks one GPU's share
    return pod_manifest(
        name,
        options.namespace,
        cpu_milli=max(1, round(options.cpu_milli_per_gpu * gpus)),
        memory_mib=max(1, round(options.memory_mib_per_gpu * gpus)),
        template=shape.template_name if shape is not None else None,
    )


def _header(options: SyntheticOptions, mix: Mix, gap: float) -> list[str]:
    mix_text = ",".join(f"{_shape_text(shape)}={weight:g}" for shape, weight in mix)
    return [
        f"kubedra trace generate: {options.pods} pods on {options.nodes} nodes x "
        f"{options.gpus_per_node} {options.gpu_model} GPUs, seed {options.seed}",
        f"arrivals: Poisson, mean gap {gap:.3f}s"
        + ("" if options.mean_interarrival is not None else f" (load {options.load:g})"),
        f"durations: log-normal, median {options.duration_median:g}s, sigma "
        f"{options.duration_sigma:g}",
        f"mix: {mix_text}",
        "replay: kubedra replay cluster.yaml --trace trace.yaml",
    ]


def _shape_text(shape: GpuShape | None) -> str:
    if shape is None:
        return "cpu"
    return f"share:{shape.milli}" if shape.shared else f"gpu:{shape.gpus}"
