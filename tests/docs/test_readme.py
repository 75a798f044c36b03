"""README.md stays short, starts with the set-up commands and links only what exists.

(The pages under docs/ are checked by ``mkdocs build --strict``, which README.md is not
part of.)"""

from __future__ import annotations

import re
from pathlib import Path

import doc_blocks

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
LINK = re.compile(r"\]\(([^)\s]+)\)")

LANDS_WITH_OTHER_BRANCHES: set[str] = set()
"""Pages the README links that other branches of issue 18 add (empty this set at merge)."""


def test_the_readme_is_short() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 150


def test_the_set_up_commands_come_first() -> None:
    first = next(doc_blocks.blocks(README, ROOT))
    assert first.line <= 5
    assert first.text.splitlines() == [
        'python3 -m venv .venv && . .venv/bin/activate && pip install -e ".[dev]" '
        "&& kubedra simulate --example gpu-demo",
        "python -m pytest",
    ]


def test_relative_links_point_at_files_that_exist() -> None:
    text = README.read_text(encoding="utf-8")
    targets = {
        link.split("#")[0]
        for link in LINK.findall(text)
        if not re.match(r"^[a-z]+:", link) and not link.startswith("#")
    }
    assert targets, "the README links into the docs"
    missing = sorted(t for t in targets if not (ROOT / t).exists())
    assert [t for t in missing if t not in LANDS_WITH_OTHER_BRANCHES] == []
