"""``kubedra plan``: capacity left for a pod, device utilization, nodes to add.

Every plan command reads its cluster as ``kubedra simulate`` does (paths, ``-f``,
``--example``), runs it to a fixed point, then answers from that state. Exit status: 0 on an
answer, 1 for bad input.
"""

from __future__ import annotations

import enum
import json
from pathlib import Path
from typing import Annotated, Any

import typer

from kubedra.api.limits import DEFAULT_MAX_NODES
from kubedra.cli import options

EXIT_BAD_INPUT = 1

plan_app = typer.Typer(
    name="plan",
    help="Capacity planning on a simulated cluster (capacity, utilization, nodes).",
    no_args_is_help=True,
    rich_markup_mode=None,  # plain help, as the app's (kubedra.cli.main)
)


class Output(enum.StrEnum):
    TEXT = "text"
    JSON = "json"


class UtilizationOutput(enum.StrEnum):
    TEXT = "text"
    JSON = "json"
    YAML = "yaml"


Paths = Annotated[
    list[Path] | None,
    typer.Argument(
        help="Cluster manifests (files or directories); - for stdin.", metavar="PATH..."
    ),
]
Files = Annotated[
    list[Path] | None,
    typer.Option("--filename", "-f", help="A manifest file (repeatable).", metavar="FILE"),
]
Example = Annotated[str | None, typer.Option("--example", help="A built-in scenario.")]
PolicyOpt = options.DevicePolicy
PlacementOpt = options.PlacementPolicy
OutputOpt = Annotated[Output, typer.Option("--output", "-o", help="text or json.")]


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(EXIT_BAD_INPUT)


def _cluster(
    paths: list[Path] | None,
    files: list[Path] | None,
    example: str | None,
    device_policy: str | None,
    placement: str | None,
    run_for: float | None = None,
) -> Any:
    from kubedra.planning.cluster import PlanInputError, load_objects, scheduler_factory, simulate

    try:
        scheduler_factory(device_policy, None, placement)  # unknown names before reading input
        objects = load_objects(paths or [], files or [], example)
        return simulate(objects, device_policy=device_policy, policy=placement, run_for=run_for)
    except (PlanInputError, ValueError) as error:
        raise _fail(str(error)) from None


def _gib(value: int) -> str:
    from kubedra.planning.usage import quantity

    return quantity(value)


@plan_app.command("capacity", epilog=options.POLICY_HELP)
def capacity(
    pod_file: Annotated[Path, typer.Argument(help="The pod (with its claim templates) to add.")],
    paths: Paths = None,
    files: Files = None,
    example: Example = None,
    count: Annotated[
        int | None,
        typer.Option("--count", min=1, help="Stop after N copies (default: until one waits)."),
    ] = None,
    device_policy: PolicyOpt = None,
    placement: PlacementOpt = None,
    output: OutputOpt = Output.TEXT,
    one_by_one: Annotated[
        bool,
        typer.Option("--one-by-one", help="Simulate every copy (no per-node counting)."),
    ] = False,
) -> None:
    """How many more copies of a pod fit, on which nodes, and what runs out first."""
    from kubedra.planning.capacity import plan_capacity
    from kubedra.planning.cluster import PlanInputError, load_objects

    try:
        pod_objects = load_objects([pod_file])
    except PlanInputError as error:
        raise _fail(str(error)) from None
    sim = _cluster(paths, files, example, device_policy, placement)
    try:
        result = plan_capacity(sim, pod_objects, count, fast=not one_by_one)
    except PlanInputError as error:
        raise _fail(str(error)) from None
    if output is Output.JSON:
        typer.echo(json.dumps(result.to_dict(), indent=2))
        return
    more = "" if result.pending_message is None else " (then one stays Pending)"
    copies = "copy" if len(result.placed) == 1 else "copies"
    typer.echo(f"{len(result.placed)} more {copies} of {result.pod} fit{more}.")
    if result.placed:
        typer.echo("\nNODE  COPIES")
        for node, n in sorted(result.per_node.items(), key=lambda kv: (-kv[1], kv[0])):
            typer.echo(f"{node}  {n}")
    runs_out = result.runs_out()
    if runs_out:
        typer.echo("\nRuns out first:")
        for line in runs_out:
            typer.echo(f"  {line}")
    if result.pending_message and result.runs_out() != [result.pending_message]:
        typer.echo(f"\nNext copy: {result.pending_message}")
    for r in result.left:
        caps = ", ".join(f"{n} {_gib(v)}" for n, v in sorted(r.free_capacity.items()))
        typer.echo(
            f"\nLeft for claim {r.claim}, request {r.request} (class {r.device_class}, needs "
            f"{r.needs}): {r.free_devices} free device(s) in {len(r.free_by_pool)} pool(s)"
            + (f"; free capacity: {caps}" if caps else "")
        )


@plan_app.command("utilization", epilog=options.POLICY_HELP)
def utilization(
    paths: Paths = None,
    files: Files = None,
    example: Example = None,
    device_policy: PolicyOpt = None,
    placement: PlacementOpt = None,
    output: Annotated[
        UtilizationOutput, typer.Option("--output", "-o", help="text, json or yaml.")
    ] = UtilizationOutput.TEXT,
    plot_file: Annotated[
        Path | None, typer.Option("--plot", help="Also draw bar charts to FILE.png or FILE.svg.")
    ] = None,
    pods: Annotated[
        list[Path] | None,
        typer.Option(
            "--pod", help="A pod shape (file) that fragmentation is judged by too.", metavar="FILE"
        ),
    ] = None,
    partition_type_attribute: Annotated[
        str | None,
        typer.Option(
            "--partition-type-attribute",
            help="Group partitions by this string attribute where no slice of a pool names one "
            "(a ResourcePoolStatusRequest's spec.defaultPartitionTypeAttribute).",
        ),
    ] = None,
) -> None:
    """Devices, capacity and counters used and free per node, pool and device class.

    FRAG is the share of free capacity (or free devices) that neither a Pending pod nor a
    --pod shape can use ("-" when there is neither). Pools also get what a
    ResourcePoolStatusRequest would report for them (partition types allocatable/total; in
    JSON and YAML the whole poolStatus)."""
    from kubedra.api.validation.resource_common import validate_fully_qualified_name
    from kubedra.cluster.poolstatus import cluster_pool_statuses
    from kubedra.planning.cluster import PlanInputError, load_objects
    from kubedra.planning.usage import pod_requests, usage, waiting_requests
    from kubedra.planning.utilization import attach_pool_status, groups, plot, table

    if partition_type_attribute is not None:
        problems = validate_fully_qualified_name(
            partition_type_attribute, "--partition-type-attribute"
        )
        if problems:
            raise _fail(str(problems[0]))

    if plot_file is not None and plot_file.suffix.lower() not in (".png", ".svg"):
        raise _fail(f"--plot {plot_file}: the file name must end in .png or .svg")
    try:
        shapes = [load_objects([p]) for p in pods or []]
    except PlanInputError as error:
        raise _fail(str(error)) from None
    sim = _cluster(paths, files, example, device_policy, placement)
    allocator = sim.scheduler.dra.ensure_allocator()
    requests = waiting_requests(sim, allocator)
    for shape in shapes:
        requests += pod_requests(allocator, shape, sim)
    rows = groups(usage(sim, requests))
    attach_pool_status(rows, cluster_pool_statuses(sim.store, partition_type_attribute or ""))
    if output is UtilizationOutput.JSON:
        typer.echo(json.dumps([g.to_dict() for g in rows], indent=2))
    elif output is UtilizationOutput.YAML:
        import yaml

        typer.echo(yaml.safe_dump([g.to_dict() for g in rows], sort_keys=False), nl=False)
    else:
        typer.echo(table(rows))
    if plot_file is not None:
        try:
            bars = plot(rows, plot_file)
        except OSError as error:
            raise _fail(f"--plot {plot_file}: {error.strerror or error}") from None
        typer.echo(f"wrote {plot_file} ({bars} bars)", err=True)


@plan_app.command("nodes", epilog=options.POLICY_HELP)
def nodes(
    template: Annotated[
        Path, typer.Option("--template", help="A Node and its ResourceSlices (YAML).")
    ],
    paths: Paths = None,
    files: Files = None,
    example: Example = None,
    max_nodes: options.MaxNodes = DEFAULT_MAX_NODES,
    device_policy: PolicyOpt = None,
    placement: PlacementOpt = None,
    output: OutputOpt = Output.TEXT,
) -> None:
    """The fewest template nodes to add so that the Pending pods fit, and who goes where."""
    from kubedra.planning.cluster import PlanInputError, load_objects
    from kubedra.planning.nodes import plan_nodes

    try:
        template_objects = load_objects([template])
    except PlanInputError as error:
        raise _fail(str(error)) from None
    sim = _cluster(paths, files, example, device_policy, placement)
    try:
        result = plan_nodes(sim, template_objects, max_nodes)
    except PlanInputError as error:
        raise _fail(str(error)) from None
    if output is Output.JSON:
        typer.echo(json.dumps(result.to_dict(), indent=2))
        return
    typer.echo(f"Add {len(result.added)} node(s) of {template}.")
    for node, pods in result.added:
        typer.echo(f"  {node}: {', '.join(pods)}")
    if result.unplaceable:
        why = "--max-nodes reached" if result.limit_reached else "one more node takes none"
        typer.echo(f"Still Pending ({why}): {', '.join(result.unplaceable)}")


@plan_app.command("what-if", epilog=options.POLICY_HELP)
def what_if(
    steps_file: Annotated[Path, typer.Argument(help="Steps (YAML): simulate's events + own.")],
    paths: Paths = None,
    files: Files = None,
    example: Example = None,
    device_policy: PolicyOpt = None,
    placement: PlacementOpt = None,
    output: OutputOpt = Output.TEXT,
    max_nodes: options.MaxNodes = DEFAULT_MAX_NODES,
) -> None:
    """Apply changes (nodes, slices, class selectors, taints, ...) and show what moves."""
    from kubedra.cluster.store import StoreError
    from kubedra.cluster.timeline import TimelineError
    from kubedra.planning import whatif
    from kubedra.planning.cluster import PlanInputError

    try:
        steps = whatif.load_steps(steps_file, max_nodes)
    except TimelineError as error:
        raise _fail(str(error)) from None
    sim = _cluster(
        paths, files, example, device_policy, placement, steps[0].after if steps else None
    )
    try:
        diffs = whatif.what_if(sim, steps)
    except (TimelineError, StoreError, PlanInputError) as error:
        raise _fail(str(error)) from None
    if output is Output.JSON:
        typer.echo(json.dumps([d.to_dict() for d in diffs], indent=2))
        return
    for line in whatif.report_lines(diffs):
        typer.echo(line)


def register(app: typer.Typer) -> None:
    app.add_typer(plan_app)
