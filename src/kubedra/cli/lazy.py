"""A Typer group whose commands are imported when they are used, not when ``kubedra`` starts.

Importing every command module up front made ``kubedra --version`` load the object model,
pydantic and the rest (most of a second). :class:`LazyGroup` knows its commands from a table
(command name -> ``"module:register"``, see :mod:`kubedra.cli.commands`) and imports a module
only when click asks for that command: to run it, to show its help, or to list it in the
group's help, shell completion or a generated reference. ``list_commands`` and
``get_command`` therefore still see every command.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import typer
from typer.core import TyperGroup

if TYPE_CHECKING:  # typer vendors click (typer._click); its Context and Command are these
    from typer._click import Command, Context

Registrar = Callable[[typer.Typer], None]


def load_registrar(spec: str) -> Registrar:
    """The ``register(app)`` function named by ``"module:attribute"``."""
    module_name, _, attribute = spec.partition(":")
    register: Registrar = getattr(importlib.import_module(module_name), attribute)
    return register


def register_all(app: typer.Typer, table: Mapping[str, str]) -> None:
    """Register every command of ``table`` on ``app`` now (each module once, table order)."""
    done: set[str] = set()
    for spec in table.values():
        if spec not in done:
            done.add(spec)
            load_registrar(spec)(app)


class LazyGroup(TyperGroup):
    """A TyperGroup that adds the commands of :attr:`lazy_commands` on first use.

    Subclass it with ``lazy_commands`` set (:func:`lazy_group`) and pass the subclass as
    ``typer.Typer(cls=...)``. Commands registered on the app directly come first in listings,
    then the table's, in table order.
    """

    lazy_commands: ClassVar[Mapping[str, str]] = {}

    def list_commands(self, ctx: Context) -> list[str]:
        names = super().list_commands(ctx)
        return names + [name for name in self.lazy_commands if name not in self.commands]

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None and cmd_name in self.lazy_commands:
            self._load(self.lazy_commands[cmd_name])
            command = super().get_command(ctx, cmd_name)
        return command

    def resolve_command(
        self, ctx: Context, args: list[str]
    ) -> tuple[str | None, Command | None, list[str]]:
        if args and args[0] not in self.commands and args[0] not in self.lazy_commands:
            # An unknown name: load every command so that typer's "Did you mean ...?"
            # suggestion (taken from the loaded commands) sees them all.
            for name in self.lazy_commands:
                self.get_command(ctx, name)
        return super().resolve_command(ctx, args)

    def _load(self, spec: str) -> None:
        """Register the module's commands on a scratch app and adopt the table's ones.

        A module may register several commands; all of them that the table names are added,
        so that the module is loaded only once per group.
        """
        scratch = typer.Typer(rich_markup_mode=self.rich_markup_mode)
        load_registrar(spec)(scratch)
        built = typer.main.get_group(scratch)
        for name, command in built.commands.items():
            if self.lazy_commands.get(name) == spec and name not in self.commands:
                self.add_command(command, name)


def lazy_group(table: Mapping[str, str]) -> type[LazyGroup]:
    """A LazyGroup subclass that loads the commands of ``table`` (name -> module:register)."""
    attributes: dict[str, Any] = {"lazy_commands": dict(table), "__doc__": LazyGroup.__doc__}
    return type("KubedraGroup", (LazyGroup,), attributes)
