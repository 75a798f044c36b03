"""Every ``kubedra`` command: its name and the ``register(app)`` function that adds it.

One line per command, ``"name": "module:register"``. The modules are imported only when their
command is run, its help is shown or the group's help lists it (:mod:`kubedra.cli.lazy`), so
``kubedra --version`` and every command start without loading the others. A module's
``register(app)`` adds its commands to a Typer app; a module that registers several commands
gets one line per command. The order is the order of ``kubedra --help``.
"""

from __future__ import annotations

COMMANDS: dict[str, str] = {
    "validate": "kubedra.cli.validate:register",
    "snapshot": "kubedra.cli.snapshot_cmd:register",
    "feature-gates": "kubedra.cli.features_cmd:register",
    "kubelet-sim": "kubedra.cli.kubelet_sim_cmd:register",
    "simulate": "kubedra.cli.simulate_cmd:register",
    "serve-api": "kubedra.cli.serve_api_cmd:register",
    "serve": "kubedra.cli.serve_cmd:register",
    "driver": "kubedra.cli.driver_cmd:register",
    "conformance": "kubedra.conformance.cli:register",
    "explain": "kubedra.cli.explain_cmd:register",
    "plan": "kubedra.cli.plan_cmd:register",
    "replay": "kubedra.cli.replay_cmd:register",
    "trace": "kubedra.cli.trace_cmd:register",
}
