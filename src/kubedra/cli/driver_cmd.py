"""``kubedra driver ...``: run drivers built with the driver kit."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated

import typer

from kubedra.driver.paths import DEFAULT_CDI_DIR, KUBELET_PLUGINS_DIR, KUBELET_REGISTRY_DIR
from kubedra.driver.store import StoreError

driver_app = typer.Typer(
    help="Run DRA drivers written with kubedra's driver kit.",
    no_args_is_help=True,
    rich_markup_mode=None,  # plain help, as the app's (kubedra.cli.main)
)


@driver_app.command("example-gpu")
def example_gpu(
    node_name: Annotated[str, typer.Option(help="The node this driver serves.")],
    registry_dir: Annotated[
        Path, typer.Option(help="Where the kubelet watches for registration sockets.")
    ] = KUBELET_REGISTRY_DIR,
    plugin_dir: Annotated[
        Path,
        typer.Option(help="The kubelet plugins directory; the driver uses <dir>/gpu.example.com."),
    ] = KUBELET_PLUGINS_DIR,
    cdi_dir: Annotated[Path, typer.Option(help="Where CDI spec files are written.")] = (
        DEFAULT_CDI_DIR
    ),
    cluster_dir: Annotated[
        Path | None, typer.Option(help="Publish slices into, read claims from this directory.")
    ] = None,
    kubeconfig: Annotated[
        Path | None, typer.Option(help="Use the cluster of this kubeconfig.")
    ] = None,
    in_cluster: Annotated[bool, typer.Option(help="Use the in-cluster service account.")] = False,
    gpus: Annotated[int, typer.Option(min=0, help="Number of fake GPUs.")] = 8,
    memory: Annotated[str, typer.Option(help="Memory of each GPU.")] = "80Gi",
    model: Annotated[str, typer.Option(help="The model attribute.")] = "LATEST-GPU-MODEL",
    partitions: Annotated[
        int, typer.Option(min=0, help="MIG-like mode: also offer this many partitions per GPU.")
    ] = 0,
    rolling_update_uid: Annotated[
        str,
        typer.Option(
            envvar="POD_UID", help="Pod UID: enables rolling updates (UID in socket names)."
        ),
    ] = "",
    resync_interval: Annotated[
        float, typer.Option(help="Seconds between slice reconciliations.")
    ] = 5.0,
    health_interval: Annotated[float, typer.Option(help="Seconds between health reports.")] = 10.0,
    device_metadata: Annotated[
        bool,
        typer.Option(
            help="Write device metadata for workloads (KEP-5304, versions v1beta1 and v1alpha1)."
        ),
    ] = False,
    log_level: Annotated[str, typer.Option(help="Python logging level.")] = "INFO",
) -> None:
    """Serve fake GPUs: publish them as ResourceSlices and prepare them over the kubelet API.

    Without --cluster-dir, --kubeconfig or --in-cluster the sockets are served but nothing is
    published and claims cannot be looked up (each gets an error saying so).
    """
    import kubedra.driver as dra
    from kubedra.driver.metadata import DEFAULT_VERSIONS
    from kubedra.drivers import example_gpu as gpu

    logging.basicConfig(level=log_level.upper(), format="%(asctime)s %(levelname)s %(message)s")
    try:
        driver = gpu.ExampleGpuDriver(
            node_name,
            cdi_dir,
            gpus=gpus,
            memory=memory,
            model=model,
            partitions=partitions,
            health_interval=health_interval,
            device_metadata=DEFAULT_VERSIONS if device_metadata else (),
        )
        dra.run(
            driver,
            driver.pools(),
            node_name=node_name,
            cluster_dir=cluster_dir,
            kubeconfig=kubeconfig,
            in_cluster=in_cluster,
            registry_dir=registry_dir,
            plugin_dir=plugin_dir,
            cdi_dir=cdi_dir,
            rolling_update_uid=rolling_update_uid,
            resync_interval=resync_interval,
        )
    except dra.DriverStopped as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(1) from error
    except (StoreError, ValueError, OSError) as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from error


def register(app: typer.Typer) -> None:
    app.add_typer(driver_app, name="driver")
