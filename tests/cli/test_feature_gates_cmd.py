"""``kubedra feature-gates``: a release's DRA gates as kubedra applies them."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from kubedra.cli.main import _register_commands, app


@pytest.fixture(scope="module")
def runner() -> CliRunner:
    _register_commands()
    return CliRunner()


def test_table(runner: CliRunner) -> None:
    result = runner.invoke(app, ["feature-gates", "--kubernetes-version", "1.34"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].split() == ["NAME", "STAGE", "DEFAULT", "ENABLED", "LOCKED"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:]}
    assert rows["DRAAdminAccess"] == ["beta", "true", "true", "false"]
    assert rows["DRAConsumableCapacity"] == ["alpha", "false", "false", "false"]
    assert "DRADeviceTaintRules" not in rows  # it arrives in 1.35


def test_json_with_overrides(runner: CliRunner) -> None:
    args = ["feature-gates", "--kubernetes-version", "1.36", "--feature-gates"]
    result = runner.invoke(app, [*args, "DRAListTypeAttributes=true", "-o", "json"])
    document = json.loads(result.output)
    assert document["kubernetesVersion"] == "1.36"
    gates = {gate["name"]: gate for gate in document["gates"]}
    assert gates["DRAListTypeAttributes"] == {
        "name": "DRAListTypeAttributes",
        "stage": "alpha",
        "default": False,
        "enabled": True,
        "locked": False,
    }
    names = runner.invoke(app, ["feature-gates", "-o", "name"]).output.splitlines()
    assert "DRADerivedAttributes" in names  # the default release is 1.37


def test_refused_gate_is_a_usage_error(runner: CliRunner) -> None:
    result = runner.invoke(app, ["feature-gates", "--feature-gates", "DRAAdminAccess=false"])
    assert result.exit_code == 2
    assert "cannot set feature gate DRAAdminAccess to false, feature is locked to true" in (
        result.output
    )
