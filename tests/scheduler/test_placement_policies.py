"""Placement policies (kubedra.scheduler.policies): each built-in on a small cluster whose
choice is worked out by hand, a user-registered policy, the registry's names and errors, and
the default profile left as it was.

In every scenario the pods named ``fill-*`` come first (the queue is first-in first-out) and
are pinned to a node (and a GPU, by its ``index`` attribute), so that the pod under test meets
a known state. GPUs are devices handed out in shares of ``milli`` (1000 each, see
policy_builders); "0.4 left" means 400 of 1000 free.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import Result
from policy_builders import (
    claim_spec,
    device_class,
    gpu_node,
    gpu_pod,
    on_index,
    on_model,
    placement,
    run,
    scores,
    shapes,
)
from typer.testing import CliRunner

from kubedra.allocator.policy import DeviceCandidate
from kubedra.cli.main import _register_commands, app
from kubedra.scheduler.policies import (
    BUILTINS,
    REGISTRY,
    NodeScorer,
    NodeView,
    PodView,
    Policy,
    PolicyError,
    TaskShape,
    Workload,
    WorkloadError,
    register,
)

REPO = Path(__file__).resolve().parents[2]
SHARE_300 = claim_spec(milli=300)
ONE_GPU = claim_spec()


def invoke(*args: str) -> Result:
    """Run kubedra in-process (every command registered)."""
    _register_commands()
    return CliRunner().invoke(app, list(args))


def _cluster(*parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [device_class(), *(obj for part in parts for obj in part)]


# --- best-fit -----------------------------------------------------------------------------------


def test_best_fit_takes_the_fullest_gpu_that_fits_inside_a_node() -> None:
    # One node, three GPUs: gpu-0 free, gpu-1 0.4 left, gpu-2 0.8 left. A 0.3 share fits all
    # three; best-fit takes gpu-1 (0.1 left after), first-fit (upstream) gpu-0.
    objects = _cluster(
        gpu_node("a", 3),
        gpu_pod("fill-1", claim_spec(milli=600, selector=on_index(1))),
        gpu_pod("fill-2", claim_spec(milli=200, selector=on_index(2))),
        gpu_pod("pod", SHARE_300),
    )
    assert placement(run(objects, "best-fit"), "pod") == ("a", ["gpu-1"])
    assert placement(run(objects), "pod") == ("a", ["gpu-0"])


def test_best_fit_fills_the_fullest_node() -> None:
    """Three one-GPU nodes with 32 cpus: a has 0.4 of its GPU left, b 0.8, c all of it (the
    fillers take 1 cpu each). best-fit scores 100 * (1 - (0.5 * cpu left / 32000 + 0.5 *
    GPUs left / 1)) after the 0.3 share and 1 cpu of the pod: a 100 * (1 - (0.46875 + 0.05)) =
    48.125, b 100 * (1 - (0.46875 + 0.25)) = 28.125, c 100 * (1 - (0.484375 + 0.35)) =
    16.5625, each truncated to the framework's integer (48, 28, 16)."""
    objects = _cluster(
        gpu_node("c", 1),
        gpu_node("b", 1),
        gpu_node("a", 1),
        gpu_pod("fill-a", claim_spec(milli=600), node="a"),
        gpu_pod("fill-b", claim_spec(milli=200), node="b"),
        gpu_pod("pod", SHARE_300),
    )
    sim = run(objects, "best-fit")
    assert placement(sim, "pod") == ("a", ["gpu-0"])
    assert scores(sim, "pod") == {
        "a": {"BestFitScore": 48},
        "b": {"BestFitScore": 28},
        "c": {"BestFitScore": 16},
    }


# --- dot-product --------------------------------------------------------------------------------


def test_dot_product_picks_the_smallest_alignment() -> None:
    """Two nodes with 8 cpus and two free GPUs; a filler takes 6 cpus of b. For a pod asking
    1 cpu and one GPU (normalised by the largest node: 8000 millicores, 2 GPUs), the dot
    products are a: 1 * 1/8 + 1 * 1/2 = 0.625 and b: 1/4 * 1/8 + 1 * 1/2 = 0.53125; the
    scores 100 * (1 - dot / 2) are 68.75 and 73.4375, truncated 68 and 73, so b."""
    objects = _cluster(
        gpu_node("a", 2, cpu="8"),
        gpu_node("b", 2, cpu="8"),
        gpu_pod("fill", None, cpu="6", node="b"),
        gpu_pod("pod", ONE_GPU),
    )
    sim = run(objects, "dot-product")
    assert placement(sim, "pod") == ("b", ["gpu-0"])
    assert scores(sim, "pod") == {
        "a": {"DotProductScore": 68},
        "b": {"DotProductScore": 73},
    }


# --- gpu-packing --------------------------------------------------------------------------------


def test_gpu_packing_prefers_a_partly_used_gpu() -> None:
    """a: two idle GPUs, c: one idle GPU, b: two GPUs, gpu-1 half used. A 0.3 share on b's
    partly used GPU scores 100 - 50 // 10 = 95; an idle node scores 33 - its GPUs (a 31,
    c 32). A whole-GPU pod then takes b's free GPU (a used node: 50 - 1 = 49)."""
    objects = _cluster(
        gpu_node("a", 2),
        gpu_node("b", 2),
        gpu_node("c", 1),
        gpu_pod("fill", claim_spec(milli=500, selector=on_index(1)), node="b"),
        gpu_pod("pod", SHARE_300),
        gpu_pod("whole", ONE_GPU),
    )
    sim = run(objects, "gpu-packing")
    assert placement(sim, "pod") == ("b", ["gpu-1"])
    assert scores(sim, "pod") == {
        "a": {"GpuPackingScore": 31},
        "b": {"GpuPackingScore": 95},
        "c": {"GpuPackingScore": 32},
    }
    assert placement(sim, "whole") == ("b", ["gpu-0"])
    assert scores(sim, "whole")["b"] == {"GpuPackingScore": 49}
    # The default profile spreads: the share goes to an idle node.
    assert placement(run(objects), "pod")[0] == "a"


# --- gpu-clustering -----------------------------------------------------------------------------


def test_gpu_clustering_keeps_request_kinds_on_their_nodes() -> None:
    """Three four-GPU nodes: a runs a two-GPU pod, b a 0.3 share, c nothing. Bands: only
    this kind 75, this kind among others 50, idle 25, other kinds 0, plus 25 * (4000 - free
    milli-GPUs) // 4000 in integers. A two-GPU pod: a 75 + 12, b 0 + 7500 // 4000 = 1, c 25;
    then a share: b 75 + 1 (a is full); then a whole GPU: c 25, b 0 + 15000 // 4000 = 3 (its
    GPU is 0.6 used now)."""
    objects = _cluster(
        gpu_node("a", 4),
        gpu_node("b", 4),
        gpu_node("c", 4),
        gpu_pod("fill-a", claim_spec(count=2), node="a"),
        gpu_pod("fill-b", SHARE_300, node="b"),
        gpu_pod("two", claim_spec(count=2)),
        gpu_pod("share", SHARE_300),
        gpu_pod("one", ONE_GPU),
    )
    sim = run(objects, "gpu-clustering")
    assert placement(sim, "two") == ("a", ["gpu-2", "gpu-3"])
    assert scores(sim, "two") == {
        "a": {"GpuClusteringScore": 87},
        "b": {"GpuClusteringScore": 1},
        "c": {"GpuClusteringScore": 25},
    }
    assert placement(sim, "share") == ("b", ["gpu-0"])
    assert scores(sim, "share")["b"] == {"GpuClusteringScore": 76}
    assert placement(sim, "one") == ("c", ["gpu-0"])
    assert scores(sim, "one") == {
        "b": {"GpuClusteringScore": 3},
        "c": {"GpuClusteringScore": 25},
    }


# --- random -------------------------------------------------------------------------------------


def test_random_is_reproducible_and_draws_nodes_and_devices() -> None:
    objects = _cluster(
        *(gpu_node(f"n{i}", 4) for i in range(4)),
        *(gpu_pod(f"p{i}", ONE_GPU) for i in range(8)),
    )

    def placements(seed: int | None) -> list[tuple[str | None, list[str]]]:
        sim = run(objects, "random", seed=seed)
        return [placement(sim, f"p{i}") for i in range(8)]

    first = placements(1)
    assert first == placements(1)
    assert first != placements(2)
    assert placements(None) == placements(None)  # no seed: the policy's fixed seed
    # Random devices: not always the first GPU of a node in pool order.
    assert {devices[0] for _, devices in first} != {"gpu-0"}
    assert len({node for node, _ in first}) > 1


# --- fgd ----------------------------------------------------------------------------------------


def test_fgd_avoids_stranding_a_share_where_best_fit_packs() -> None:
    """Two one-GPU nodes: a has 0.3 left, b is free. The workload is all 0.3 shares; the pod
    asks 0.2.

    Fragmentation (free GPU share the workload's shapes cannot use, weighted by shape):
    a now: 0.3 left, a 0.3 share fits, so F_a = 0; with the pod: 0.1 left, too little for a
    0.3 share, F_a = 0.1, a growth of 0.1 (score int(100 * sigmoid(-0.1)) = 47). b now:
    F_b = 0; with the pod 0.8 left, still usable, F_b = 0 (score int(100 * sigmoid(0)) = 50). FGD
    places the pod on b; best-fit (the fuller node) on a, where 0.1 of a GPU is stranded."""
    objects = _cluster(
        gpu_node("a", 1),
        gpu_node("b", 1),
        gpu_pod("fill", claim_spec(milli=700), node="a"),
        gpu_pod("pod", claim_spec(milli=200)),
    )
    workload = shapes((SHARE_300, 1.0))
    sim = run(objects, "fgd", workload)
    assert placement(sim, "pod") == ("b", ["gpu-0"])
    got = scores(sim, "pod")
    assert got["a"]["FGDScore"] == 47  # int(100 * sigmoid(-0.1)) = int(47.50)
    assert got["b"]["FGDScore"] == 50  # sigmoid(0) = 0.5
    assert placement(run(objects, "best-fit"), "pod") == ("a", ["gpu-0"])


def test_fgd_fills_the_partly_used_gpu_inside_a_node() -> None:
    """One node, two GPUs, gpu-1 half used; the workload is half whole GPUs, half 0.5
    shares; the pod asks 0.5. On gpu-1 the node keeps a whole free GPU (fragmentation 0); on
    gpu-0 both GPUs are left half free, so whole-GPU tasks no longer fit (0.5 * 1.0 of
    fragmentation). FGD takes gpu-1; first-fit devices (upstream) gpu-0."""
    objects = _cluster(
        gpu_node("a", 2),
        gpu_pod("fill", claim_spec(milli=500, selector=on_index(1))),
        gpu_pod("pod", claim_spec(milli=500)),
    )
    workload = shapes((ONE_GPU, 0.5), (claim_spec(milli=500), 0.5))
    assert placement(run(objects, "fgd", workload), "pod") == ("a", ["gpu-1"])
    composed = run(objects, "fgd", workload, device_policy="first-fit")
    assert placement(composed, "pod") == ("a", ["gpu-0"])


def test_fgd_keeps_the_model_a_restricted_shape_needs() -> None:
    """y has an A100, x a T4, both free. The workload: 80% tasks that want one A100 (a CEL
    selector on the model), 20% 0.5 shares of any GPU; the pod takes any whole GPU.

    x: the A100 tasks cannot use the T4, so its whole free share is fragment for them
    (0.8 * 1.0); the pod takes it: fragmentation 0.8 -> 0 (score int(100 * sigmoid(0.8)) =
    68). y: everyone can use the A100 (0), and once taken nothing is free (0): score 50. FGD places
    the pod on x; the default profile on y (the first node)."""
    objects = _cluster(
        gpu_node("y", 1, model="A100"),
        gpu_node("x", 1, model="T4"),
        gpu_pod("pod", ONE_GPU),
    )
    workload = shapes((claim_spec(selector=on_model("A100")), 0.8), (claim_spec(milli=500), 0.2))
    sim = run(objects, "fgd", workload)
    assert placement(sim, "pod") == ("x", ["gpu-0"])
    assert scores(sim, "pod") == {"x": {"FGDScore": 68}, "y": {"FGDScore": 50}}
    assert placement(run(objects), "pod") == ("y", ["gpu-0"])


def test_fgd_counts_every_free_gpu_of_a_node_out_of_cpu() -> None:
    """A shape that cannot run on a node for want of cpu finds every free GPU there useless.
    a (4 cpus) and b (32 cpus) have one free GPU each; the workload is one GPU with 4 cpus.
    A cpu-only pod asking 2 cpus: on a, the GPU becomes a fragment (1.0, score
    int(100 * sigmoid(-1)) = 26); on b nothing changes (score 50)."""
    objects = _cluster(gpu_node("a", 1, cpu="4"), gpu_node("b", 1), gpu_pod("pod", None, cpu="2"))
    workload = Workload([(TaskShape.of(4000, 0, [ONE_GPU]), 1.0)])
    sim = run(objects, "fgd", workload)
    assert placement(sim, "pod") == ("b", [])
    assert scores(sim, "pod") == {"a": {"FGDScore": 26}, "b": {"FGDScore": 50}}


def test_fgd_equal_growth_is_a_tie_whatever_the_rounding() -> None:
    """Equal fragmentation growth is a tie, not decided by floating-point noise.

    a and b have 6 GPUs each, a all free, b one taken whole. The workload: 10% cpu-only tasks
    (every free GPU is a fragment for them), 90% one whole GPU (no GPU of a or b is partly
    used, so none is a fragment for them). A one-GPU pod: on a, F goes 0.1 * 6 -> 0.1 * 5, on
    b 0.1 * 5 -> 0.1 * 4; both shrink by 0.1 (score int(100 * sigmoid(0.1)) = 52). In floating point
    the two differences differ in the last bits (0.10000000000000009 against 0.09999999999999998),
    which used to decide for a whatever the tie rule: always the emptier node spreads tasks and
    strands whole nodes (on the Alibaba trace, 8-GPU tasks failed from 14% of the demand on). The
    tie goes by name (the authors' rule, see test_paper_policies_break_ties_by_node_name): to a, the
    fuller one, listed second."""
    objects = _cluster(
        gpu_node("b", 6),
        gpu_node("a", 6),
        gpu_pod("fill", ONE_GPU, node="a"),
        gpu_pod("pod", ONE_GPU),
    )
    workload = Workload([(TaskShape.of(0, 0, []), 0.1), (TaskShape.of(0, 0, [ONE_GPU]), 0.9)])
    for seed in range(4):
        sim = run(objects, "fgd", workload, seed=seed)
        decision = sim.scheduler.last_decision["default/pod"]
        assert decision.scores == {"a": {"FGDScore": 52}, "b": {"FGDScore": 52}}
        assert sorted(decision.tied) == ["a", "b"]
        assert placement(sim, "pod")[0] == "a"


def test_fgd_scores_as_the_authors_plugin_integers_close_decreases_tie() -> None:
    """FGD's score is the authors' plugin's: int(100 * sigmoid(decrease)), the decrease of the
    node's fragmentation in GPUs. Decreases closer than about 0.04 of a GPU score alike and
    the tie goes by name.

    One-GPU nodes b and a, each with a share taken: b 0.7 (0.3 left), a 0.69 (0.31 left).
    The workload is all 0.3 shares. A 0.3 pod fills either GPU: on b, F goes 0 -> 0 (the 0.3
    left fits a 0.3 share; once taken nothing is free): decrease 0, score 50. On a, 0 -> 0.01
    (0.01 left, too little for a share): decrease -0.01, score int(49.75) = 49. So b.

    d (0.309 left) and c (0.301 left), the same pod: it strands 0.009 on d and 0.001 on c,
    scores int(49.775) and int(49.975), both 49: a tie, c by name (a float score took c
    too, but for being better, and d never by a tie)."""
    objects = _cluster(
        gpu_node("b", 1),
        gpu_node("a", 1),
        gpu_pod("fill-b", claim_spec(milli=700), node="b"),
        gpu_pod("fill-a", claim_spec(milli=690), node="a"),
        gpu_pod("pod", SHARE_300),
    )
    sim = run(objects, "fgd", shapes((SHARE_300, 1.0)))
    assert scores(sim, "pod") == {"b": {"FGDScore": 50}, "a": {"FGDScore": 49}}
    assert placement(sim, "pod") == ("b", ["gpu-0"])
    objects = _cluster(
        gpu_node("d", 1),
        gpu_node("c", 1),
        gpu_pod("fill-d", claim_spec(milli=691), node="d"),
        gpu_pod("fill-c", claim_spec(milli=699), node="c"),
        gpu_pod("pod", SHARE_300),
    )
    sim = run(objects, "fgd", shapes((SHARE_300, 1.0)))
    assert scores(sim, "pod") == {"d": {"FGDScore": 49}, "c": {"FGDScore": 49}}
    assert placement(sim, "pod") == ("c", ["gpu-0"])


@pytest.mark.parametrize("policy", ["best-fit", "dot-product", "gpu-packing", "gpu-clustering"])
def test_paper_policies_break_ties_by_node_name(policy: str) -> None:
    """The authors' simulator (hkust-adsl/kubernetes-scheduler-simulator) vendors a
    kube-scheduler whose selectHost keeps the smallest node name among equal scores, where
    kube-scheduler draws at random; the paper's figures come from that rule. Three empty,
    equal one-GPU nodes listed z, m, a and a one-GPU pod: every policy scores them alike, so
    whatever the seed the pod lands on a; the default profile draws (with seeds 0..7 it
    lands on more than one of them)."""
    objects = _cluster(
        gpu_node("z", 1), gpu_node("m", 1), gpu_node("a", 1), gpu_pod("pod", ONE_GPU)
    )
    for seed in range(8):
        sim = run(objects, policy, seed=seed)
        assert sorted(sim.scheduler.last_decision["default/pod"].tied) == ["a", "m", "z"]
        assert placement(sim, "pod") == ("a", ["gpu-0"])
    drawn = {placement(run(objects, seed=seed), "pod")[0] for seed in range(8)}
    assert len(drawn) > 1


def test_fgd_default_workload_is_the_pods_in_the_store() -> None:
    # Without a workload the shapes of the pods in the store count: the fillers' 0.3
    # shares (twice) and the pod's 0.2 (once) make the stranding case above (2/3 * 0.1).
    objects = _cluster(
        gpu_node("a", 1),
        gpu_node("b", 1),
        gpu_pod("fill", claim_spec(milli=700), node="a", cpu="0"),
        gpu_pod("fill-2", SHARE_300, node="b", cpu="0"),
        gpu_pod("pod", claim_spec(milli=200), cpu="0"),
    )
    sim = run(objects, "fgd")
    assert sim.scheduler.placement_context.workload() == Workload(
        [
            (TaskShape.of(0, 0, [claim_spec(milli=700)]), 1),
            (TaskShape.of(0, 0, [SHARE_300]), 1),
            (TaskShape.of(0, 0, [claim_spec(milli=200)]), 1),
        ],
        coverage=0.95,
    )


def test_fgd_is_deterministic() -> None:
    objects = _cluster(
        *(gpu_node(f"n{i}", 2 + i % 3) for i in range(5)),
        *(
            gpu_pod(f"p{i}", claim_spec(milli=250 * (1 + i % 3)) if i % 2 else ONE_GPU)
            for i in range(16)
        ),
    )
    first = run(objects, "fgd")
    again = run(objects, "fgd")
    assert [placement(first, f"p{i}") for i in range(16)] == [
        placement(again, f"p{i}") for i in range(16)
    ]


def _almost_equal_nodes(policy: str) -> list[dict[str, Any]]:
    """Nodes z and a (one GPU, 32 cpus each), z a little fuller than a, and a pod."""
    if policy == "gpu-clustering":
        # Both run only 0.01-0.02 shares (the pod's kind): z 0.98 free, a 0.99 free.
        fill_z, fill_a, pod = claim_spec(milli=20), claim_spec(milli=10), SHARE_300
        return _cluster(
            gpu_node("z", 1),
            gpu_node("a", 1),
            gpu_pod("fill-z", fill_z, node="z"),
            gpu_pod("fill-a", fill_a, node="a"),
            gpu_pod("pod", pod),
        )
    # z runs a 0.1-cpu pod without claims; a nothing.
    return _cluster(
        gpu_node("z", 1),
        gpu_node("a", 1),
        gpu_pod("fill-z", None, cpu="100m", node="z"),
        gpu_pod("pod", ONE_GPU),
    )


@pytest.mark.parametrize(
    ("policy", "scores_z_a"),
    [
        # 100 * (1 - (0.5 * (32 - 0.1 - 1) / 32 + 0)) = 51.72 on z, 51.56 on a: both 51.
        ("best-fit", (51, 51)),
        # 100 * (1 - ((31.9 / 32) * (1 / 32) + 1 * 1) / 2) = 48.44 on z, 48.44 on a: both 48.
        ("dot-product", (48, 48)),
        # Band 3 (75) + 25 * (1000 - 980) // 1000 = 0 on z, 25 * 10 // 1000 = 0 on a: both 75.
        ("gpu-clustering", (75, 75)),
    ],
)
def test_paper_scores_are_the_authors_integers(policy: str, scores_z_a: tuple[int, int]) -> None:
    """The authors' plugins return the framework's integer scores (best_fit_score.go,
    dot_product_score.go truncate 100 * score; gpu_clustering_score.go computes in integer
    milli-GPUs), so nodes within a point of each other tie, and the tie goes by name. z is
    a little fuller than a (scores worked out beside each case): with unrounded scores z
    won by a fraction of a point; now both score alike and a, first by name, takes the pod."""
    sim = run(_almost_equal_nodes(policy), policy)
    plugin = {"best-fit": "BestFitScore", "dot-product": "DotProductScore"}.get(
        policy, "GpuClusteringScore"
    )
    z, a = scores_z_a
    assert scores(sim, "pod") == {"z": {plugin: z}, "a": {plugin: a}}
    assert placement(sim, "pod")[0] == "a"


# --- a policy of one's own ----------------------------------------------------------------------


class MostFreeCpu(NodeScorer):
    """The node with the most cpu left."""

    plugin = "MostFreeCpu"

    def score(self, pod: PodView, node: NodeView) -> float:
        return node.cpu_free - pod.cpu


def last_gpu_first(candidate: DeviceCandidate) -> int:
    return -int(candidate.device.name.split("-")[1])


@pytest.fixture
def user_policy() -> Iterator[Policy]:
    policy = register(
        Policy(
            "most-free-cpu",
            "The node with the most cpu left, its last GPU first.",
            lambda context: MostFreeCpu(),
            lambda context: last_gpu_first,
        )
    )
    yield policy
    REGISTRY.unregister(policy.name)


def _user_cluster() -> list[dict[str, Any]]:
    return _cluster(
        gpu_node("a", 2, cpu="8"),
        gpu_node("b", 2, cpu="16"),
        gpu_pod("pod", ONE_GPU),
    )


def test_a_registered_policy_runs_by_name(user_policy: Policy) -> None:
    sim = run(_user_cluster(), "most-free-cpu")
    assert placement(sim, "pod") == ("b", ["gpu-1"])
    assert scores(sim, "pod") == {"a": {"MostFreeCpu": 7000}, "b": {"MostFreeCpu": 15000}}
    # A Policy object runs without registering it too.
    assert placement(run(_user_cluster(), user_policy), "pod") == ("b", ["gpu-1"])
    # The default profile: b too (NodeResourcesFit's LeastAllocated), its first GPU.
    assert placement(run(_user_cluster()), "pod") == ("b", ["gpu-0"])


def test_a_registered_policy_on_the_command_line(user_policy: Policy, tmp_path: Path) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(_user_cluster()))
    result = invoke("simulate", str(path), "--policy", "most-free-cpu", "-o", "json")
    assert result.exit_code == 0, result.output
    pod = next(o for o in yaml.safe_load(result.stdout)["items"] if o["kind"] == "Pod")
    assert pod["spec"]["nodeName"] == "b"


def test_registry_refuses_taken_and_bad_names(user_policy: Policy) -> None:
    with pytest.raises(PolicyError, match="already registered"):
        register(user_policy)
    register(user_policy, replace=True)
    for bad in ("", "two words", "a+b", "a,b"):
        with pytest.raises(PolicyError, match="give a name without"):
            register(Policy(bad, "x"))


# --- names, aliases and errors ------------------------------------------------------------------


def test_unknown_names_list_the_known_ones(tmp_path: Path) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(_user_cluster()))
    result = invoke("simulate", str(path), "--policy", "tetris")
    assert result.exit_code == 1
    assert "unknown policy 'tetris': known policies: first-fit, best-fit, spread, random" in (
        result.output
    )
    result = invoke("simulate", str(path), "--node-score", "spread")
    assert result.exit_code == 1
    assert "unknown node score 'spread': use one of best-fit, random" in result.output
    result = invoke("plan", "utilization", str(path), "--policy", "tetris")
    assert result.exit_code == 1
    assert "unknown policy 'tetris'" in result.output


def test_old_flags_are_parts_of_registry_entries() -> None:
    assert REGISTRY.resolve() is None
    assert REGISTRY.resolve(device_policy="first-fit") is None
    best = REGISTRY.resolve(device_policy="best-fit")
    assert best is not None
    assert (best.node_score, best.devices) == (None, REGISTRY.get("best-fit").devices)
    both = REGISTRY.resolve("fgd", device_policy="spread", node_score="least-allocated")
    assert both is not None
    assert both.node_score is REGISTRY.get("least-allocated").node_score
    assert both.devices is REGISTRY.get("spread").devices


def test_plan_takes_a_policy(tmp_path: Path) -> None:
    objects = _cluster(
        gpu_node("a", 1),
        gpu_node("b", 1),
        gpu_pod("fill", claim_spec(milli=700), node="a"),
    )
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(objects))
    pod = tmp_path / "pod.yaml"
    pod.write_text(yaml.safe_dump_all(gpu_pod("job", SHARE_300)))
    default = invoke("plan", "capacity", str(pod), str(path), "--one-by-one", "-o", "json")
    best = invoke(
        "plan",
        "capacity",
        str(pod),
        str(path),
        "--one-by-one",
        "--policy",
        "best-fit",
        "-o",
        "json",
    )
    assert default.exit_code == best.exit_code == 0, (default.output, best.output)
    # a has 0.3 left, b a whole GPU: 0.3 shares fit once on a and three times on b.
    assert yaml.safe_load(best.stdout)["perNode"] == {"a": 1, "b": 3}
    assert yaml.safe_load(default.stdout)["perNode"] == {"a": 1, "b": 3}


def test_help_names_each_builtin_with_what_it_optimises() -> None:
    from kubedra.cli.options import POLICY_HELP, POLICY_NAMES

    assert POLICY_NAMES == tuple(p.name for p in BUILTINS) == tuple(REGISTRY.names()[:10])
    flat = " ".join(POLICY_HELP.split())
    for policy in BUILTINS:
        assert f"- {policy.name}: {policy.summary}" in flat
    guide = (REPO / "docs" / "guides" / "policies.md").read_text()
    for policy in BUILTINS:
        assert f"`{policy.name}`" in guide, policy.name


# --- the default profile stays upstream's -------------------------------------------------------


def test_first_fit_is_the_default_profile() -> None:
    from kubedra.planning.scenarios import mixed_sizes, queue_of

    objects = mixed_sizes(6, queue=queue_of("random", 6))
    default = run(objects)
    first_fit = run(objects, "first-fit")
    assert default.scheduler.placement is None
    assert default.scheduler._scorer is None
    assert [d.to_dict() for d in default.scheduler.decisions] == [
        d.to_dict() for d in first_fit.scheduler.decisions
    ]


# --- workloads ----------------------------------------------------------------------------------


def test_workload_keeps_the_popular_shapes_and_renormalises() -> None:
    small, large, rare = (TaskShape.of(1000, 0, [claim_spec(milli=m)]) for m in (100, 900, 500))
    workload = Workload.of([small] * 6 + [large] * 3 + [rare], coverage=0.9)
    assert workload.shapes == ((small, 6 / 9), (large, 3 / 9))
    assert Workload.of([small, large, large]).shapes == ((large, 2 / 3), (small, 1 / 3))
    # A spec written by hand equals the defaulted one a template in the store holds.
    assert TaskShape.of(0, 0, [ONE_GPU]) == TaskShape.of(
        0,
        0,
        [
            {
                "devices": {
                    "requests": [
                        {
                            "name": "gpu",
                            "exactly": {
                                "deviceClassName": "gpu",
                                "count": 1,
                                "allocationMode": "ExactCount",
                            },
                        }
                    ]
                }
            }
        ],
    )


@pytest.mark.parametrize(
    ("counts", "coverage", "message"),
    [
        ({}, 1.0, "at least one shape"),
        ({TaskShape(): -1.0}, 1.0, "negative"),
        ({TaskShape(): 1.0}, 0.0, "coverage 0.0"),
        ({"gpu": 1.0}, 1.0, "is not a TaskShape"),
    ],
)
def test_bad_workloads_are_refused(counts: Any, coverage: float, message: str) -> None:
    with pytest.raises(WorkloadError, match=message):
        Workload(counts, coverage)


# --- devices allocated whole, partitions, device rankings -----------------------------------------


def _exclusive(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same cluster with GPUs that are allocated whole (no allowMultipleAllocations)."""
    for obj in objects:
        if obj["kind"] == "ResourceSlice":
            for device in obj["spec"]["devices"]:
                device.pop("allowMultipleAllocations")
    return objects


def test_fgd_on_gpus_allocated_whole() -> None:
    """GPUs without shares: a has two, one taken by a filler; b two free. Every task of the
    workload wants two GPUs. The pod wants one: on a it takes the GPU no task can use
    (fragmentation 1 -> 0: a decrease of 1, score int(100 * sigmoid(1)) = 73); on b it leaves
    one GPU that no task can use (0 -> 1, score int(100 * sigmoid(-1)) = 26). FGD takes a; the
    default profile the less loaded b."""
    objects = _exclusive(
        _cluster(
            gpu_node("a", 2),
            gpu_node("b", 2),
            gpu_pod("fill", ONE_GPU, node="a"),
            gpu_pod("pod", ONE_GPU),
        )
    )
    sim = run(objects, "fgd", shapes((claim_spec(count=2), 1.0)))
    assert placement(sim, "pod") == ("a", ["gpu-1"])
    assert scores(sim, "pod") == {"a": {"FGDScore": 73}, "b": {"FGDScore": 26}}
    assert placement(run(objects), "pod")[0] == "b"


def test_policies_over_partitionable_devices_keep_upstream_rules() -> None:
    from kubedra.planning.validate import revalidate

    # One GPU in two halves (shared counters): its whole and its halves are devices.
    objects = _cluster(gpu_node("a", 0))
    pool = {"name": "a-parts", "generation": 1, "resourceSliceCount": 2}
    slice_ = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice"}
    counters = [{"name": "gpu-0", "counters": {"mem": {"value": "2"}}}]
    devices = [
        {
            "name": name,
            "attributes": {"index": {"int": 0}, "model": {"string": "A100"}},
            "consumesCounters": [{"counterSet": "gpu-0", "counters": {"mem": {"value": amount}}}],
        }
        for name, amount in (("whole", "2"), ("half-0", "1"), ("half-1", "1"))
    ]
    spec = {"driver": "gpu.example.com", "nodeName": "a", "pool": pool}
    objects.append(
        slice_ | {"metadata": {"name": "a-counters"}, "spec": spec | {"sharedCounters": counters}}
    )
    objects.append(slice_ | {"metadata": {"name": "a-parts"}, "spec": spec | {"devices": devices}})
    objects += gpu_pod("p0", ONE_GPU) + gpu_pod("p1", ONE_GPU) + gpu_pod("p2", ONE_GPU)
    for policy in ("fgd", "best-fit", "gpu-packing", "random"):
        sim = run(objects, policy, shapes((ONE_GPU, 1.0)))
        placed = {p: placement(sim, p) for p in ("p0", "p1", "p2")}
        assert sorted(d for _, ds in placed.values() for d in ds) in (
            ["half-0", "half-1"],
            ["whole"],
        ), (policy, placed)
        assert revalidate(sim.objects()) == [], policy


def test_a_device_ranking_of_ones_own_sees_free_and_left_shares() -> None:
    """gpu-0 free, gpu-1 0.4 left, gpu-2 0.8 left: ranking by the share left once taken
    tries gpu-1 (0.1 left) first, by the share free now gpu-1 too (0.4), by minus it gpu-0."""
    objects = _cluster(
        gpu_node("a", 3),
        gpu_pod("fill-1", claim_spec(milli=600, selector=on_index(1))),
        gpu_pod("fill-2", claim_spec(milli=200, selector=on_index(2))),
        gpu_pod("pod", SHARE_300),
    )
    for key, device in (
        (lambda c: c.left, "gpu-1"),
        (lambda c: c.free, "gpu-1"),
        (lambda c: -c.free, "gpu-0"),
        (lambda c: -c.left, "gpu-0"),
    ):
        policy = Policy("ranked", "test", devices=lambda context, key=key: key)
        assert placement(run(objects, policy), "pod") == ("a", [device])


def test_a_hostile_policy_name_is_reported_not_raised(tmp_path: Path) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(_user_cluster()))
    for flag in ("--policy", "--device-policy", "--node-score"):
        result = invoke("simulate", str(path), flag, "[/x]")
        assert result.exit_code == 1, (flag, result.output)
        assert "'[/x]'" in result.output, flag


def test_a_malformed_task_shape_names_the_shape() -> None:
    objects = _cluster(gpu_node("a", 1), gpu_pod("pod", SHARE_300))
    bad = claim_spec(milli=300)
    bad["devices"]["requests"][0]["exactly"]["capacity"]["requests"]["milli"] = "lots"
    with pytest.raises(WorkloadError, match=r"task shape 0 .*lots"):
        run(objects, "fgd", shapes((bad, 1.0)))


def test_workload_from_manifests_finds_templates_among_them() -> None:
    objects = [
        *gpu_pod("a", SHARE_300, cpu="2"),
        *gpu_pod("b", ONE_GPU),
        *gpu_pod("c", None, cpu="4"),
        *gpu_pod("d", ONE_GPU),
    ]
    # d's template is named like d: drop it and point d at b's.
    objects = [o for o in objects if o["metadata"]["name"] != "d" or o["kind"] == "Pod"]
    objects[-1]["spec"]["resourceClaims"][0]["resourceClaimTemplateName"] = "b"
    workload = Workload.from_objects(objects, coverage=1.0)
    assert workload == Workload.of(
        [
            TaskShape.of(2000, 0, [SHARE_300]),
            TaskShape.of(1000, 0, [ONE_GPU]),
            TaskShape.of(4000),
            TaskShape.of(1000, 0, [ONE_GPU]),
        ]
    )


def test_shapes_from_pods_carry_cpu_and_claims_not_memory() -> None:
    """The paper's typical pods are (cpu, GPU share, GPU count, model): memory is neither part
    of a shape nor of its fit test. Pods a (1Gi) and b (8Gi) differ only in memory: one shape,
    2 of 3 pods (2/3); the cpu-only c is the other third. With memory in the shapes they were
    three shapes of 1/3 each, and a node short of memory counted every free GPU as a
    fragment for b."""
    objects = [
        *gpu_pod("a", ONE_GPU, cpu="2"),
        *gpu_pod("b", ONE_GPU, cpu="2"),
        *gpu_pod("c", None, cpu="4"),
    ]
    pods = [o for o in objects if o["kind"] == "Pod"]
    for obj, memory in zip(pods, ["1Gi", "8Gi", "2Gi"], strict=True):
        obj["spec"]["containers"][0]["resources"]["requests"]["memory"] = memory
    workload = Workload.from_objects(objects, coverage=1.0)
    assert workload.shapes == (
        (TaskShape.of(2000, 0, [ONE_GPU]), pytest.approx(2 / 3)),
        (TaskShape.of(4000), pytest.approx(1 / 3)),
    )


def test_score_all_scores_each_node_view_in_order_and_random_draws_as_score_would() -> None:
    import random
    from types import SimpleNamespace

    from kubedra.scheduler.policies import NodeScorer, NodeView, NodeViews
    from kubedra.scheduler.policies.builtin import RandomScore

    nodes: Any = [SimpleNamespace(name=f"n{i}") for i in range(4)]
    allocations: list[Any] = [None, [], None, []]
    views = NodeViews(None, None, nodes, allocations)  # type: ignore[arg-type]
    assert len(views) == 4
    assert [v.name for v in views] == ["n0", "n1", "n2", "n3"]
    assert isinstance(views[2], NodeView) and views[2].name == "n2"
    assert [v.name for v in views[1:3]] == ["n1", "n2"]

    class ByName(NodeScorer):
        cacheable = False

        def score(self, pod: Any, node: Any) -> float:
            return int(node.name[1:]) * 10

    assert ByName().score_all(None, views) == [0.0, 10.0, 20.0, 30.0]  # type: ignore[arg-type]
    drawn = RandomScore(SimpleNamespace(rng=random.Random(3)))  # type: ignore[arg-type]
    scored = RandomScore(SimpleNamespace(rng=random.Random(3)))  # type: ignore[arg-type]
    assert drawn.score_all(None, views) == [scored.score(None, v) for v in views]  # type: ignore[arg-type]
