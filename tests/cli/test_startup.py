"""Start-up: ``kubedra`` imports only what the command in hand uses; every command stays listed."""

from __future__ import annotations

import json
import subprocess
import sys

import typer
from typer.testing import CliRunner

from cli_subprocess import kubedra_env
from kubedra.cli.commands import COMMANDS
from kubedra.cli.lazy import load_registrar, register_all
from kubedra.cli.main import app

HEAVY = ("pydantic", "fastapi", "starlette", "uvicorn", "grpc", "matplotlib", "yaml", "kubernetes")
"""Libraries that only some commands need; none of them may load for ``--version``."""

_IMPORTS = """
import json, runpy, sys
sys.argv = ["kubedra", *sys.argv[1:]]
try:
    runpy.run_module("kubedra", run_name="__main__")
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def _modules_after(*args: str) -> set[str]:
    """The modules a fresh ``python -m kubedra ARGS`` has imported when it ends."""
    out = subprocess.run(
        [sys.executable, "-c", _IMPORTS, *args],
        capture_output=True,
        text=True,
        env=kubedra_env(),
        check=True,
    )
    return set(json.loads(out.stderr.strip().splitlines()[-1]))


def _tops(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


def test_version_imports_no_command_and_no_heavy_library() -> None:
    modules = _modules_after("--version")
    assert not _tops(modules) & set(HEAVY)
    assert "rich" not in _tops(modules)  # help rendering only
    commands = {m for m in modules if m.startswith(("kubedra.cli.", "kubedra.conformance"))}
    assert commands == {
        "kubedra.cli.commands",
        "kubedra.cli.lazy",
        "kubedra.cli.main",
        "kubedra.cli.options",
    }
    assert not any(m.startswith(("kubedra.api.models", "kubedra.api.io")) for m in modules)


def test_a_command_imports_its_own_module_only() -> None:
    modules = _modules_after("validate", "--help")
    assert "kubedra.cli.validate" in modules
    others = {spec.partition(":")[0] for name, spec in COMMANDS.items() if name != "validate"}
    assert not modules & others
    assert not _tops(modules) & {"fastapi", "starlette", "uvicorn", "grpc", "matplotlib"}


def test_every_command_is_listed_and_resolvable() -> None:
    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    ctx = group.make_context("kubedra", [], resilient_parsing=True)
    names = group.list_commands(ctx)
    assert names == ["version", *COMMANDS]
    for name in names:
        command = group.get_command(ctx, name)
        assert command is not None, name
        assert command.name == name
    help_text = CliRunner().invoke(app, ["--help"], terminal_width=200).output
    for name in names:
        assert f" {name} " in help_text, name


def test_the_table_names_exactly_what_the_modules_register() -> None:
    """A command added to a module without its table line (or the reverse) is caught here."""
    eager = typer.Typer()

    @eager.callback()
    def _root() -> None:
        """kubedra"""

    register_all(eager, COMMANDS)
    group = typer.main.get_group(eager)
    assert sorted(group.commands) == sorted(COMMANDS)
    for name, spec in COMMANDS.items():
        scratch = typer.Typer()
        load_registrar(spec)(scratch)
        assert name in typer.main.get_group(scratch).commands, (name, spec)


def test_unknown_command_still_suggests_a_lazy_one() -> None:
    result = CliRunner().invoke(app, ["simulat"])
    assert result.exit_code == 2
    assert "Did you mean 'simulate'?" in result.output


def test_lazily_loaded_commands_run() -> None:
    result = CliRunner().invoke(app, ["feature-gates", "-o", "json"])
    assert result.exit_code == 0, result.output
    assert "DRAAdminAccess" in result.output
