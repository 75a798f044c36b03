"""Hostile names: entries naming files (``file:``) are a TraceError naming the entry and the
field, never another exception, and a name with control characters is shown escaped (it
cannot forge lines or colours in the message); so are names in the text report's problems."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from replay_builders import gpu_nodes, replay

from kubedra.replay import TraceError, load_trace, report


def _trace(tmp_path: Path, name: str) -> Path:
    trace = tmp_path / "trace.yaml"
    # JSON strings are YAML: any character can be written escaped.
    trace.write_text(f"- at: 0s\n  file: {json.dumps(name)}\n")
    return trace


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("a" * 5000, f"entry 1.file: {'a' * 5000}: cannot read: File name too long"),
        ("a/" * 3000 + "x", "cannot read: File name too long"),
        ("loop", "entry 1.file: loop: cannot read: "),  # the reason differs across Pythons
        ("a\x00b", "entry 1.file: 'a\\x00b': cannot read: embedded null byte"),
        ("no\x1b[31mpe\nforged line", "entry 1.file: 'no\\x1b[31mpe\\nforged line': no such file"),
        ("../\x1b[2J", "entry 1.file: '../\\x1b[2J': outside the trace's directory"),
    ],
    ids=["long-name", "long-path", "symlink-loop", "nul", "control-characters", "escape"],
)
def test_hostile_file_names_are_trace_errors(tmp_path: Path, name: str, message: str) -> None:
    (tmp_path / "loop").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop")
    with pytest.raises(TraceError) as raised:
        load_trace(_trace(tmp_path, name))
    text = str(raised.value)
    assert text.startswith(f"{tmp_path / 'trace.yaml'}: entry 1.file: ")
    assert message in text
    assert "\n" not in text and "\x1b" not in text


def test_hostile_names_in_problems_cannot_forge_report_lines() -> None:
    state = replay(gpu_nodes("node-a"), [{"at": "0s", "cordon": "no\x1b[31mpe\nforged line"}])
    [problem] = state.problems
    assert "\n" in problem.message  # kept as it was in the JSON document
    lines = report.text(state)
    assert not any("\x1b" in line or "\n" in line for line in lines)
    at = lines.index("Problems (1):")
    assert lines[at + 1].startswith("  t=0s entry 1: cordon no\\x1b[31mpe\\nforged line: ")
