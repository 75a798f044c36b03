"""Bad Alibaba CSVs: one error naming the file, the line (header = line 1) and the column,
never a traceback, and nothing written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from traces_fixtures import NODE_HEADER, kubedra, write_csvs

from kubedra.traces import AlibabaOptions, TraceInputError, import_alibaba

NODE = "node-a,32000,131072,2,T4"
TASK = "task-a,4000,8192,1,1000,,LS,Running,0,3600,0"


def _error(tmp_path: Path, nodes: list[str], tasks: list[str], **options) -> str:
    node_file, task_file = write_csvs(tmp_path, nodes, tasks)
    with pytest.raises(TraceInputError) as caught:
        import_alibaba(node_file, task_file, AlibabaOptions(**options))
    return str(caught.value).replace(str(tmp_path) + "/", "")


@pytest.mark.parametrize(
    ("tasks", "message"),
    [
        (
            ["task-a,4000,8192,1,1000,,LS,Running,zero,3600,0"],
            "pods.csv: line 2 (task-a), column creation_time: not a whole number: 'zero'",
        ),
        (
            [TASK, "task-b,4000,8192,1,1000,,LS,Running,-5,3600,0"],
            "pods.csv: line 3 (task-b), column creation_time: must not be negative: -5",
        ),
        (
            ["task-a,4000,8192,1,1000,,LS,Running,100,50,100"],
            "pods.csv: line 2 (task-a), column deletion_time: 50 is before scheduled_time 100",
        ),
        (
            ["task-a,4000,8192,1,1000,,LS,Pending,100,50,"],
            "pods.csv: line 2 (task-a), column deletion_time: 50 is before creation_time 100",
        ),
        (
            ["task-a,4000,8192,1,1000,,LS,Running,100,500,90"],
            "pods.csv: line 2 (task-a), column scheduled_time: 90 is before creation_time 100",
        ),
        (
            ["task-a,4000,8192,1,1000,A100,LS,Running,0,3600,0"],
            "pods.csv: line 2 (task-a), column gpu_spec: unknown GPU model 'A100' (known: P100, "
            "T4, V100M16, V100M32, A10, G1, G2, G3)",
        ),
        (
            ["task-a,4000,8192,1,0,,LS,Running,0,3600,0"],
            "pods.csv: line 2 (task-a), column gpu_milli: 0: a share of one GPU is 1 to 1000",
        ),
        (
            ["task-a,4000,8192,2,500,,LS,Running,0,3600,0"],
            "pods.csv: line 2 (task-a), column gpu_milli: 500 with num_gpu 2: only a single GPU "
            "is shared (expected 1000)",
        ),
        (
            ["task-a,4000,8192,0,300,,LS,Running,0,3600,0"],
            "pods.csv: line 2 (task-a), column gpu_milli: 300 without GPUs (num_gpu is 0)",
        ),
        (
            ["task-a,4000,,1,1000,,LS,Running,0,3600,0"],
            "pods.csv: line 2 (task-a), column memory_mib: required (empty)",
        ),
        (
            ["Task_A,4000,8192,1,1000,,LS,Running,0,3600,0"],
            "pods.csv: line 2 (Task_A), column name: 'Task_A' cannot be an object name: a "
            "lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
            "'-' or '.', and must start and end with an alphanumeric character (e.g. "
            "'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ),
        (
            [TASK, TASK],
            "pods.csv: line 3, column name: 'task-a' repeats line 2",
        ),
        (
            ["task-a,4000,8192,1,1000,,LS,Running,0,3600"],
            "pods.csv: line 2: 10 fields where the header has 11",
        ),
        (
            ["task-a,4000,8192,1,1000,,Latency Sensitive,Running,0,3600,0"],
            "pods.csv: line 2 (task-a), column qos: 'Latency Sensitive' cannot be a label value: "
            "a valid label must be an empty string or consist of alphanumeric characters, '-', "
            "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  "
            "or 'my_value',  or '12345', regex used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ),
        (
            ["task-a,4000,8192,1,1000,,LS,Running,99999999999999999999,3600,0"],
            "pods.csv: line 2 (task-a), column creation_time: not a whole number: "
            "'99999999999999999999'",
        ),
        (
            ["task-a,4000,8192,1,1000,,LS,Running,9223372037,,"],
            "pods.csv: line 2 (task-a), column creation_time: 9223372037 seconds is longer "
            "than a trace may last (at most 2562047h47m16.854775807s, Go's time.Duration)",
        ),
        (
            ["task-a,4000,8192,1,1000,,LS,Running,0,999999999999999999,0"],
            "pods.csv: line 2 (task-a), column deletion_time: 999999999999999999 seconds is "
            "longer than a trace may last (at most 2562047h47m16.854775807s, Go's time.Duration)",
        ),
    ],
)
def test_bad_task_rows(tmp_path: Path, tasks: list[str], message: str) -> None:
    assert _error(tmp_path, [NODE], tasks) == message


def test_unknown_qos_only_matters_for_priorities(tmp_path: Path) -> None:
    task = "task-a,4000,8192,1,1000,,Premium,Running,0,3600,0"
    import_alibaba(*write_csvs(tmp_path / "plain", [NODE], [task]))
    assert _error(tmp_path, [NODE], [task], qos_priority=True) == (
        "pods.csv: line 2 (task-a), column qos: unknown QoS 'Premium' for priorities "
        "(known: Guaranteed, LS, Burstable, BE)"
    )


@pytest.mark.parametrize(
    ("nodes", "message"),
    [
        (
            ["node-a,32000,131072,2,H100"],
            "nodes.csv: line 2 (node-a), column model: unknown GPU model 'H100' (known: P100, T4, "
            "V100M16, V100M32, A10, G1, G2, G3)",
        ),
        (
            ["node-a,32000,131072,two,T4"],
            "nodes.csv: line 2 (node-a), column gpu: not a whole number: 'two'",
        ),
        (
            ["node-a,32000,-1,2,T4"],
            "nodes.csv: line 2 (node-a), column memory_mib: must not be negative: -1",
        ),
        (
            ["node-a,32000,131072,129,T4"],
            "nodes.csv: line 2 (node-a), column gpu: 129 GPUs: one ResourceSlice holds at most "
            "128 devices",
        ),
        ([NODE, NODE], "nodes.csv: line 3, column sn: 'node-a' repeats line 2"),
        (
            ["node-\u2028a,1,1,1,T4"],
            "nodes.csv: line 2 ('node-\\u2028a'), column sn: 'node-\\u2028a' cannot be an "
            "object name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
            "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
            "'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ),
    ],
)
def test_bad_node_rows(tmp_path: Path, nodes: list[str], message: str) -> None:
    assert _error(tmp_path, nodes, [TASK]) == message


def test_a_node_without_gpus_needs_no_model(tmp_path: Path) -> None:
    trace = import_alibaba(*write_csvs(tmp_path, ["cpu-node,8000,16384,0,"], [TASK]))
    assert [obj["kind"] for obj in trace.cluster] == [
        "DeviceClass",
        "Node",
        "ResourceClaimTemplate",
    ]


def test_missing_columns_are_named(tmp_path: Path) -> None:
    node_file, task_file = write_csvs(tmp_path, [NODE], [TASK])
    node_file.write_text("sn,cpu_milli,gpu\nnode-a,1,1\n")
    with pytest.raises(TraceInputError) as caught:
        import_alibaba(node_file, task_file)
    assert str(caught.value) == (
        f"{node_file}: line 1: missing column(s) memory_mib, model (the header has sn, "
        "cpu_milli, gpu)"
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty file (expected a header line)"),
        (NODE_HEADER.encode() + b"\nnode-\xff,1,1,1,T4\n", "line 2: not UTF-8 text (byte 39)"),
        (NODE_HEADER.encode() + b'\n"node-a,1,1,1,T4\n', "line 2: 1 fields where the header has 5"),
        (
            NODE_HEADER.encode() + b"\nnode-a," + b"9" * 5000 + b",1,1,T4\n",
            "line 2, column cpu_milli: longer than 4096 characters",
        ),
    ],
)
def test_unreadable_files(tmp_path: Path, content: bytes, message: str) -> None:
    node_file, task_file = write_csvs(tmp_path, [NODE], [TASK])
    node_file.write_bytes(content)
    with pytest.raises(TraceInputError) as caught:
        import_alibaba(node_file, task_file)
    assert str(caught.value) == f"{node_file}: {message}"


def test_a_directory_is_not_a_csv(tmp_path: Path) -> None:
    _, task_file = write_csvs(tmp_path, [NODE], [TASK])
    with pytest.raises(TraceInputError, match=r": is a directory, not a CSV file$"):
        import_alibaba(tmp_path, task_file)


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    node_file, _ = write_csvs(tmp_path, [NODE], [TASK])
    fifo = tmp_path / "tasks.fifo"
    os.mkfifo(fifo)
    with pytest.raises(TraceInputError) as caught:
        import_alibaba(node_file, fifo)
    assert str(caught.value) == f"{fifo}: not a regular file: refusing to read it"


def test_the_command_reports_one_line_and_writes_nothing(tmp_path: Path) -> None:
    node_file, task_file = write_csvs(
        tmp_path, [NODE], ["task-a,4000,8192,1,1000,,LS,Running,x,3600,0"]
    )
    out = tmp_path / "out"
    result = kubedra(
        "trace",
        "import",
        "alibaba-gpu-v2023",
        "--nodes",
        str(node_file),
        "--pods",
        str(task_file),
        "-o",
        str(out),
    )
    assert result.code == 1
    assert result.stderr == (
        f"error: {task_file}: line 2 (task-a), column creation_time: not a whole number: 'x'\n"
    )
    assert result.stdout == ""
    assert not out.exists()


def test_a_file_beyond_the_limit_is_not_read(tmp_path: Path, monkeypatch) -> None:
    from kubedra.traces import csv_rows

    monkeypatch.setattr(csv_rows, "MAX_FILE_BYTES", 59)  # the node file's size
    node_file, task_file = write_csvs(tmp_path, [NODE], [TASK])
    with pytest.raises(TraceInputError) as caught:
        import_alibaba(node_file, task_file)
    assert str(caught.value) == f"{task_file}: larger than 59 bytes: not read"
