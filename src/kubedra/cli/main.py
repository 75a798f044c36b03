"""The ``kubedra`` command: one Typer app; each command group lives in its own module."""

from __future__ import annotations

import typer

from kubedra import __version__

app = typer.Typer(
    name="kubedra",
    help="Kubernetes Dynamic Resource Allocation (DRA) in Python.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Kubernetes Dynamic Resource Allocation (DRA) in Python."""


@app.command()
def version() -> None:
    """Print the kubedra version."""
    typer.echo(__version__)


def _register_commands() -> None:
    """Attach the command modules. Each module exposes ``register(app)``."""
    from kubedra.cli import commands

    for register in commands.REGISTRARS:
        register(app)


def main() -> None:
    """Console-script entry point."""
    _register_commands()
    app()
