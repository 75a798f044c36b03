"""``trace generate``: the stated distributions, checked on seeded samples against their
closed forms, the request shapes, the cluster, and byte-identical output per seed."""

from __future__ import annotations

import itertools
import math
import statistics
from pathlib import Path

import pytest
from traces_fixtures import by_kind, pods_file, read_entries, read_yaml

from kubedra.api.checking import check_paths
from kubedra.traces import SyntheticOptions, TraceInputError, generate, parse_mix, write_trace
from kubedra.traces.trace_dir import trace_text


def _options(**overrides: object) -> SyntheticOptions:
    return SyntheticOptions(**overrides)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("mix", "sigma", "load", "gap"),
    [
        # 8 GPUs, one GPU per pod, every pod 100 s: rate x 100 x 1 = 0.5 x 8 -> a gap of 25 s.
        ("gpu:1=1", 0.0, 0.5, 25.0),
        # The log-normal mean is the median times exp(sigma^2 / 2): 100 x e^0.5 = 164.872 s.
        ("gpu:1=1", 1.0, 0.5, 100 * math.exp(0.5) / 4),
        # Half the pods take two GPUs, half a half of one: 1.25 GPUs per pod, full load.
        ("gpu:2=1,share:500=1", 0.0, 1.0, 100 * 1.25 / 8),
        # A pod without GPU adds no GPU load but counts in the mean: 0.5 GPUs per pod.
        ("gpu:1=1,cpu=1", 0.0, 1.0, 100 * 0.5 / 8),
    ],
)
def test_load_sets_the_mean_gap(mix: str, sigma: float, load: float, gap: float) -> None:
    trace = generate(
        _options(
            pods=3,
            nodes=2,
            gpus_per_node=4,
            mix=parse_mix(mix),
            duration_median=100.0,
            duration_sigma=sigma,
            load=load,
        )
    )
    assert trace.summary["meanInterarrivalSeconds"] == round(gap, 3)
    assert f"mean gap {gap:.3f}s (load {load:g})" in trace.header[1]


def test_arrivals_are_poisson() -> None:
    """Exponential gaps with mean 10 s: over 20,000 pods the mean gap is within 2% (about
    three standard errors, 10 / sqrt(20000) = 0.07 s), and P(gap >= 20 s) = e^-2 = 0.135."""
    trace = generate(_options(pods=20_000, mean_interarrival=10.0, mix=parse_mix("cpu=1")))
    times = [entry["at"] for entry in trace.entries]
    assert times == sorted(times)
    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    assert statistics.fmean(gaps) == pytest.approx(10.0, rel=0.02)
    assert sum(gap >= 20 for gap in gaps) / len(gaps) == pytest.approx(math.exp(-2), abs=0.015)


def test_durations_are_log_normal() -> None:
    """log(duration) is normal with mean log(3600) and sigma 0.5: the sample median is within
    3% of an hour and the standard deviation of the logs within 5% of 0.5."""
    trace = generate(
        _options(pods=20_000, duration_median=3600.0, duration_sigma=0.5, mix=parse_mix("gpu:1=1"))
    )
    durations = [entry["duration"] for entry in trace.entries]
    assert min(durations) >= 1
    assert statistics.median(durations) == pytest.approx(3600, rel=0.03)
    assert statistics.stdev(math.log(d) for d in durations) == pytest.approx(0.5, rel=0.05)


def test_the_mix_is_drawn_by_weight() -> None:
    trace = generate(_options(pods=20_000, mix=parse_mix("cpu=1,gpu:1=3")))
    counts = trace.summary["podsByShape"]
    assert sum(counts.values()) == 20_000
    assert counts["cpu"] / 20_000 == pytest.approx(0.25, abs=0.015)
    assert trace.summary["templates"] == ["gpu-1"]


def test_requests_scale_with_the_gpus_a_pod_takes() -> None:
    """8 cpus and 64 GiB per GPU: a quarter GPU asks 2 cpus and 16 GiB, four GPUs 32 cpus and
    256 GiB, a pod without GPU as much as one GPU's."""
    trace = generate(
        _options(
            pods=300,
            mix=parse_mix("share:250=1,gpu:4=1,cpu=1"),
            cpu_milli_per_gpu=8000,
            memory_mib_per_gpu=65536,
        )
    )
    seen = {}
    for entry in trace.entries:
        spec = entry["objects"][0]["spec"]
        claims = spec.get("resourceClaims") or [{}]
        template = claims[0].get("resourceClaimTemplateName")
        seen[template] = spec["containers"][0]["resources"]["requests"]
    assert seen == {
        "gpu-milli-250": {"cpu": "2000m", "memory": "16384Mi"},
        "gpu-4": {"cpu": "32000m", "memory": "262144Mi"},
        None: {"cpu": "8000m", "memory": "65536Mi"},
    }


def test_pods_are_numbered_to_a_fixed_width() -> None:
    entries = generate(_options(pods=1000, nodes=1)).entries
    names = [entry["objects"][0]["metadata"]["name"] for entry in entries]
    assert names[0] == "pod-000" and names[-1] == "pod-999" and len(set(names)) == 1000


def test_same_seed_same_bytes_other_seed_other_trace() -> None:
    first = trace_text(generate(_options(pods=500, seed=7)))
    assert trace_text(generate(_options(pods=500, seed=7))) == first
    assert trace_text(generate(_options(pods=500, seed=8))) != first


def test_the_cluster_and_every_object_are_valid(tmp_path: Path) -> None:
    options = _options(pods=50, nodes=3, gpus_per_node=2, gpu_model="H100", gpu_memory="80Gi")
    out = tmp_path / "out"
    write_trace(generate(options), out)
    cluster = read_yaml(out / "cluster.yaml")
    assert sorted(by_kind(cluster, "Node")) == ["node-0", "node-1", "node-2"]
    spec = by_kind(cluster, "ResourceSlice")["node-1-gpu.example.com"]["spec"]
    assert spec["devices"][1] == {
        "name": "gpu-1",
        "allowMultipleAllocations": True,
        "attributes": {"model": {"string": "H100"}},
        "capacity": {
            "gpu_milli": {"value": "1000"},
            "memory": {"value": "80Gi", "requestPolicy": {"default": "0"}},
        },
    }
    assert list(by_kind(cluster, "DeviceClass")) == ["gpu.example.com"]
    report = check_paths([out / "cluster.yaml", pods_file(read_entries(out), tmp_path / "p.yaml")])
    assert report.ok
    assert len(report.verdicts) == 1 + 3 * 2 + len(by_kind(cluster, "ResourceClaimTemplate")) + 50


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("gpu:0=1", "--mix: 'gpu:0=1': gpu:N takes 1 to 128 GPUs"),
        ("share:1000=1", "--mix: 'share:1000=1': share:M takes 1 to 999 thousandths"),
        ("tpu:1=1", "--mix: 'tpu:1=1': shape must be cpu, gpu:N or share:M"),
        ("gpu:1", "--mix: 'gpu:1': expected SHAPE=WEIGHT (like gpu:1=45)"),
        ("gpu:1=-1", "--mix: 'gpu:1=-1': weight must be zero or more"),
        ("gpu:1=nan", "--mix: 'gpu:1=nan': weight must be zero or more"),
        ("cpu=0", "--mix: the weights must not all be zero"),
        ("gpu:1=1,gpu:1=2", "--mix: 'gpu:1=2': shape given twice"),
        ("gpu:1=1e308,gpu:2=1e308", "--mix: the weights must add up to a finite number"),
    ],
)
def test_bad_mixes(text: str, message: str) -> None:
    with pytest.raises(TraceInputError) as caught:
        parse_mix(text)
    assert str(caught.value) == message


def test_load_needs_gpu_work() -> None:
    with pytest.raises(TraceInputError, match="--load needs GPUs in the cluster and in the mix"):
        generate(_options(mix=parse_mix("cpu=1")))
    trace = generate(_options(pods=2, mix=parse_mix("cpu=1"), mean_interarrival=5.0))
    assert trace.summary["meanInterarrivalSeconds"] == 5.0


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"mean_interarrival": 0.0}, "--mean-interarrival: more than zero and at most 1e+09 s"),
        ({"duration_median": 2e9}, "--duration-median: more than zero and at most 1e+09 s"),
        ({"pods": 1_000_001}, "--pods: at most 1,000,000 (got 1,000,001)"),
        ({"gpus_per_node": 129}, "--gpus-per-node: 0 to 128 (one ResourceSlice)"),
        ({"gpu_model": ""}, "--gpu-model: 1 to 64 characters"),
        ({"nodes": 100_001}, "--nodes: at most 100,000 (got 100,001)"),
        (
            {"load": 1e308},
            "--load 1e+308: gives a mean gap between arrivals of 0 s, not 1e-06 to 1e+09 s; "
            "give --mean-interarrival instead",
        ),
        (
            {"load": 1e-300},
            "--load 1e-300: gives a mean gap between arrivals of 5.26303e+301 s, not 1e-06 to "
            "1e+09 s; give --mean-interarrival instead",
        ),
        (
            {"pods": 100, "mean_interarrival": 1e9},
            "pod-08 arrives after 2562047h47m16.854775807s (Go's time.Duration, the longest a "
            "trace may say): fewer --pods or a shorter --mean-interarrival (or more --load)",
        ),
        (
            {"pods": 100, "duration_median": 1e9, "duration_sigma": 10.0, "mean_interarrival": 5},
            "pod-01 draws a duration of 1083852315647 s, longer than 2562047h47m16.854775807s "
            "(Go's time.Duration): a shorter --duration-median or a smaller --duration-sigma",
        ),
    ],
)
def test_options_that_describe_no_trace(overrides: dict[str, object], message: str) -> None:
    with pytest.raises(TraceInputError) as caught:
        generate(_options(**overrides))
    assert str(caught.value) == message
