"""Every ```bash, ```python and ```console block of README.md and docs/ runs as written.

The runner (``doc_blocks``) and its conventions are described in that module and in
docs/contributing.md. A failure names the file and line of the block, the command and
what it printed.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import doc_blocks
import pytest
from doc_blocks import Block

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = float(os.environ.get("KUBEDRA_DOC_TIMEOUT", "120"))
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
BLOCKS = doc_blocks.runnable(PAGES, ROOT)


def _changed_files() -> set[str] | None:
    """Files git sees as new or modified in the checkout (None outside a git checkout)."""
    done = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    return set(done.stdout.splitlines()) if done.returncode == 0 else None


def _show(block: Block, what: str, command: str, output: str) -> str:
    return f"{block.where}: {what}\n--- command ---\n{command.rstrip()}\n--- output ---\n{output}"


@pytest.mark.parametrize("block", BLOCKS, ids=lambda block: block.where)
def test_doc_block(block: Block, tmp_path: Path) -> None:
    if block.skip is not None:
        pytest.skip(f"{block.where}: {block.skip}")
    absent = doc_blocks.missing(block.requires, ROOT) if block.requires is not None else []
    if absent:
        pytest.skip(f"{block.where}: needs {' and '.join(absent)}, which is absent")
    before = _changed_files()
    if block.language == "python":
        script = tmp_path / "block.py"
        script.write_text(block.text, encoding="utf-8")
        _expect_success(block, doc_blocks.python(script), block.text, tmp_path)
    elif block.language == "bash":
        _expect_success(block, doc_blocks.bash(block.text), block.text, tmp_path)
    else:
        for command in doc_blocks.transcript(block):
            outcome = doc_blocks.run(doc_blocks.bash(command.command), ROOT, tmp_path, TIMEOUT)
            if outcome.timed_out or not doc_blocks.matches(
                command.expected, outcome.output.splitlines()
            ):
                expected = "\n".join(command.expected)
                where = Block(block.path, command.line, block.language, block.text)
                what = (
                    f"timed out after {TIMEOUT:g} s"
                    if outcome.timed_out
                    else f"output differs from the transcript (exit {outcome.returncode})"
                )
                pytest.fail(
                    _show(where, what, command.command, outcome.output)
                    + f"--- expected ---\n{expected}\n",
                    pytrace=False,
                )
    after = _changed_files()
    if before is not None and after is not None and after - before:
        left = "\n".join(sorted(after - before))
        pytest.fail(f"{block.where}: the block left files in the checkout:\n{left}", pytrace=False)


def _expect_success(block: Block, argv: list[str], text: str, tmp: Path) -> None:
    outcome = doc_blocks.run(argv, ROOT, tmp, TIMEOUT)
    if outcome.timed_out:
        pytest.fail(
            _show(block, f"timed out after {TIMEOUT:g} s", text, outcome.output), pytrace=False
        )
    if outcome.returncode != 0:
        what = f"{block.language} block failed (exit {outcome.returncode})"
        pytest.fail(_show(block, what, text, outcome.output), pytrace=False)
