"""Run one kubedra command in-process over a shipped example, as the example tests need it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import typer
from typer.testing import CliRunner

EXAMPLES = Path(__file__).resolve().parent.parent.parent / "examples"


def invoke(register: Callable[[typer.Typer], None], *args: str) -> tuple[int, str]:
    """Exit code and output of ``kubedra ARGS`` with only the command ``register`` adds.

    A second command is registered so that Typer keeps the command name on the command line.
    """
    app = typer.Typer()
    app.command("version")(lambda: None)
    register(app)
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def simulate_timeline(example: str, *extra: str) -> tuple[int, str]:
    """``kubedra simulate examples/NAME --events examples/NAME/training.events EXTRA...``."""
    from kubedra.cli import simulate_cmd

    path = EXAMPLES / example
    return invoke(
        simulate_cmd.register,
        "simulate",
        str(path),
        "--events",
        str(path / "training.events"),
        *extra,
    )
