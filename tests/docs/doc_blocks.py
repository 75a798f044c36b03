"""The code blocks of the README and the docs, and how each is run (the doc-test runner).

Conventions (every page follows them):

* a ```bash block runs in ``bash`` with ``set -euo pipefail``, from the repository root;
* a ```python block runs in a fresh interpreter (this one's executable), from the root;
* a ```console block is a transcript: lines starting with ``$ `` are commands (a line ending
  in ``\\`` continues on the next), the lines after each are its expected output; a line that
  is just ``...`` matches any lines, and trailing whitespace is ignored;
* ```yaml, ```text, ```json and blocks of any other language are not run;
* ``<!-- doc-test: skip REASON -->`` on the line just before a block skips it with REASON;
* ``<!-- doc-test: requires PATH -->`` there skips it unless PATH (relative to the root,
  e.g. ``../shared/conformance``) exists: for blocks that read the shared corpus; several
  requirements are separated by spaces, and one without a ``/`` names a command that must
  be installed (``requires ../shared/benchmarks valgrind``).

Blocks write under /tmp (``$TMPDIR`` is a fresh directory per block); each runs in its own
process group, which is killed when the block ends, so servers started with ``&`` stop too.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

RUN = ("bash", "python", "console")
"""The languages whose blocks are run; every other block is text."""

MARKER = re.compile(r"^\s*<!--\s*doc-test:\s*(skip|requires)\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
ANY_LINES = "..."


@dataclass(frozen=True)
class Block:
    """One fenced block: where it is, its language and text, and how the page marked it."""

    path: Path
    line: int
    """1-based line of the opening fence."""
    language: str
    text: str
    skip: str | None = None
    requires: str | None = None

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class Command:
    """A transcript command and the output shown after it."""

    line: int
    command: str
    expected: list[str]


def missing(requires: str, root: Path) -> list[str]:
    """The requirements of a ``requires`` marker that are not met: paths (relative to
    ``root``) that do not exist, commands (names without ``/``) that are not installed."""
    return [
        item
        for item in requires.split()
        if not ((root / item).exists() if "/" in item else shutil.which(item))
    ]


def blocks(path: Path, relative_to: Path) -> Iterator[Block]:
    """The fenced blocks of a Markdown file, in order (nested fences are not supported)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    shown = path.relative_to(relative_to) if path.is_relative_to(relative_to) else path
    index = 0
    while index < len(lines):
        match = FENCE.match(lines[index])
        if match is None:
            index += 1
            continue
        indent, fence = match["indent"], match["fence"]
        language = (match["info"].strip().split() or [""])[0].lower()
        start = index
        body: list[str] = []
        index += 1
        while index < len(lines):
            closing = lines[index].strip()
            if closing.startswith(fence[0] * len(fence)) and not closing.strip(fence[0]):
                break
            raw = lines[index]
            body.append(raw[len(indent) :] if raw.startswith(indent) else raw.lstrip())
            index += 1
        index += 1
        marker = MARKER.match(lines[start - 1]) if start else None
        kind, value = (marker[1], marker[2]) if marker else (None, "")
        yield Block(
            shown,
            start + 1,
            language,
            "\n".join(body) + "\n",
            skip=(value or "no reason given") if kind == "skip" else None,
            requires=value if kind == "requires" else None,
        )


def runnable(paths: Iterable[Path], root: Path) -> list[Block]:
    """The blocks of ``paths`` that the runner executes (skipped ones included)."""
    return [block for path in paths for block in blocks(path, root) if block.language in RUN]


def transcript(block: Block) -> list[Command]:
    """The commands of a ```console block with the output expected after each."""
    commands: list[Command] = []
    lines = block.text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if not line.startswith("$ "):
            if line.strip() and not commands:
                raise ValueError(f"{block.where}: a transcript starts with a '$ ' command")
            if commands:
                commands[-1].expected.append(line)
            index += 1
            continue
        first = block.line + 1 + index
        command = line[2:]
        while command.endswith("\\") and index + 1 < len(lines):
            index += 1
            command = command + "\n" + lines[index]
        commands.append(Command(first, command, []))
        index += 1
    return commands


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` lines are ``expected`` (``...`` matching any lines; trailing
    whitespace and trailing empty lines ignored)."""
    want = _trim([line.rstrip() for line in expected])
    got = _trim([line.rstrip() for line in actual])
    return _match(want, 0, got, 0, {})


def _trim(lines: list[str]) -> list[str]:
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _match(
    want: list[str], i: int, got: list[str], j: int, memo: dict[tuple[int, int], bool]
) -> bool:
    key = (i, j)
    if key not in memo:
        if i == len(want):
            result = j == len(got)
        elif want[i] == ANY_LINES:
            result = any(_match(want, i + 1, got, k, memo) for k in range(j, len(got) + 1))
        else:
            result = j < len(got) and want[i] == got[j] and _match(want, i + 1, got, j + 1, memo)
        memo[key] = result
    return memo[key]


@dataclass(frozen=True)
class Outcome:
    returncode: int
    output: str
    timed_out: bool = False


def run(argv: list[str], root: Path, tmp: Path, timeout: float) -> Outcome:
    """Run ``argv`` from ``root`` in a process group of its own; whatever it left running in
    the background is killed when it ends (or times out). Output is stdout and stderr
    together, as a terminal shows them; it goes to a file, so that a background process
    holding it open cannot keep the block from ending."""
    # The commands the docs name (kubedra, kubectl-dra, kubectl from the dev extra) are
    # found beside this interpreter even when its virtualenv is not activated.
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    env = os.environ | {"TMPDIR": str(tmp), "PYTHONDONTWRITEBYTECODE": "1", "PATH": path}
    env.pop("COLUMNS", None)
    log = tmp / ".doc-test-output"
    with log.open("w+", encoding="utf-8", errors="replace") as out:
        process = subprocess.Popen(
            argv,
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        timed_out = False
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            _kill_group(process.pid)
            process.wait()
        out.seek(0)
        output = out.read()
    log.unlink()
    return Outcome(-1 if timed_out else process.returncode, output, timed_out)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def bash(script: str) -> list[str]:
    return ["bash", "-c", "set -euo pipefail\n" + script]


def python(script: Path) -> list[str]:
    return [sys.executable, str(script)]
