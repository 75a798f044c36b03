"""Helpers for the trace tests: write small CSVs, read trace directories back."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer
from typer.testing import CliRunner

from kubedra.api.io import dump_yaml
from kubedra.api.io.reading import RawDocument, parse_yaml

NODE_HEADER = "sn,cpu_milli,memory_mib,gpu,model"
TASK_HEADER = (
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
    "creation_time,deletion_time,scheduled_time"
)


def write_csvs(directory: Path, nodes: list[str], tasks: list[str]) -> tuple[Path, Path]:
    """nodes.csv and pods.csv in ``directory`` with the Alibaba headers and these rows."""
    directory.mkdir(parents=True, exist_ok=True)
    node_file = directory / "nodes.csv"
    task_file = directory / "pods.csv"
    node_file.write_text("\n".join([NODE_HEADER, *nodes]) + "\n")
    task_file.write_text("\n".join([TASK_HEADER, *tasks]) + "\n")
    return node_file, task_file


def read_yaml(path: Path) -> list[Any]:
    """Every document of ``path`` as kubedra's reader reads it."""
    documents = list(parse_yaml(path.read_text(), str(path)))
    assert all(isinstance(document, RawDocument) for document in documents), documents
    return [document.content for document in documents if isinstance(document, RawDocument)]


def read_entries(directory: Path) -> list[dict[str, Any]]:
    [entries] = read_yaml(directory / "trace.yaml")
    assert isinstance(entries, list)
    return entries


def pods_file(entries: list[dict[str, Any]], target: Path) -> Path:
    """The objects of ``entries`` as one manifest file (for validate and simulate)."""
    target.write_text(dump_yaml([obj for entry in entries for obj in entry["objects"]]))
    return target


def by_kind(objects: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {obj["metadata"]["name"]: obj for obj in objects if obj["kind"] == kind}


@dataclass(frozen=True)
class Outcome:
    code: int
    stdout: str
    stderr: str


def kubedra(*args: str) -> Outcome:
    """``kubedra ARGS`` in-process with the trace command and simulate registered."""
    from kubedra.cli import simulate_cmd, trace_cmd

    app = typer.Typer()
    trace_cmd.register(app)
    simulate_cmd.register(app)
    result = CliRunner().invoke(app, list(args))
    return Outcome(result.exit_code, result.stdout, result.stderr)
