"""Run kubedra commands in-process (the app with every command module registered)."""

from __future__ import annotations

import typer
from click.testing import Result
from typer.testing import CliRunner

from kubedra.cli import commands


def invoke(*args: str) -> Result:
    app = typer.Typer(pretty_exceptions_enable=False)

    @app.callback()
    def _root() -> None:
        """kubedra"""

    for register in commands.REGISTRARS:
        register(app)
    return CliRunner().invoke(app, list(args))
