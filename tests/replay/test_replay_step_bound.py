"""``--step`` takes at most a million samples: ``--step 1s`` over years of simulated time
filled the memory (a gigabyte in 30 s) before it could end; now it is one error line."""

from __future__ import annotations

from pathlib import Path

import typer
from typer.testing import CliRunner

from kubedra.cli import replay_cmd

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "replay"


def _replay(*args: str):  # type: ignore[no-untyped-def]
    app = typer.Typer()
    app.command("version")(lambda: None)
    replay_cmd.register(app)
    return CliRunner().invoke(app, ["replay", str(EXAMPLE), *args])


def test_a_step_that_would_take_more_than_a_million_samples_is_an_error() -> None:
    trace = str(EXAMPLE / "day.trace")
    result = _replay("--trace", trace, "--step", "1s", "--until", "1000001s")
    assert result.exit_code == 1, result.output[-500:]
    assert result.stderr == (
        "error: --step 1s: the replay reaches t=1000001s, more than 1,000,000 samples; a longer "
        "--step or an earlier --until\n"
    )
    assert result.stdout == ""


def test_a_million_samples_are_allowed() -> None:
    trace = str(EXAMPLE / "day.trace")
    result = _replay("--trace", trace, "--step", "1s", "--until", "2h", "-o", "json")
    assert result.exit_code == 0, result.output[-500:]
