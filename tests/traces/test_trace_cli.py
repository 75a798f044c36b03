"""``kubedra trace import`` / ``generate`` as commands: their report, exit statuses, and that
they write DIR/cluster.yaml and DIR/trace.yaml only, never over files without --force."""

from __future__ import annotations

from pathlib import Path

from traces_fixtures import kubedra, write_csvs

SMALL = ["--pods", "20", "--nodes", "2", "--gpus-per-node", "2"]


def test_generate_writes_two_files_and_says_what(tmp_path: Path) -> None:
    out = tmp_path / "a" / "b"
    result = kubedra("trace", "generate", "-o", str(out), *SMALL, "--mix", "gpu:1=1,cpu=1")
    assert result.code == 0, result.stderr
    assert sorted(path.name for path in out.iterdir()) == ["cluster.yaml", "trace.yaml"]
    lines = result.stdout.splitlines()
    assert lines[0] == f"wrote {out}/cluster.yaml: 2 nodes with 4 GPUs, 1 claim templates"
    assert lines[1].startswith(f"wrote {out}/trace.yaml: 20 pods arriving until ")
    assert lines[2] == f"replay: kubedra replay {out}/cluster.yaml --trace {out}/trace.yaml"


def test_existing_files_need_force(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "trace.yaml").write_text("mine\n")
    (out / "notes.txt").write_text("keep\n")
    result = kubedra("trace", "generate", "-o", str(out), *SMALL)
    assert result.code == 1
    assert result.stderr == f"error: {out} already holds trace.yaml: --force overwrites it\n"
    assert sorted(path.name for path in out.iterdir()) == ["notes.txt", "trace.yaml"]
    assert (out / "trace.yaml").read_text() == "mine\n"
    assert kubedra("trace", "generate", "-o", str(out), *SMALL, "--force").code == 0
    assert (out / "trace.yaml").read_text().startswith("# kubedra trace generate: 20 pods")
    assert (out / "notes.txt").read_text() == "keep\n"
    again = kubedra("trace", "generate", "-o", str(out), *SMALL)
    assert again.stderr == (
        f"error: {out} already holds cluster.yaml and trace.yaml: --force overwrites them\n"
    )


def test_force_replaces_a_link_and_never_writes_through_it(tmp_path: Path) -> None:
    outside = tmp_path / "outside.yaml"
    outside.write_text("not yours\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "cluster.yaml").symlink_to(outside)
    assert kubedra("trace", "generate", "-o", str(out), *SMALL, "--force").code == 0
    assert outside.read_text() == "not yours\n"
    assert not (out / "cluster.yaml").is_symlink()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["out", "outside.yaml"]


def test_output_that_cannot_be_a_trace_directory(tmp_path: Path) -> None:
    file = tmp_path / "file"
    file.write_text("")
    result = kubedra("trace", "generate", "-o", str(file), *SMALL)
    assert (result.code, result.stderr) == (1, f"error: {file}: exists and is not a directory\n")
    (tmp_path / "out" / "cluster.yaml").mkdir(parents=True)
    result = kubedra("trace", "generate", "-o", str(tmp_path / "out"), *SMALL, "--force")
    assert result.code == 1
    assert result.stderr == (
        f"error: {tmp_path}/out/cluster.yaml: is a directory; remove it or choose another -o\n"
    )


def test_bad_flags_are_one_line_errors(tmp_path: Path) -> None:
    out = tmp_path / "out"
    for flags, message in [
        (["--mix", "gpu:1"], "--mix: 'gpu:1': expected SHAPE=WEIGHT (like gpu:1=45)"),
        (["--node-memory", "lots"], "--node-memory: not a quantity (like 8, 500m, 64Gi): 'lots'"),
        (["--cpu-per-gpu", "-1"], "--cpu-per-gpu: must be more than zero: '-1'"),
        (["--duration-median", "0s"], "--duration-median: must be more than zero: '0s'"),
        (
            ["--mean-interarrival", "1w"],
            "--mean-interarrival: not a duration (like 45, 90s, 5m, 2h, 1d): '1w'",
        ),
        (["--load", "0"], "--load: must be more than zero"),
        (["--node-cpu", "1e18"], "--node-cpu: more than 9223372036854775807m (int64): '1e18'"),
        (
            ["--node-memory", "1e30"],
            "--node-memory: more than 9223372036854775807 (int64): '1e30'",
        ),
        (
            ["--memory-per-gpu", "1e999"],
            "--memory-per-gpu: more than 9223372036854775807 (int64): '1e999'",
        ),
        (
            ["--gpus-per-node", "0"],
            "--load needs GPUs in the cluster and in the mix; give --mean-interarrival instead",
        ),
    ]:
        result = kubedra("trace", "generate", "-o", str(out), *flags)
        assert (result.code, result.stderr) == (1, f"error: {message}\n"), flags
    assert not out.exists()
    usage = kubedra("trace", "generate", "-o", str(out), "--gpus-per-node", "129")
    assert usage.code == 2 and "--gpus-per-node" in usage.stderr
    assert "Traceback" not in usage.stdout + usage.stderr


def test_import_reports_what_it_wrote(tmp_path: Path) -> None:
    node_file, task_file = write_csvs(
        tmp_path,
        ["node-a,32000,131072,2,T4", "node-b,8000,16384,1,G1"],
        [
            "whole,4000,8192,2,1000,,LS,Running,0,3600,0",
            "share,4000,8192,1,500,,BE,Running,5,30,6",
            "queued,4000,8192,0,0,,BE,Pending,7,9,",
        ],
    )
    out = tmp_path / "out"
    args = ["trace", "import", "alibaba-gpu-v2023", "--nodes", str(node_file)]
    result = kubedra(*args, "--pods", str(task_file), "-o", str(out), "--pending", "skip")
    assert result.code == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"wrote {out}/cluster.yaml: 2 nodes with 3 GPUs (G1 1, T4 2), 2 claim templates",
        f"wrote {out}/trace.yaml: 2 tasks: 1 whole-GPU, 1 GPU-sharing, 0 CPU-only "
        "(2.5 GPUs requested); 1 never-scheduled tasks left out",
        f"replay: kubedra replay {out}/cluster.yaml --trace {out}/trace.yaml",
    ]
    unknown = kubedra(
        "trace", "import", "alibaba-gpu-v2024", "--nodes", "n", "--pods", "p", "-o", "o"
    )
    assert unknown.code == 2 and "alibaba-gpu-v2024" in unknown.stderr
    assert "Traceback" not in unknown.stdout + unknown.stderr
