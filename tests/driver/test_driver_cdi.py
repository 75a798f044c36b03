"""CDI names, device IDs, minimum spec versions and spec files."""

from __future__ import annotations

import json

import pytest

from kubedra.driver.cdi import (
    CDIDevice,
    CDIError,
    CDISpec,
    CDIWriter,
    ContainerEdits,
    index_devices,
    minimum_version,
    parse_qualified_name,
    validate_spec,
)


@pytest.mark.parametrize(
    "device_id",
    ["vendor.com/class=name", "k8s.gpu.example.com/gpu=uid-1-gpu-0", "a1/b_c=0:x.y", "v/c=n"],
)
def test_valid_qualified_names(device_id):
    vendor, cdi_class, name = parse_qualified_name(device_id)
    assert f"{vendor}/{cdi_class}={name}" == device_id


@pytest.mark.parametrize(
    ("device_id", "reason"),
    [
        ("vendor.com/class", "unqualified"),
        ("class=name", "unqualified"),
        ("/class=name", "unqualified"),
        ("vendor.com/class=", "unqualified"),
        ("1vendor/class=name", "should start with a letter"),
        ("vendor-/class=name", "should end with a letter or digit"),
        ("vendor/cl:ass=name", "invalid character ':'"),
        ("vendor/class=-name", "should start with a letter or digit"),
        ("vendor/class=na/me", "invalid character '/'"),
    ],
)
def test_invalid_qualified_names(device_id, reason):
    with pytest.raises(CDIError, match=reason):
        parse_qualified_name(device_id)


def spec(**edits: object) -> dict:
    return {"cdiVersion": "", "kind": "vendor.com/gpu", "devices": [{"name": "d", **edits}]}


@pytest.mark.parametrize(
    ("document", "version"),
    [
        (spec(containerEdits={"env": ["A=1"]}), "0.3.0"),
        (
            spec(
                containerEdits={"mounts": [{"hostPath": "/a", "containerPath": "/b", "type": "x"}]}
            ),
            "0.4.0",
        ),
        ({"kind": "v/c", "devices": [{"name": "0dev"}]}, "0.5.0"),
        (spec(containerEdits={"deviceNodes": [{"path": "/dev/x", "hostPath": "/dev/y"}]}), "0.5.0"),
        (spec(annotations={"a": "b"}), "0.6.0"),
        ({"kind": "vendor.com/gpu.v2", "devices": [{"name": "d"}]}, "0.6.0"),
        (spec(containerEdits={"additionalGids": [5]}), "0.7.0"),
        (spec(containerEdits={"intelRdt": {"closID": "x"}}), "0.7.0"),
        (
            spec(containerEdits={"netDevices": [{"hostInterfaceName": "eth0", "name": "n"}]}),
            "1.1.0",
        ),
    ],
)
def test_minimum_version_follows_the_features_used(document, version):
    assert minimum_version(document) == version


def test_spec_problems_are_reported():
    problems = validate_spec(
        {
            "cdiVersion": "0.3.0",
            "kind": "vendor",
            "devices": [
                {"name": "d", "annotations": {"a": "b"}},
                {"name": "d", "containerEdits": {"env": ["NOVALUE"], "hooks": [{"hookName": "x"}]}},
            ],
        }
    )
    text = "\n".join(problems)
    assert "must be at least v0.6.0" in text
    assert "kind: invalid kind 'vendor'" in text
    assert "duplicate device 'd'" in text
    assert "env[0]: expected NAME=value" in text
    assert "hookName: invalid 'x'" in text
    assert "hooks[0].path: must be an absolute path" in text


def test_writer_writes_a_valid_spec_and_removes_it(tmp_path):
    writer = CDIWriter(tmp_path)
    cdi_spec = CDISpec(
        "k8s.gpu.example.com",
        "gpu",
        [CDIDevice("uid-gpu-0", ContainerEdits(env=["GPU_DEVICE_0=gpu-0"]))],
        edits=ContainerEdits(
            mounts=[{"hostPath": "/h", "containerPath": "/c"}],
            hooks=[{"hookName": "createContainer", "path": "/bin/true"}],
            device_nodes=[{"path": "/dev/null"}],
        ),
    )
    path = writer.write(cdi_spec, "uid")
    assert path.name == "k8s.gpu.example.com-gpu_uid.json"
    document = json.loads(path.read_text())
    assert document["cdiVersion"] == "0.3.0"
    assert document["kind"] == "k8s.gpu.example.com/gpu"
    assert validate_spec(document) == []
    devices, problems = index_devices(tmp_path)
    assert devices == {"k8s.gpu.example.com/gpu=uid-gpu-0": path} and problems == []
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left
    assert writer.remove("k8s.gpu.example.com", "gpu", "uid")
    assert not writer.remove("k8s.gpu.example.com", "gpu", "uid")


def test_invalid_names_are_refused_before_writing(tmp_path):
    with pytest.raises(CDIError, match="invalid device name"):
        CDIWriter(tmp_path).write(CDISpec("vendor.com", "gpu", [CDIDevice("-bad")]), "x")
    assert list(tmp_path.iterdir()) == []


def test_index_reports_invalid_spec_files(tmp_path):
    (tmp_path / "broken.json").write_text("{not json")
    (tmp_path / "old.yaml").write_text("cdiVersion: 0.2.9\nkind: v/c\ndevices: [{name: d}]\n")
    devices, problems = index_devices(tmp_path)
    assert devices == {}
    assert len(problems) == 2
