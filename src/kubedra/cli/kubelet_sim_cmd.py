"""``kubedra kubelet-sim``: drive DRA plugins over their sockets as the kubelet does."""

from __future__ import annotations

import json
import logging
import signal
import threading
from pathlib import Path
from types import FrameType
from typing import Annotated

import typer

from kubedra.driver.paths import DEFAULT_CDI_DIR, KUBELET_REGISTRY_DIR
from kubedra.driver.store import StoreError

EXIT_VIOLATIONS = 3
EXIT_NOT_REGISTERED = 4


def kubelet_sim(
    node_name: Annotated[str, typer.Option(help="The node whose pods are run.")],
    registry_dir: Annotated[
        Path, typer.Option(help="Directory watched for plugin registration sockets.")
    ] = KUBELET_REGISTRY_DIR,
    cdi_dir: Annotated[Path, typer.Option(help="Where CDI device IDs are looked up.")] = (
        DEFAULT_CDI_DIR
    ),
    cluster_dir: Annotated[
        Path | None, typer.Option(help="Read pods and claims from this directory.")
    ] = None,
    kubeconfig: Annotated[
        Path | None, typer.Option(help="Use the cluster of this kubeconfig.")
    ] = None,
    interval: Annotated[float, typer.Option(help="Seconds between rounds.")] = 1.0,
    once: Annotated[
        bool,
        typer.Option(
            help="Run one round, then exit. Waits first (see --wait-timeout) for the expected "
            "plugins to register and publish their node's ResourceSlices."
        ),
    ] = False,
    expect_driver: Annotated[
        list[str] | None,
        typer.Option(
            help="With --once: a driver whose plugin must register (repeatable; "
            "default: at least one plugin).",
            metavar="NAME",
        ),
    ] = None,
    wait_timeout: Annotated[
        float,
        typer.Option(
            help="With --once: seconds to wait for the expected plugins (exit 4 if they never "
            "register) and then for their ResourceSlices."
        ),
    ] = 30.0,
    wait_for_slices: Annotated[
        bool, typer.Option(help="With --once: also wait for the plugins' ResourceSlices.")
    ] = True,
    duration: Annotated[
        float, typer.Option(help="Stop after this many seconds (0: until SIGTERM).")
    ] = 0.0,
    wipe_slices: Annotated[
        bool, typer.Option(help="Delete the node's ResourceSlices at start, as a kubelet does.")
    ] = False,
    register_node: Annotated[
        bool, typer.Option(help="Create the Node in a cluster directory if it is missing.")
    ] = True,
    call_timeout: Annotated[float, typer.Option(help="Timeout of each gRPC call (s).")] = 10.0,
    report: Annotated[
        Path | None, typer.Option(help="Also write the JSON report to this file.")
    ] = None,
    log_level: Annotated[str, typer.Option(help="Python logging level.")] = "WARNING",
    state_file: Annotated[
        Path | None,
        typer.Option(
            help="Where the claims it prepared are remembered between runs (as the kubelet's "
            "dra_manager_state), so that a later run unprepares those of pods that ended "
            "meanwhile. Default: .kubelet-sim-NODE.json in --registry-dir."
        ),
    ] = None,
    feature_gates: Annotated[
        str | None,
        typer.Option(
            "--feature-gates",
            help="The kubelet's gates, e.g. DRAOptionalNodeOperations=true (skip node "
            "operations that every allocated device of a driver in a claim skips).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Register plugins, prepare the claims of the node's running pods, unprepare when they end.

    The claims it prepared are kept in --state-file, so that a later run (each --once run is
    one) unprepares the claims of pods that ended since.

    Prints a JSON report (plugins, prepared claims, contract violations, failures, latencies);
    exits with 3 when it saw contract violations, with 4 when --once waited in vain for a plugin.
    """
    from kubedra.cli.options import feature_gates as parse_gates
    from kubedra.driver.kubelet_sim import KubeletSim
    from kubedra.driver.kubelet_state import StateError, default_state_file
    from kubedra.driver.store import open_store

    gates = parse_gates(None, feature_gates)
    logging.basicConfig(level=log_level.upper(), format="%(asctime)s %(levelname)s %(message)s")
    try:
        store = open_store(cluster_dir, kubeconfig)
        if register_node and cluster_dir is not None:
            store.register_node(node_name)
        if wipe_slices:
            store.delete_node_resource_slices(node_name)
    except StoreError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from error
    try:
        state = state_file or default_state_file(registry_dir, node_name)
        sim = KubeletSim(
            node_name,
            registry_dir,
            store,
            cdi_dir,
            call_timeout=call_timeout,
            state_file=state,
            optional_node_operations=gates.enabled("DRAOptionalNodeOperations"),
        )
    except StateError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from error
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    if duration > 0:
        timer = threading.Timer(duration, stop.set)
        timer.daemon = True
        timer.start()
    try:
        if once:
            missing = sim.wait_for_plugins(list(expect_driver or []), wait_timeout)
            if missing:
                typer.echo(
                    f"error: no registration of {', '.join(missing)} in {registry_dir} "
                    f"within {wait_timeout:g}s",
                    err=True,
                )
                raise typer.Exit(EXIT_NOT_REGISTERED)
            if wait_for_slices:
                for driver in sim.wait_for_slices(wait_timeout):
                    typer.echo(
                        f"warning: {driver} published no ResourceSlices for node {node_name} "
                        f"within {wait_timeout:g}s",
                        err=True,
                    )
            sim.step()
        else:
            sim.run(stop, interval)
    finally:
        sim.close()
    result = sim.report()
    text = json.dumps(result, indent=2, sort_keys=True)
    if report is not None:
        report.write_text(text + "\n")
    typer.echo(text)
    if result["violations"]:
        raise typer.Exit(EXIT_VIOLATIONS)


def register(app: typer.Typer) -> None:
    app.command("kubelet-sim")(kubelet_sim)
