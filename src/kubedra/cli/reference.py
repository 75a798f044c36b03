"""The command reference: every command's ``--help``, read from the app through Click's API.

The documentation site's CLI page is generated from this (``docs/hooks/cli_reference.py``), so
it shows exactly what ``kubedra COMMAND --help`` prints and cannot disagree with the code. Only
Click's public interface is used (``list_commands``/``get_command`` on groups, ``get_help`` on
a context), which a lazily registering group keeps as well.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

WIDTH = 80
"""The width help is rendered at: what a command prints when its output is not a terminal."""


@dataclass(frozen=True)
class CommandHelp:
    """One command of the tree: its words (``["kubedra", "plan", "nodes"]``) and help text."""

    path: tuple[str, ...]
    summary: str
    help: str
    group: bool

    @property
    def name(self) -> str:
        return " ".join(self.path)

    @property
    def anchor(self) -> str:
        """The heading id MkDocs gives ``## kubedra plan nodes``."""
        return "-".join(self.path)


def root_command() -> Any:
    """The Click command behind ``kubedra``, with every command attached."""
    import typer

    from kubedra.cli import main

    # The console script attaches the command modules when it starts (main.main); attach
    # them here too unless that already happened in this process.
    if len(main.app.registered_commands) + len(main.app.registered_groups) <= 1:
        main._register_commands()
    return typer.main.get_command(main.app)


def commands(root: Any = None, width: int = WIDTH) -> Iterator[CommandHelp]:
    """Every command, depth first in the order ``kubedra --help`` lists them; hidden ones
    are left out as the help leaves them out."""
    command = root if root is not None else root_command()
    yield from _walk(command, ("kubedra",), None, width)


def _walk(command: Any, path: tuple[str, ...], parent: Any, width: int) -> Iterator[CommandHelp]:
    context = command.context_class(
        command,
        info_name=path[-1],
        parent=parent,
        terminal_width=width,
        max_content_width=width,
        **command.context_settings,
    )
    group = hasattr(command, "list_commands")
    summary = command.get_short_help_str(limit=200) if parent is not None else ""
    yield CommandHelp(path, summary, command.get_help(context), group)
    if not group:
        return
    for name in command.list_commands(context):
        sub = command.get_command(context, name)
        if sub is not None and not getattr(sub, "hidden", False):
            yield from _walk(sub, (*path, name), context, width)


def markdown(root: Any = None) -> str:
    """The reference page's body: an index of the commands, then each one's help."""
    found = list(commands(root))
    lines = ["| command | what it does |", "| --- | --- |"]
    for entry in found[1:]:
        summary = entry.summary.replace("|", "\\|")
        lines.append(f"| [`{entry.name}`](#{entry.anchor}) | {summary} |")
    for entry in found:
        lines += ["", f"## {entry.name}", "", "```text", entry.help.rstrip(), "```"]
    return "\n".join(lines) + "\n"
