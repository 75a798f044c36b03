"""Replay: a workload over time on the simulated control plane (``kubedra replay``).

A trace (kubedra.replay.trace) says when pods and other objects arrive, how long each pod
runs once bound and which timeline actions happen when; :class:`Replay` applies it to a
kubedra.cluster Simulation, jumping the clock from event to event, and records per pod its
arrival, binding, node, devices, end, wait and disruptions, and over time the pending and
running pods, the devices and capacity allocated and the stranded capacity
(kubedra.replay.devices). kubedra.replay.report turns that into the summary, the JSON/YAML
document and the text report; kubedra.replay.plot draws it with matplotlib.

:class:`Inflation` runs the paper's experiment instead (kubedra.replay.inflate: tasks arrive
and never end until the arrived demand reaches a share of the devices; its report is
kubedra.replay.inflate_report). :func:`trace_workload` gives the task shapes a placement
policy plans for. Several replays side by side: sweep and configuration files
(:func:`load_sweep`, kubedra.replay.sweep), cells run here, in worker processes or on Ray
(:func:`run_cells`, kubedra.replay.executor), tables (kubedra.replay.compare) and overlaid
charts (kubedra.replay.plot_compare).
"""

from kubedra.replay.driver import Problem, Replay, ReplayState, SampleLimitError
from kubedra.replay.executor import CellResult, run_cells
from kubedra.replay.inflate import InflateError, InflateOptions, InflateState, Inflation
from kubedra.replay.records import PodRecord
from kubedra.replay.shapes import trace_workload
from kubedra.replay.sweep import Cell, ConfigSpec, Sweep, SweepError, load_configs, load_sweep
from kubedra.replay.trace import Entry, Trace, TraceError, load_trace, parse_trace

__all__ = [
    "Cell",
    "CellResult",
    "ConfigSpec",
    "Entry",
    "InflateError",
    "InflateOptions",
    "InflateState",
    "Inflation",
    "PodRecord",
    "Problem",
    "Replay",
    "ReplayState",
    "SampleLimitError",
    "Sweep",
    "SweepError",
    "Trace",
    "TraceError",
    "load_configs",
    "load_sweep",
    "load_trace",
    "parse_trace",
    "run_cells",
    "trace_workload",
]
