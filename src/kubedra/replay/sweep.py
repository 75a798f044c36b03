"""Sweep files and configuration files: which replays to run side by side.

A sweep file (``kubedra replay --sweep sweep.yaml``) is the matrix of runs (a cluster and a
trace), configurations (a name and replay flags) and seeds::

    runs:
    - {name: alibaba, cluster: alibaba/cluster.yaml, trace: alibaba/trace.yaml}
    configs:
    - {name: best-fit, args: [--policy, best-fit]}
    - {name: fgd, args: [--policy, fgd]}
    seeds: [42, 43]

Paths are relative to the sweep file's directory and must stay inside it (also through
symbolic links): the directory is what travels to a Ray cluster. Every (run, config, seed)
is one :class:`Cell`, whose replay flags are the run's paths, ``--trace``, the flags given
beside ``--sweep``, the config's ``args`` and ``--seed``.

A configuration file (``--compare FILE``) holds one configuration, ``{name, args}`` (the name
defaults to the file's stem), or a list of them.

Errors name the file, the field (``runs[1].trace``, ``configs[0].args``) and the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kubedra.api.io import LoadError, parse_yaml, read_text

SWEEP_FIELDS = ("runs", "configs", "seeds")
RUN_FIELDS = ("name", "cluster", "trace")
CONFIG_FIELDS = ("name", "args")

MAX_CELLS = 100_000
"""The most cells one sweep may have (runs x configs x seeds): a few lines of YAML must not
make a billion replays, or a list of them in memory, before anything says so."""

ArgsCheck = Callable[[Sequence[str]], "str | None"]
"""Checks a configuration's args (as replay flags); returns what is wrong, or None."""


class SweepError(ValueError):
    """A sweep or configuration file that cannot be used: the file, the field and why."""


@dataclass(frozen=True)
class RunSpec:
    """A cluster (manifest paths) and a trace, relative to the sweep file's directory."""

    name: str
    cluster: tuple[str, ...]
    trace: str


@dataclass(frozen=True)
class ConfigSpec:
    """A named list of replay flags."""

    name: str
    args: tuple[str, ...]


@dataclass(frozen=True)
class Cell:
    """One replay of a sweep or comparison: run in ``base`` (a directory: relative paths in
    ``args`` are relative to it) with the replay flags ``args``."""

    index: int
    run: str
    config: str
    seed: int | None
    config_args: tuple[str, ...]
    """The configuration's own flags, as records show them."""
    args: tuple[str, ...]
    """Every replay flag of the cell: paths, --trace, common flags, config args, --seed."""
    base: str

    def label(self) -> str:
        seed = f", seed {self.seed}" if self.seed is not None else ""
        run = f"run {self.run}, " if self.run else ""
        return f"{run}config {self.config}{seed}"


@dataclass(frozen=True)
class Sweep:
    """A sweep file, checked."""

    source: str
    base: Path
    runs: tuple[RunSpec, ...]
    configs: tuple[ConfigSpec, ...]
    seeds: tuple[int | None, ...]

    def cells(self, common: Sequence[str] = ()) -> list[Cell]:
        """Every (run, config, seed), runs first, then configs, then seeds; ``common`` are
        flags every cell takes (before its config's own)."""
        out: list[Cell] = []
        for run in self.runs:
            for config in self.configs:
                for seed in self.seeds:
                    args = [*run.cluster, "--trace", run.trace, *common, *config.args]
                    if seed is not None:
                        args += ["--seed", str(seed)]
                    out.append(
                        Cell(
                            len(out),
                            run.name,
                            config.name,
                            seed,
                            config.args,
                            tuple(args),
                            str(self.base),
                        )
                    )
        return out


def load_sweep(path: Path, check_args: ArgsCheck | None = None) -> Sweep:
    """Read and check a sweep file; raises SweepError."""
    document = _read(path)
    source = str(path)
    if not isinstance(document, dict):
        raise SweepError(f"{source}: a sweep is a mapping with runs, configs and seeds")
    _unknown(document, SWEEP_FIELDS, source, "")
    base = path.resolve().parent
    runs = _runs(document.get("runs"), source, base)
    configs = _configs(document.get("configs"), source, "configs", None)
    seeds = _seeds(document.get("seeds"), source)
    cells = len(runs) * len(configs) * len(seeds)
    if cells > MAX_CELLS:
        raise SweepError(
            f"{source}: {len(runs)} run(s) x {len(configs)} config(s) x {len(seeds)} seed(s) "
            f"= {cells} cells, more than {MAX_CELLS}: split the sweep"
        )
    for i, config in enumerate(configs):
        where = f"{source}: configs[{i}].args"
        if seeds != (None,) and _names_flag(config.args, "--seed"):
            raise SweepError(f"{where}: --seed: the sweep's seeds say it")
        for j, arg in enumerate(config.args):
            if arg in ("-f", "--filename") and j + 1 < len(config.args):
                _inside(config.args[j + 1], base, f"{where}[{j + 1}]")
            elif arg.startswith("--filename="):
                _inside(arg.partition("=")[2], base, f"{where}[{j}]")
        if check_args is not None:
            problem = check_args([*runs[0].cluster, "--trace", runs[0].trace, *config.args])
            if problem is not None:
                raise SweepError(f"{where}: {problem}")
    return Sweep(source, base, runs, configs, seeds)


def load_configs(path: Path, check_args: ArgsCheck | None = None) -> list[ConfigSpec]:
    """Read a configuration file (``{name, args}`` or a list of them); raises SweepError."""
    document = _read(path)
    source = str(path)
    if isinstance(document, dict):
        document = [document]
        configs = _configs(document, source, "", path.stem)
    else:
        configs = _configs(document, source, "", None)
    if check_args is not None:
        for i, config in enumerate(configs):
            problem = check_args(config.args)
            if problem is not None:
                where = "args" if len(configs) == 1 else f"[{i}].args"
                raise SweepError(f"{source}: {where}: {problem}")
    return list(configs)


def _read(path: Path) -> Any:
    text = read_text(path)
    if isinstance(text, LoadError):
        raise SweepError(str(text))
    contents = []
    for document in parse_yaml(text, str(path)):
        if isinstance(document, LoadError):
            raise SweepError(str(document))  # names the line
        contents.append(document.content)
    if len(contents) != 1:
        raise SweepError(f"{path}: one YAML document, not {len(contents)}")
    return contents[0]


def _unknown(value: dict[str, Any], known: Sequence[str], source: str, where: str) -> None:
    for key in value:
        if key not in known:
            at = f"{where}: " if where else ""
            raise SweepError(f"{source}: {at}unknown field {key!r} (known: {', '.join(known)})")


def _runs(value: Any, source: str, base: Path) -> tuple[RunSpec, ...]:
    if not isinstance(value, list) or not value:
        raise SweepError(f"{source}: runs: a list of {{cluster, trace}}, at least one")
    runs: list[RunSpec] = []
    names: dict[str, int] = {}
    for i, item in enumerate(value):
        where = f"runs[{i}]"
        if not isinstance(item, dict):
            raise SweepError(f"{source}: {where}: a mapping with cluster and trace")
        _unknown(item, RUN_FIELDS, source, where)
        cluster = item.get("cluster")
        if isinstance(cluster, str):
            cluster = [cluster]
        if not isinstance(cluster, list) or not cluster:
            raise SweepError(f"{source}: {where}.cluster: a path (or a list of paths)")
        paths: list[str] = []
        for j, entry in enumerate(cluster):
            field = f"{where}.cluster" if len(cluster) == 1 else f"{where}.cluster[{j}]"
            paths.append(_path(entry, base, source, field))
        trace = _path(item.get("trace"), base, source, f"{where}.trace")
        name = item.get("name", trace)
        if not isinstance(name, str) or not name:
            raise SweepError(f"{source}: {where}.name: a non-empty string")
        if name in names:
            raise SweepError(
                f"{source}: {where}.name: {name!r} repeats runs[{names[name]}] "
                "(give each run its own name)"
            )
        names[name] = i
        runs.append(RunSpec(name, tuple(paths), trace))
    return tuple(runs)


def _configs(
    value: Any, source: str, field: str, default_name: str | None
) -> tuple[ConfigSpec, ...]:
    prefix = field or ""
    if not isinstance(value, list) or not value:
        what = f"{prefix}: " if prefix else ""
        raise SweepError(f"{source}: {what}a list of {{name, args}}, at least one")
    configs: list[ConfigSpec] = []
    names: dict[str, int] = {}
    for i, item in enumerate(value):
        where = f"{prefix}[{i}]" if len(value) > 1 or prefix else ""
        at = f"{where}." if where else ""
        if not isinstance(item, dict):
            raise SweepError(f"{source}: {where or 'the file'}: a mapping with name and args")
        _unknown(item, CONFIG_FIELDS, source, where)
        name = item.get("name", default_name)
        if not isinstance(name, str) or not name:
            raise SweepError(f"{source}: {at}name: a non-empty string")
        if name in names:
            raise SweepError(f"{source}: {at}name: {name!r} repeats [{names[name]}]")
        names[name] = i
        args = item.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str | int | float) for a in args):
            raise SweepError(
                f"{source}: {at}args: a list of replay flags (strings), e.g. [--policy, fgd]"
            )
        configs.append(ConfigSpec(name, tuple(str(a) for a in args)))
    return tuple(configs)


def _seeds(value: Any, source: str) -> tuple[int | None, ...]:
    if value is None:
        return (None,)
    if not isinstance(value, list) or not value:
        raise SweepError(f"{source}: seeds: a list of whole numbers, at least one")
    seen: set[int] = set()
    for i, seed in enumerate(value):
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise SweepError(f"{source}: seeds[{i}]: {seed!r} is not a whole number >= 0")
        if seed in seen:
            raise SweepError(f"{source}: seeds[{i}]: {seed} repeats")
        seen.add(seed)
    return tuple(value)


def _path(value: Any, base: Path, source: str, field: str) -> str:
    if not isinstance(value, str) or not value:
        raise SweepError(f"{source}: {field}: a path relative to the sweep file")
    _inside(value, base, f"{source}: {field}")
    try:
        exists = (base / value).exists()
    except OSError as error:  # a name too long, a link loop the resolving let through
        raise SweepError(f"{source}: {field}: {value}: {error.strerror or error}") from None
    if not exists:
        raise SweepError(f"{source}: {field}: {value}: no such file or directory")
    # A cell's flags carry the path: one that starts with "-" would read as a flag.
    return f"./{value}" if value.startswith("-") else value


def _inside(value: str, base: Path, where: str) -> None:
    """``value`` is a relative path that stays inside ``base`` (links followed)."""
    if "\x00" in value:
        raise SweepError(f"{where}: {value!r}: a path has no NUL character")
    if Path(value).is_absolute():
        raise SweepError(f"{where}: {value}: must be relative to the sweep file's directory")
    try:
        resolved = (base / value).resolve()
    except (OSError, RuntimeError) as error:  # RuntimeError: a symbolic link loop
        raise SweepError(f"{where}: {value}: {getattr(error, 'strerror', None) or error}") from None
    if resolved != base and base not in resolved.parents:
        raise SweepError(f"{where}: {value}: outside the sweep file's directory ({base})")


def _names_flag(args: Sequence[str], flag: str) -> bool:
    return any(a == flag or a.startswith(f"{flag}=") for a in args)
