"""The list of command modules; each adds its commands to the Typer app with ``register(app)``.

Keeping the list here (one line per module) lets each command live in its own small module.
"""

from __future__ import annotations

from collections.abc import Callable

import typer

from kubedra.cli import (
    driver_cmd,
    explain_cmd,
    features_cmd,
    kubelet_sim_cmd,
    plan_cmd,
    replay_cmd,
    serve_api_cmd,
    serve_cmd,
    simulate_cmd,
    snapshot_cmd,
    trace_cmd,
    validate,
)
from kubedra.conformance import cli as conformance_cli

REGISTRARS: list[Callable[[typer.Typer], None]] = [
    validate.register,
    snapshot_cmd.register,
    features_cmd.register,
    driver_cmd.register,
    kubelet_sim_cmd.register,
    conformance_cli.register,
    explain_cmd.register,
    simulate_cmd.register,
    serve_api_cmd.register,
    plan_cmd.register,
    replay_cmd.register,
    serve_cmd.register,
    trace_cmd.register,
]
