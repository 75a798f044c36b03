"""Wrong-typed or malformed input: an error naming object and field, never an exception."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from alloc_builders import allocate, claim, device, request, slice_
from typer.testing import CliRunner

from kubedra.allocator.engine import Allocator
from kubedra.allocator.features import Features
from kubedra.allocator.inputs import InputError
from kubedra.allocator.nodeselect import NodeInfo
from kubedra.cli.main import _register_commands, app
from kubedra.conformance.errors import CaseError
from kubedra.conformance.runner import evaluate_case


def test_a_malformed_capacity_request_is_an_error_outcome() -> None:
    c = claim("c", request("r", capacity={"requests": {"mem": "12 apples"}}))
    outcome = allocate([slice_("s", [device("gpu-0", capacity={"mem": "4"})])], [c])
    assert outcome.error is not None
    assert outcome.error.startswith("claim default/c, request r: capacity mem: ")


def test_a_malformed_device_quantity_is_an_error_outcome() -> None:
    slices = [slice_("s", [device("gpu-0", capacity={"mem": "lots"})])]
    outcome = allocate(slices, [claim("c", request("r"))])
    assert outcome.error is not None
    assert "ResourceSlice s: spec.devices[0].capacity[mem].value" in outcome.error


def test_a_wrong_typed_device_field_names_slice_and_field() -> None:
    slices = [slice_("s", [device("gpu-0", attributes=["model"])])]
    outcome = allocate(slices, [claim("c", request("r"))])
    assert outcome.error == (
        "ResourceSlice s: spec.devices[0].attributes: must be an object, got a list"
    )


def test_a_wrong_typed_claim_names_claim_and_field() -> None:
    c = claim("c", request("r"))
    c["spec"]["devices"]["requests"][0]["exactly"]["count"] = "two"
    outcome = allocate([slice_("s", [device("gpu-0")])], [c])
    assert outcome.error == (
        "ResourceClaim default/c: spec.devices.requests[0].exactly.count: "
        "must be an integer, got a string"
    )


def test_a_wrong_typed_slice_fails_the_constructor_clearly() -> None:
    bad = slice_("s", [device("gpu-0")])
    bad["spec"]["sharedCounters"] = {"name": "x"}
    with pytest.raises(InputError, match=r"^ResourceSlice s: spec.sharedCounters: must be a list"):
        Allocator(Features(), [], [bad])


def test_wrong_typed_node_labels() -> None:
    with pytest.raises(InputError, match=r'^Node n: metadata.labels\["zone"\]: must be a string'):
        NodeInfo.from_v1({"metadata": {"name": "n", "labels": {"zone": ["a"]}}})


def _case(shared_dir: Path) -> dict[str, object]:
    path = shared_dir / "conformance" / "allocate" / "basic-001.json"
    case: dict[str, object] = json.loads(path.read_text())
    return case


def test_case_loading_checks_types(shared_dir: Path) -> None:
    case = _case(shared_dir)
    case["input"]["resourceSlices"][0]["spec"]["devices"] = "gpu-0"  # type: ignore[index]
    with pytest.raises(CaseError, match=r"spec.devices: must be a list, got a string"):
        evaluate_case(case)


def test_cli_reports_a_wrong_typed_case_without_traceback(shared_dir: Path, tmp_path: Path) -> None:
    case = _case(shared_dir)
    case["input"]["node"]["metadata"] = ["node-1"]  # type: ignore[index]
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case))
    _register_commands()
    result = CliRunner().invoke(app, ["conformance", "eval", str(path)])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert f"error: {path}: Node: metadata: must be an object, got a list" in result.output
