"""Replay: a workload over time on the simulated control plane (``kubedra replay``).

A trace (kubedra.replay.trace) says when pods and other objects arrive, how long each pod
runs once bound and which timeline actions happen when; :class:`Replay` applies it to a
kubedra.cluster Simulation, jumping the clock from event to event, and records per pod its
arrival, binding, node, devices, end, wait and disruptions, and over time the pending and
running pods, the devices and capacity allocated and the stranded capacity
(kubedra.replay.devices). kubedra.replay.report turns that into the summary, the JSON/YAML
document and the text report; kubedra.replay.plot draws it with matplotlib.
"""

from kubedra.replay.driver import Problem, Replay, ReplayState, SampleLimitError
from kubedra.replay.records import PodRecord
from kubedra.replay.trace import Entry, Trace, TraceError, load_trace, parse_trace

__all__ = [
    "Entry",
    "PodRecord",
    "Problem",
    "Replay",
    "ReplayState",
    "SampleLimitError",
    "Trace",
    "TraceError",
    "load_trace",
    "parse_trace",
]
