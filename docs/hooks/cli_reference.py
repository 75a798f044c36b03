"""MkDocs hook: the CLI reference page gets every command's help from the app itself.

A page holding the marker line below has it replaced by kubedra.cli.reference.markdown(),
so the reference shows what ``kubedra COMMAND --help`` prints and cannot drift from it.
"""

from __future__ import annotations

from typing import Any

MARKER = "<!-- kubedra: cli-reference -->"


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if MARKER not in markdown:
        return markdown
    from kubedra.cli.reference import markdown as reference

    return markdown.replace(MARKER, reference())
