"""The scripts that read the shared corpus say what they need when it is absent: a message and
a non-zero exit (or, for the fuzz harness, what it does instead), never a traceback or a
silent success."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _script(path: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(REPO / path), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=REPO,
    )


@pytest.mark.parametrize(
    ("script", "args"),
    [
        ("benchmarks/bench_simulate.py", ()),
        ("benchmarks/bench_simulate.py", ("--workload", "scale-5000x8")),
        ("benchmarks/bench_schedule.py", ()),
        ("benchmarks/bench_plan.py", ()),
    ],
)
def test_benchmarks_name_the_corpus_they_need(
    script: str, args: tuple[str, ...], tmp_path: Path
) -> None:
    done = _script(script, *args, "--dir", str(tmp_path))
    assert done.returncode == 2, (done.stdout, done.stderr)
    name = Path(script).name
    assert done.stderr.startswith(f"{name}: needs the shared benchmark workloads")
    assert str(tmp_path / "workloads") in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


def test_the_replay_benchmark_names_the_csvs_it_needs(tmp_path: Path) -> None:
    done = _script("benchmarks/bench_replay.py", "--alibaba", str(tmp_path))
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.strip() == (
        "bench_replay.py: needs the Alibaba GPU trace's openb_node_list_gpu_node.csv and "
        f"openb_pod_list_default.csv in {tmp_path} (../shared beside the checkout, or "
        "--alibaba DIR)"
    )


def test_an_unknown_workload_lists_the_known_ones(tmp_path: Path) -> None:
    (tmp_path / "workloads").mkdir()
    (tmp_path / "workloads" / "fill-500x10.json").write_text("{}")
    done = _script("benchmarks/bench_simulate.py", "--workload", "nope", "--dir", str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"bench_simulate.py: no workload nope in {tmp_path}; known: fill-500x10"
    )


def test_the_allocator_fuzz_says_it_fuzzes_only_the_built_in_cases(tmp_path: Path) -> None:
    done = _script("tests/allocator/allocator_fuzz.py", "--cases", "4", "--dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == (
        f"allocator_fuzz.py: no shared conformance cases at {tmp_path} (../shared beside the "
        "checkout, or --dir DIR): fuzzing only the built-in search-heavy cases"
    )
    assert done.stdout.startswith("4 cases:")
