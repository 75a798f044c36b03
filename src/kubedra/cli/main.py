"""The ``kubedra`` command: one Typer app; each command group lives in its own module."""

from __future__ import annotations

from typing import Annotated

import typer

from kubedra import __version__
from kubedra.cli.options import CONTEXT_SETTINGS

app = typer.Typer(
    name="kubedra",
    help="Kubernetes Dynamic Resource Allocation (DRA) in Python.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings=CONTEXT_SETTINGS,
    # Click's plain help: it re-wraps paragraphs to the width and never truncates option
    # names or defaults, which Rich's tables do at 80 columns (output that is not a terminal).
    rich_markup_mode=None,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(__version__)
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Print the kubedra version and exit.",
        ),
    ] = False,
) -> None:
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


def kubectl_plugin() -> None:
    """The ``kubectl-dra`` entry point: ``kubectl dra validate ...`` runs ``kubedra validate ...``.

    kubectl finds plugins as ``kubectl-<name>`` executables on PATH and runs them with the
    remaining arguments; the program name shown in help is kubectl's.
    """
    _register_commands()
    app(prog_name="kubectl dra")
