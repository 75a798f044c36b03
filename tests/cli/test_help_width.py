"""Help at 80 columns (what a command prints when its output is not a terminal) wraps and
never truncates: every option name and default is whole, and sentences are not broken."""

from __future__ import annotations

import itertools
import re

import pytest
from typer.testing import CliRunner

from kubedra.cli.main import app
from kubedra.cli.reference import WIDTH, CommandHelp, commands, root_command

SECTION = re.compile(r"^(Options:|Arguments:|Commands:|╭)")
ROOT = root_command()  # attaches every command to the app
TREE = list(commands(ROOT))


def _help(entry: CommandHelp) -> str:
    """What ``kubedra WORDS --help`` prints into a pipe, 80 columns wide."""
    result = CliRunner().invoke(app, [*entry.path[1:], "--help"], env={"COLUMNS": str(WIDTH)})
    assert result.exit_code == 0, result.output
    return result.output


def _params(entry: CommandHelp) -> list[object]:
    command = ROOT
    for word in entry.path[1:]:
        command = command.get_command(None, word)
    return list(command.params)


def test_the_tree_holds_every_command_group_and_subcommand() -> None:
    names = {entry.name for entry in TREE}
    assert {"kubedra simulate", "kubedra driver example-gpu", "kubedra plan what-if"} <= names
    assert {"kubedra explain pod", "kubedra conformance run"} <= names


@pytest.mark.parametrize("entry", TREE, ids=lambda entry: entry.name)
def test_help_wraps_and_keeps_option_names_and_defaults_whole(entry: CommandHelp) -> None:
    text = _help(entry)
    assert "…" not in text
    assert all(len(line) <= WIDTH for line in text.splitlines()), text
    flat = " ".join(text.split())
    for param in _params(entry):
        for name in [*getattr(param, "opts", []), *getattr(param, "secondary_opts", [])]:
            if name.startswith("-"):
                assert re.search(rf"(^|[\s,/]){re.escape(name)}([\s,=/]|$)", text), name
        default = getattr(param, "default", None)
        shown = getattr(param, "show_default", True) and not getattr(param, "hidden", False)
        if isinstance(default, str) and len(default) > 12 and shown:
            # long defaults (paths) are shown whole; wrapping may break them at a hyphen
            assert default in flat.replace("- ", "-"), default


@pytest.mark.parametrize("entry", TREE, ids=lambda entry: entry.name)
def test_description_paragraphs_are_filled_to_the_width(entry: CommandHelp) -> None:
    """A line of a paragraph ends early only when the next word would not fit: no sentence is
    broken where the docstring happened to break its line."""
    lines = [line.rstrip() for line in _help(entry).splitlines()]
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("Usage:"))
    end = next((i for i, line in enumerate(lines) if SECTION.match(line.strip())), len(lines))
    paragraph: list[str] = []
    for line in [*lines[start + 1 : end], ""]:
        if line.strip():
            paragraph.append(line)
            continue
        preformatted = any(line.startswith("    ") for line in paragraph)  # examples
        for current, following in itertools.pairwise(paragraph):
            if not preformatted:
                next_word = following.split()[0]
                assert len(current) + 1 + len(next_word) > WIDTH - 2, (current, following)
        paragraph = []
