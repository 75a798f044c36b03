"""The doc-test runner itself: which blocks run, how markers and transcripts are read, and
that a block's background processes end with it."""

from __future__ import annotations

import time
from pathlib import Path

import doc_blocks

PAGE = """\
# A page

```bash
echo one
```

<!-- doc-test: skip needs a live cluster -->
```bash
kubectl get nodes
```

<!-- doc-test: requires ../shared/conformance -->
```python
print("two")
```

```yaml
kind: Pod
```

- a list item with a block:

  ```console
  $ printf 'a\\nb\\nc\\n'
  a
  ...
  c
  $ echo continued \\
      line
  continued line
  ```
"""


def _page(tmp_path: Path) -> list[doc_blocks.Block]:
    path = tmp_path / "page.md"
    path.write_text(PAGE)
    return doc_blocks.runnable([path], tmp_path)


def test_blocks_languages_lines_and_markers(tmp_path: Path) -> None:
    blocks = _page(tmp_path)
    assert [(b.language, b.line) for b in blocks] == [
        ("bash", 3),
        ("bash", 8),
        ("python", 13),
        ("console", 23),
    ]
    assert blocks[0].where == "page.md:3" and blocks[0].skip is None
    assert blocks[1].skip == "needs a live cluster"
    assert blocks[2].requires == "../shared/conformance" and blocks[2].skip is None
    assert blocks[3].text.startswith("$ printf")  # the list's indentation is removed


def test_requirements_are_paths_or_installed_commands(tmp_path: Path) -> None:
    (tmp_path / "corpus").mkdir()
    assert doc_blocks.missing("corpus/ bash", tmp_path) == []
    assert doc_blocks.missing("./corpus nope-not-a-command ./absent", tmp_path) == [
        "nope-not-a-command",
        "./absent",
    ]


def test_a_transcript_is_commands_with_their_expected_output(tmp_path: Path) -> None:
    commands = doc_blocks.transcript(_page(tmp_path)[3])
    assert [(c.line, c.command, c.expected) for c in commands] == [
        (24, "printf 'a\\nb\\nc\\n'", ["a", "...", "c"]),
        (28, "echo continued \\\n    line", ["continued line"]),
    ]


def test_matching_ignores_trailing_whitespace_and_dots_match_any_lines() -> None:
    assert doc_blocks.matches(["a", "...", "c"], ["a", "c"])
    assert doc_blocks.matches(["a", "...", "c"], ["a", "x", "y", "c  ", ""])
    assert doc_blocks.matches(["..."], [])
    assert not doc_blocks.matches(["a", "...", "c"], ["a", "x"])
    assert not doc_blocks.matches(["a"], ["a", "b"])
    assert not doc_blocks.matches(["a b"], ["a  b"])  # only trailing whitespace is ignored


def test_a_block_runs_in_bash_with_errexit_and_pipefail(tmp_path: Path) -> None:
    failed = doc_blocks.run(doc_blocks.bash("false | true\necho after"), tmp_path, tmp_path, 30)
    assert failed.returncode != 0 and "after" not in failed.output
    ok = doc_blocks.run(doc_blocks.bash("echo $TMPDIR; echo err >&2"), tmp_path, tmp_path, 30)
    assert ok.returncode == 0 and ok.output == f"{tmp_path}\nerr\n"


def test_background_processes_end_with_the_block(tmp_path: Path) -> None:
    marker = tmp_path / "still-running"
    script = f"(sleep 2; touch {marker}) &\necho started"
    start = time.monotonic()
    outcome = doc_blocks.run(doc_blocks.bash(script), tmp_path, tmp_path, 30)
    assert outcome.output == "started\n" and time.monotonic() - start < 2
    time.sleep(2.5)
    assert not marker.exists(), "the background job outlived its block"


def test_a_block_that_runs_too_long_is_stopped(tmp_path: Path) -> None:
    start = time.monotonic()
    outcome = doc_blocks.run(doc_blocks.bash("echo begun; sleep 30"), tmp_path, tmp_path, 1)
    assert outcome.timed_out and outcome.output == "begun\n"
    assert time.monotonic() - start < 10
