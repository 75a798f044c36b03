"""The ``kubedra`` command: one Typer app; each command group lives in its own module.

The commands are listed in :data:`kubedra.cli.commands.COMMANDS` and imported only when used
(:mod:`kubedra.cli.lazy`): this module imports nothing but typer and the shared options.
"""

from __future__ import annotations

from typing import Annotated

import typer

from kubedra import __version__
from kubedra.cli.commands import COMMANDS
from kubedra.cli.lazy import lazy_group
from kubedra.cli.options import CONTEXT_SETTINGS

app = typer.Typer(
    cls=lazy_group(COMMANDS),
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
    """Nothing to do: the app finds its commands on demand (kept for existing callers)."""


def main() -> None:
    """Console-script entry point."""
    app()


def kubectl_plugin() -> None:
    """The ``kubectl-dra`` entry point: ``kubectl dra validate ...`` runs ``kubedra validate ...``.

    kubectl finds plugins as ``kubectl-<name>`` executables on PATH and runs them with the
    remaining arguments; the program name shown in help is kubectl's.
    """
    app(prog_name="kubectl dra")
