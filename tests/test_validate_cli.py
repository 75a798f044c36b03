"""``kubedra validate``: exit codes, one line per problem, JSON output, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli_subprocess import run_kubedra as _kubedra
from kubedra.api.checking import check_loaded
from kubedra.api.io import LoadedObject, LoadResult
from kubedra.cli.main import _register_commands, app

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"


GOOD_CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
"""


@pytest.fixture(scope="module")
def runner() -> CliRunner:
    _register_commands()
    return CliRunner()


def test_bundled_examples_are_valid() -> None:
    """No warnings but the one examples/gang-claims/ is about: its PodGroup's resourceClaims
    need DRAWorkloadResourceClaims, off by default in 1.37 (the example shows both ways)."""
    out = _kubedra("validate", str(EXAMPLES))
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.strip().endswith("0 invalid")
    assert out.stderr.splitlines() == [
        "Warning: podgroup default/trainers relies on DRAWorkloadResourceClaims, which is off in "
        "1.37 (beta): the apiserver drops its fields and the scheduler ignores them; enable it "
        "with --feature-gates=DRAWorkloadResourceClaims=true"
    ]


def test_valid_file_exits_zero(runner: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "class.yaml").write_text(GOOD_CLASS)
    result = runner.invoke(app, ["validate", str(tmp_path / "class.yaml")])
    assert result.exit_code == 0
    assert result.output == "1 object in 1 file: 1 valid, 0 invalid\n"


def test_each_unreadable_document_is_one_line_and_exits_one(
    runner: CliRunner, tmp_path: Path
) -> None:
    (tmp_path / "a.yaml").write_text(GOOD_CLASS + "---\n- not an object\n---\nkind: [\n")
    (tmp_path / "b.yaml").write_text("apiVersion: resource.k8s.io/v9\nkind: DeviceClass\n")
    result = runner.invoke(app, ["validate", str(tmp_path), str(tmp_path / "missing.yaml")])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines == [
        f"{tmp_path / 'a.yaml'}: document 1: document is an array, not an object",
        f"{tmp_path / 'a.yaml'}: document 2: YAML syntax error at line 9, column 1: "
        "did not find expected node content",
        f"{tmp_path / 'b.yaml'}: document 0: "
        'no matches for kind "DeviceClass" in version "resource.k8s.io/v9"',
        f"{tmp_path / 'missing.yaml'}: no such file or directory",
        "1 object in 2 files: 1 valid, 0 invalid, 4 unreadable documents",
    ]


def test_wrong_types_exit_one(runner: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(GOOD_CLASS + "spec:\n  selectors: yes\n")
    result = runner.invoke(app, ["validate", str(tmp_path / "c.yaml")])
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        f'{tmp_path / "c.yaml"}: document 0: DeviceClass.resource.k8s.io "gpu.example.com" '
        "cannot be decoded: spec.selectors: expected array, got a boolean true"
    )


def test_json_output(runner: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(GOOD_CLASS + "---\n3\n")
    result = runner.invoke(app, ["validate", "-o", "json", str(tmp_path)])
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert report["valid"] is False
    assert report["summary"] == {"files": 1, "objects": 1, "invalid": 0, "skipped": 0, "errors": 1}
    [obj] = report["objects"]
    assert (obj["kind"], obj["name"], obj["valid"], obj["document"]) == (
        "DeviceClass",
        "gpu.example.com",
        True,
        0,
    )
    assert report["errors"] == [
        {
            "source": str(tmp_path / "a.yaml"),
            "document": 1,
            "item": None,
            "message": "document is a number, not an object",
        }
    ]


def test_garbage_never_produces_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "x.yaml").write_bytes(b"\x00\x01{[}: &a *a\n\t- - ?")
    (tmp_path / "y.json").write_text("[" * 100_000)
    out = _kubedra("validate", str(tmp_path))
    assert out.returncode == 1
    assert "Traceback" not in out.stdout + out.stderr
    assert out.stdout.count("\n") == 3


def test_invalid_object_prints_the_apiserver_message_and_exits_one(
    runner: CliRunner, tmp_path: Path
) -> None:
    claim = """\
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata:
  name: bad
  namespace: ns
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.example.com
      count: -1
"""
    (tmp_path / "claim.yaml").write_text(GOOD_CLASS + "---\n" + claim)
    result = runner.invoke(app, ["validate", str(tmp_path)])
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        'ResourceClaim.resource.k8s.io "ns/bad" is invalid: '
        "spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero",
        f"  in {tmp_path / 'claim.yaml'}: document 1",
        "2 objects in 1 file: 1 valid, 1 invalid",
    ]
    report = json.loads(runner.invoke(app, ["validate", "-o", "json", str(tmp_path)]).output)
    [_, invalid] = report["objects"]
    assert invalid["errors"] == [
        {
            "type": "Invalid value",
            "reason": "FieldValueInvalid",
            "field": "spec.devices.requests[0].exactly.count",
            "value": -1,
            "detail": "must be greater than zero",
            "message": "spec.devices.requests[0].exactly.count: Invalid value: -1: "
            "must be greater than zero",
        }
    ]


def test_standard_input_is_read_for_a_dash(runner: CliRunner) -> None:
    result = runner.invoke(app, ["validate", "-"], input=GOOD_CLASS + "---\n- 1\n")
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        "<stdin>: document 1: document is an array, not an object",
        "1 object in 1 file: 1 valid, 0 invalid, 1 unreadable document",
    ]


def test_deep_block_nesting_is_one_line(runner: CliRunner, tmp_path: Path) -> None:
    block = "\n".join(" " * depth + "- " for depth in range(1_100))
    (tmp_path / "block.yaml").write_text(block)
    result = runner.invoke(app, ["validate", str(tmp_path)])
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f"{tmp_path / 'block.yaml'}: document 0: YAML syntax error at line 1000, column 1000: "
        "exceeded maximum nesting depth",
        "0 objects in 1 file: 0 valid, 0 invalid, 1 unreadable document",
    ]


def test_objects_too_deep_for_python_recursion_are_one_error() -> None:
    deep: list[object] = []
    for _ in range(100_000):
        deep = [deep]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"x": deep}}
    loaded = LoadResult(entries=[LoadedObject("pod.yaml", 0, None, "v1", "Pod", pod)], files=1)
    report = check_loaded(loaded)
    assert [str(error) for error in report.load_errors] == [
        'pod.yaml: document 0: Pod "p" is nested too deeply'
    ]


NAMELESS_CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: claim
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        colour: red
"""


def test_namespace_option_fills_and_checks_the_namespace(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "claim.yaml"
    path.write_text(NAMELESS_CLAIM.replace("        colour: red\n", ""))
    result = runner.invoke(app, ["validate", "-o", "json", "-n", "gpu-test", str(path)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["objects"][0]["namespace"] == "gpu-test"
    path.write_text(NAMELESS_CLAIM.replace("  name: claim\n", "  name: claim\n  namespace: a\n"))
    result = runner.invoke(app, ["validate", "--namespace", "b", str(path)])
    assert result.exit_code == 1
    assert "does not match the namespace sent on the request" in result.output


def test_unknown_field_is_reported_with_the_validation_errors(
    runner: CliRunner, tmp_path: Path
) -> None:
    path = tmp_path / "claim.yaml"
    path.write_text(NAMELESS_CLAIM.replace("name: gpu", "name: GPU"))
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0].endswith(
        'strict decoding error: unknown field "spec.devices.requests[0].exactly.colour"'
    )
    assert lines[1].startswith(
        'ResourceClaim.resource.k8s.io "default/claim" is invalid: '
        'spec.devices.requests[0].name: Invalid value: "GPU"'
    )
    assert lines[-1] == "1 object in 1 file: 0 valid, 1 invalid"


def test_kubernetes_version_option(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "rule.yaml"
    path.write_text(
        "apiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\nmetadata: {name: r}\n"
        "spec: {taint: {key: example.com/k, effect: NoSchedule}}\n"
    )
    assert (
        runner.invoke(app, ["validate", "--kubernetes-version", "1.37", str(path)]).exit_code == 0
    )
    result = runner.invoke(app, ["validate", "--kubernetes-version", "v1.36.1", str(path)])
    assert result.exit_code == 1 and "served by Kubernetes 1.37" in result.output
    result = runner.invoke(app, ["validate", "--kubernetes-version", "1.30", str(path)])
    assert result.exit_code == 2 and "1.30 is not supported" in result.output


def test_device_file_is_refused_in_one_line() -> None:
    out = _kubedra("validate", "/dev/zero")
    assert out.returncode == 1
    assert out.stdout.splitlines()[0] == (
        "/dev/zero: not a regular file (a character device): refusing to read it"
    )
    assert out.stderr == ""
