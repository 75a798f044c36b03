"""Hostile and broken input: bounded reads, linear time, strict JSON, never a Python error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from cli_subprocess import kubedra_env
from kubedra.api.checking import check_loaded
from kubedra.api.io import dump_yaml, load_paths, load_text, reading

CLASS = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: {}\n"
POD = "apiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: d}}\nspec:\n  {}\n"


def test_character_device_is_refused_without_reading(tmp_path: Path) -> None:
    [error] = load_paths(["/dev/zero"]).errors
    assert error.message == "not a regular file (a character device): refusing to read it"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    result: list[str] = []
    reader = threading.Thread(
        target=lambda: result.extend(str(e) for e in load_paths([fifo]).errors)
    )
    reader.start()
    reader.join(timeout=5)
    assert not reader.is_alive(), "reading a FIFO blocked"
    assert result == [f"{fifo}: not a regular file (a FIFO): refusing to read it"]


def test_file_over_the_limit_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reading, "MAX_FILE_BYTES", 1000)
    big = tmp_path / "big.yaml"
    big.write_text(CLASS.format("a") + "#" * 2000 + "\n")
    [error] = load_paths([big]).errors
    assert error.message == "larger than 0 MiB (1000 bytes): not read"
    assert reading.MAX_FILE_BYTES == 1000 and reading.MAX_OBJECT_BYTES == 3 * 1024 * 1024


def test_standard_input_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reading, "MAX_FILE_BYTES", 100)

    class Endless:
        """Like /dev/zero on standard input: would never end if read whole."""

        class buffer:
            @staticmethod
            def read(size: int = -1) -> bytes:
                assert size > 0, "standard input read without a bound"
                return b"0" * size

    monkeypatch.setattr(sys, "stdin", Endless)
    [error] = load_paths(["-"]).errors
    assert error.message.startswith("larger than 0 MiB (100 bytes)")


def test_object_over_the_request_limit_is_refused_but_a_large_stream_is_not() -> None:
    small = CLASS.format("small")
    huge = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: d}\nspec:\n  x: " + (
        "a" * (3 * 1024 * 1024 + 10)
    )
    many = "---\n".join(
        CLASS.format(f"c{i}") + f"  labels: {{a: {'b' * 60}}}\n" for i in range(12000)
    )
    assert len(many) > 1024 * 1024 and load_text(many).errors == []
    result = load_text(small + "---\n" + huge)
    assert [obj.wire["metadata"]["name"] for obj in result.objects] == ["small"]
    [error] = result.errors
    assert error.document == 1
    assert "more than the apiserver accepts in one request (3145728 bytes, 3 MiB)" in error.message


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("!!timestamp x", 'YAML error at line 4, column 9: cannot decode "x" as a timestamp'),
        ('!!float ""', 'YAML error at line 4, column 9: cannot decode "" as a float'),
        ("!!int +", 'YAML error at line 4, column 9: cannot decode "+" as an integer'),
        ("!!bool x", 'YAML error at line 4, column 9: cannot decode "x" as a boolean'),
        ("!!int 1:1:1", 'YAML error at line 4, column 9: cannot decode "1:1:1" as an integer'),
        ("!!set [a]", 'YAML error at line 4, column 9: cannot decode "" as a set'),
        ("!!omap {a: b}", 'YAML error at line 4, column 9: cannot decode "" as ordered pairs'),
        ("!!int " + "1" * 5000, "as an integer"),
    ],
)
def test_invalid_explicit_tags_are_one_yaml_error(value: str, message: str) -> None:
    [error] = load_text(CLASS.format(value)).errors
    assert message in error.message


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("!!timestamp 2020-01-02", "2020-01-02T00:00:00Z"),
        ("!!timestamp 2020-01-02 03:04:05.50 -5", "2020-01-02T03:04:05.5-05:00"),
        ("!!binary aGVsbG8=", "hello"),
        ("!!set {a, b}", {"a": None, "b": None}),
        ("!!omap [a: 1, b: 2]", [{"a": 1}, {"b": 2}]),
    ],
)
def test_explicit_tags_become_json_data_as_in_kubernetes(value: str, expected: object) -> None:
    [obj] = load_text(POD.format(f"x: {value}")).objects
    assert obj.wire["spec"]["x"] == expected
    assert load_text(dump_yaml([obj.wire])).errors == []


@pytest.mark.parametrize("name", ["!!timestamp 2020-01-01", "!!set {a, b}", "!!binary aGVsbG8="])
def test_names_yaml_reads_as_dates_sets_or_binary_never_raise(name: str) -> None:
    report = check_loaded(load_text(CLASS.format(name)))
    lines = [str(error) for error in report.load_errors] + [
        str(error) for verdict in report.verdicts for error in verdict.errors
    ]
    assert report.verdicts or report.load_errors
    assert not any("internal error" in line for line in lines)


def test_binary_and_set_keys_never_raise() -> None:
    text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n  ? !!binary aGVsbG8=\n  : 1\n"
    check_loaded(load_text(text))
    text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n  ? !!set {a}\n  : 1\n"
    [error] = load_text(text).errors
    assert "unhashable key" in error.message


def test_set_in_an_unmodelled_field_dumps() -> None:
    [obj] = load_text(POD.format("x: !!set {a, b}\n  y: [!!set {c}]")).objects
    assert '  "y":\n  - {}\n' in dump_yaml([obj.wire])  # nulls are omitted, as Kubernetes does


def test_huge_integer_in_json_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text('{"apiVersion": "v1", "kind": "Pod", "spec": {"x": ' + "1" * 5000 + "}}")
    [error] = load_paths([path]).errors
    assert error.message == "JSON error: number with 5000 digits is out of range"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"kind": "Pod", "kind": "Node"}', 'JSON error: duplicate field "kind"'),
        ('{"a": NaN}', "JSON error: invalid value NaN (not JSON)"),
        ('{"a": 1e999}', "JSON error: number 1e999 is out of range"),
    ],
)
def test_json_is_decoded_strictly(text: str, message: str) -> None:
    [error] = load_text(text, json_input=True).errors
    assert error.message == message


def test_duplicate_key_in_json_is_refused_like_in_yaml() -> None:
    text = json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}})
    text = text.replace('"name": "a"', '"name": "a", "name": "b"')
    [error] = load_text(text, json_input=True).errors
    assert error.message == 'JSON error: duplicate field "name"'


def _seconds(text: str) -> float:
    start = time.perf_counter()
    check_loaded(load_text(text))
    return time.perf_counter() - start


def test_base_60_numbers_are_strings_and_linear() -> None:
    """go-yaml v2 has no base-60 numbers; PyYAML's took 66 s on 600 KB."""
    [obj] = load_text(POD.format("x: 1:20")).objects
    assert obj.wire["spec"]["x"] == "1:20"
    assert _seconds(POD.format("x: " + ":".join(["1"] * 300_000))) < 2


def test_alias_guard_is_linear_in_the_input() -> None:
    """A deep anchored list repeated by aliases: the guard copied the path from the root at every
    node it visited (17 s here before); now each distinct node is measured once."""
    depth = 900
    text = (
        f"a: &x {'[' * depth}{']' * depth}\npad: {'p' * 400_000}\nb: [{', '.join(['*x'] * 4000)}]\n"
    )
    assert _seconds(text) < 3
    [error] = load_text(text).errors
    assert error.message == "apiVersion and kind not set"  # within the expansion budget


DEEP_DUMP = """
import json, sys
from kubedra.api.io import dump_json, dump_yaml, load_text
depth = 990
text = json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}})
text = text[:-1] + ', "spec": {"x": ' + "[" * depth + "1" + "]" * depth + "}}"
[obj] = load_text(text, json_input=True).objects
assert load_text(dump_yaml([obj.wire])).objects[0].wire == obj.wire
assert json.loads(dump_json([obj.wire])) == obj.wire
assert "kubedra.cel" not in sys.modules  # nothing raised the recursion limit for us
"""


def test_the_deepest_object_that_loads_also_dumps() -> None:
    """Loading accepts about a thousand levels; writing recursed deeper and raised (unless
    something else, such as the CEL environment, had raised the recursion limit)."""
    env = kubedra_env()
    out = subprocess.run(
        [sys.executable, "-c", DEEP_DUMP], capture_output=True, text=True, env=env, check=False
    )
    assert out.returncode == 0, out.stderr[-2000:]
