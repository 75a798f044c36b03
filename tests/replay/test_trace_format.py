"""Trace files: what an entry may hold, and errors that name the file, entry and field."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from replay_builders import pod

from kubedra.replay import TraceError, load_trace, parse_trace

POD = pod("p", template=None)


def error_of(data: Any) -> str:
    with pytest.raises(TraceError) as caught:
        parse_trace(data, "trace.yaml")
    return str(caught.value)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"at": 0}, "trace.yaml: a trace is a list of entries, not an object"),
        (["x"], "trace.yaml: entry 1: an entry is an object"),
        ([{"at": 0, "objects": [POD], "dur": 1}], "trace.yaml: entry 1: unknown field 'dur'"),
        ([{"objects": [POD]}], "trace.yaml: entry 1.at: required"),
        ([{"at": -5, "objects": [POD]}], "trace.yaml: entry 1.at: must not be negative"),
        ([{"at": ".inf", "objects": [POD]}], "entry 1.at: not a duration"),
        (
            [{"at": float("inf"), "objects": [POD]}],
            "entry 1.at: inf is longer than a duration may be",
        ),
        (
            [{"at": 0, "objects": [POD]}, {"at": "1h", "duration": "soon", "objects": [POD]}],
            "trace.yaml: entry 2.duration: not a duration (like 30, 90s, 5m, 1h, 1d): 'soon'",
        ),
        ([{"at": 0, "count": 0, "objects": [POD]}], "entry 1.count: a whole number from 1"),
        ([{"at": 0, "count": "3", "objects": [POD]}], "entry 1.count: a whole number from 1"),
        ([{"at": 0, "count": True, "objects": [POD]}], "entry 1.count: a whole number from 1"),
        ([{"at": 0, "restart": "yes", "objects": [POD]}], "entry 1.restart: true or false"),
        ([{"at": 0}], "entry 1: needs exactly one of objects, file or an action"),
        ([{"at": 0, "objects": [POD], "cordon": "n"}], "needs exactly one of objects, file"),
        ([{"at": 0, "objects": []}], "entry 1.objects: a list of one or more objects"),
        ([{"at": 0, "objects": ["x"]}], "objects[0]: a manifest is an object, not a string"),
        (
            [
                {
                    "at": 0,
                    "objects": [{"apiVersion": "v1", "kind": "Pod", "spec": {"containers": 1}}],
                }
            ],
            'entry 1.objects[0]: Pod "" cannot be decoded: spec.containers',
        ),
        (
            [
                {
                    "at": 0,
                    "objects": [
                        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {}}
                    ],
                }
            ],
            "entry 1.objects[0].spec.containers: Required value",
        ),
        (
            [
                {
                    "at": 0,
                    "objects": [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}}],
                }
            ],
            "entry 1.objects[0]: kind Service (v1) is not modelled",
        ),
        (
            [{"at": 0, "objects": [{"apiVersion": "v9", "kind": "Pod"}]}],
            'entry 1.objects[0]: no matches for kind "Pod" in version "v9"',
        ),
        ([{"at": 0, "cordon": 5}], "trace.yaml: entry 1.cordon: the node's name"),
        ([{"at": 0, "duration": "1h", "cordon": "n"}], "entry 1.duration: only for objects"),
        ([{"at": 0, "wait": "1h"}], "entry 1: unknown field 'wait'"),
        (
            [
                {
                    "at": 0,
                    "set-class-selector": {
                        "class": "c",
                        "selectors": [{"cel": {"expression": "device.driver =="}}],
                    },
                }
            ],
            "entry 1.set-class-selector.selectors[0].cel.expression: Invalid value",
        ),
    ],
)
def test_errors_name_the_entry_and_the_field(data: Any, message: str) -> None:
    assert message in error_of(data)


def test_a_copy_name_that_gets_too_long_is_named() -> None:
    long = pod("x" * 251, template=None)  # a pod name may have 253 characters
    message = error_of([{"at": 0, "count": 12, "objects": [long]}])
    assert message.startswith(f"trace.yaml: entry 1.count: the copy named {'x' * 251}-11: ")
    assert "metadata.name: Invalid value" in message


def test_entries_happen_in_time_order_and_copies_rename_their_references() -> None:
    template = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "gpu"},
        "spec": {
            "spec": {"devices": {"requests": [{"name": "g", "exactly": {"deviceClassName": "c"}}]}}
        },
    }
    uses = pod("train", template="gpu")
    keeps = pod("other", template="shared")  # a template outside the entry keeps its name
    trace = parse_trace(
        [
            {"at": "2h", "objects": [keeps]},
            {"at": "90m", "duration": "1d", "count": 2, "objects": [template, uses]},
        ],
        "t.yaml",
    )
    assert [(e.index, e.at, e.duration) for e in trace.entries] == [
        (2, 5400, 86400),
        (1, 7200, None),
    ]
    copies = list(trace.entries[0].instances())
    names = [[o["metadata"]["name"] for o in objects] for objects in copies]
    assert names == [["gpu-0", "train-0"], ["gpu-1", "train-1"]]
    claims = copies[1][1]["spec"]["resourceClaims"]
    assert claims == [{"name": "gpu", "resourceClaimTemplateName": "gpu-1"}]
    [[other]] = list(trace.entries[1].instances())
    assert other["spec"]["resourceClaims"][0]["resourceClaimTemplateName"] == "shared"


def test_files_are_read_relative_to_the_trace_and_must_stay_inside(tmp_path: Path) -> None:
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs" / "p.yaml").write_text(json.dumps(POD))
    (tmp_path / "outside.yaml").write_text(json.dumps(POD))
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "link.yaml").symlink_to(tmp_path / "outside.yaml")
    trace = inner / "t.yaml"
    for value, message in [
        ("../outside.yaml", "t.yaml: entry 1.file: ../outside.yaml: outside the trace's directory"),
        ("link.yaml", "t.yaml: entry 1.file: link.yaml: outside the trace's directory"),
        ("nope.yaml", "t.yaml: entry 1.file: nope.yaml: no such file"),
    ]:
        trace.write_text(json.dumps([{"at": 0, "file": value}]))
        with pytest.raises(TraceError, match=re.escape(message)):
            load_trace(trace)
    trace = tmp_path / "t.yaml"
    trace.write_text(json.dumps([{"at": 0, "file": "jobs/p.yaml"}] * 2))
    loaded = load_trace(trace)
    assert [e.objects[0]["metadata"]["name"] for e in loaded.entries] == ["p", "p"]


def test_yaml_and_json_lines(tmp_path: Path) -> None:
    yaml_trace = tmp_path / "t.yaml"
    yaml_trace.write_text("- at: 0s\n  duration: 5m\n  objects:\n  - " + json.dumps(POD) + "\n")
    assert [e.duration for e in load_trace(yaml_trace).entries] == [300]
    lines = tmp_path / "t.jsonl"
    lines.write_text(
        json.dumps({"at": 0, "objects": [POD]}) + "\n" + json.dumps({"at": "x", "objects": [POD]})
    )
    with pytest.raises(TraceError, match=re.escape("t.jsonl: entry 2.at: not a duration")):
        load_trace(lines)
    broken = tmp_path / "b.yaml"
    broken.write_text("- at: [0\n")
    with pytest.raises(TraceError, match=re.escape("b.yaml: YAML syntax error at line 2")):
        load_trace(broken)
    # A JSON Lines syntax error names the entry, counted from 1 as the others (not the
    # reader's "document 1", counted from 0).
    lines.write_text(json.dumps({"at": 0, "objects": [POD]}) + '\n{"at": 0,\n')
    with pytest.raises(TraceError, match=re.escape("t.jsonl: entry 2: JSON syntax error at")):
        load_trace(lines)
    two = tmp_path / "two.yaml"
    two.write_text("- at: 0\n---\n- at: 1\n")
    with pytest.raises(TraceError, match="one list of entries, not 2 documents"):
        load_trace(two)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "t.yaml"
    os.mkfifo(fifo)
    with pytest.raises(TraceError, match="not a regular file"):
        load_trace(fifo)


def test_the_pods_a_trace_makes_are_bounded_before_any_is_made() -> None:
    """A Deployment asking for two billion replicas made the replay create pods until it was
    killed; copies times the pods of each entry's objects count against one bound (the
    ``--max-pods`` of the other commands, kubedra.api.limits), before anything is created."""
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": 2_000_000_000,
            "selector": {"matchLabels": {"a": "b"}},
            "template": {
                "metadata": {"labels": {"a": "b"}},
                "spec": {"containers": [{"name": "c", "image": "x"}]},
            },
        },
    }
    with pytest.raises(
        TraceError,
        match=re.escape(
            "trace.yaml: entry 1: makes 2000000000 pods: more than the 100000 one replay makes "
            "(raise the bound with --max-pods)"
        ),
    ):
        parse_trace([{"at": 0, "objects": [deployment]}], "trace.yaml")
    entries = [{"at": 0, "count": 3, "objects": [POD]}, {"at": 1, "count": 2, "objects": [POD]}]
    assert len(parse_trace(entries, "trace.yaml", max_pods=5).entries) == 2
    with pytest.raises(TraceError, match=re.escape("entry 2: makes 2 pods (3 before it)")):
        parse_trace(entries, "trace.yaml", max_pods=4)
