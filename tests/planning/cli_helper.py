"""Run kubedra commands in-process (the app with every command module registered)."""

from __future__ import annotations

import typer
from click.testing import Result
from typer.testing import CliRunner

from kubedra.cli.commands import COMMANDS
from kubedra.cli.lazy import register_all


def invoke(*args: str) -> Result:
    app = typer.Typer(pretty_exceptions_enable=False)

    @app.callback()
    def _root() -> None:
        """kubedra"""

    register_all(app, COMMANDS)
    return CliRunner().invoke(app, list(args))
