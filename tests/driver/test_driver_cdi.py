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
    load_spec_file,
    minimum_version,
    parse_qualified_name,
    spec_file_name,
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
    ("device_id", "message"),
    [
        ("vendor.com/class", 'unqualified device "vendor.com/class", missing vendor'),
        ("class=name", 'unqualified device "class=name", missing vendor'),
        ("/class=name", 'unqualified device "/class=name", missing vendor'),
        ("vendor.com/class=", 'unqualified device "vendor.com/class=", missing vendor'),
        (
            "1vendor/class=name",
            'invalid device "1vendor/class=name": invalid vendor. "1vendor", should start with '
            "letter",
        ),
        (
            "vendor-/class=name",
            'invalid device "vendor-/class=name": invalid vendor. "vendor-", should end with a '
            "letter or digit",
        ),
        (
            "vendor/cl:ass=name",
            "invalid device \"vendor/cl:ass=name\": invalid class. invalid character ':' in name "
            '"cl:ass"',
        ),
        (
            "vendor/class=-name",
            'invalid device "vendor/class=-name": invalid class "-name", should start with a '
            "letter or digit",
        ),
        (
            "vendor/class=na/me",
            'invalid device "vendor/class=na/me": invalid character \'/\' in device name "na/me"',
        ),
        (
            "vendor/class=name-",
            'invalid device "vendor/class=name-": invalid name "name-", should end with a letter '
            "or digit",
        ),
    ],
)
def test_invalid_qualified_names(device_id, message):
    """The CDI library's pkg/parser messages, word for word."""
    with pytest.raises(CDIError) as caught:
        parse_qualified_name(device_id)
    assert str(caught.value) == message


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


def test_spec_problems_are_reported_with_the_library_messages():
    problems = validate_spec(
        {
            "cdiVersion": "0.3.0",
            "kind": "vendor",
            "devices": [
                {"name": "d", "annotations": {"a": "b"}, "containerEdits": {"env": ["A=1"]}},
                {"name": "d", "containerEdits": {"env": ["NOVALUE"], "hooks": [{"hookName": "x"}]}},
                {"name": "e"},
            ],
        }
    )
    assert problems == [
        "invalid CDI Spec: the spec version must be at least v0.6.0",
        "invalid CDI Spec: invalid vendor. empty name",
        'invalid CDI Spec: failed add device "d": invalid device "d": invalid container edits: '
        'invalid environment variable "NOVALUE"',
        'invalid CDI Spec: failed add device "d": invalid device "d": invalid hook name "x"',
        'invalid CDI Spec: invalid spec, multiple device "d"',
        'invalid CDI Spec: failed add device "e": invalid device, empty device edits',
    ]


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
    with pytest.raises(CDIError, match='failed add device "-bad": invalid class "-bad"'):
        CDIWriter(tmp_path).write(CDISpec("vendor.com", "gpu", [CDIDevice("-bad")]), "x")
    assert list(tmp_path.iterdir()) == []


def test_index_reports_invalid_spec_files(tmp_path):
    (tmp_path / "broken.json").write_text("{not json")
    (tmp_path / "old.yaml").write_text("cdiVersion: 0.2.9\nkind: v/c\ndevices: [{name: d}]\n")
    devices, problems = index_devices(tmp_path)
    assert devices == {}
    assert len(problems) == 2


def _one(edits: dict, **extra: object) -> list[str]:
    document = {"cdiVersion": "1.1.0", "kind": "vendor.com/gpu", **extra}
    document.setdefault("devices", [{"name": "d", "containerEdits": edits}])
    return validate_spec(document)


PREFIX = 'invalid CDI Spec: failed add device "d": invalid device "d": '


@pytest.mark.parametrize(
    ("edits", "message"),
    [
        ({"deviceNodes": [{"path": ""}]}, "invalid (empty) device path"),
        ({"deviceNodes": [{"path": "/dev/x", "type": "x"}]}, 'device "/dev/x": invalid type "x"'),
        (
            {"deviceNodes": [{"path": "/dev/x", "permissions": "rwx"}]},
            'device "/dev/x": invalid permissions "rwx"',
        ),
        ({"env": ["=value"]}, 'invalid container edits: invalid environment variable "=value"'),
        (
            {"hooks": [{"hookName": "prestart", "path": "/h", "env": ["NOEQ"]}]},
            'invalid hook "prestart": invalid environment variable "NOEQ"',
        ),
        (
            {"hooks": [{"hookName": "prestart", "path": "/h", "timeout": 0}]},
            'invalid hook "prestart": timeout must be greater than zero',
        ),
        ({"hooks": [{"hookName": "prestart"}]}, 'invalid hook "prestart" with empty path'),
        ({"mounts": [{"containerPath": "/c"}]}, "invalid mount, empty host path"),
        ({"mounts": [{"hostPath": "/h"}]}, "invalid mount, empty container path"),
        ({"intelRdt": {"closID": ".."}}, "invalid ClosID"),
        ({"intelRdt": {"closID": "a/b"}}, "invalid ClosID"),
        ({"netDevices": [{"name": "n"}]}, "invalid linux net device, empty HostInterfaceName"),
        ({"netDevices": [{"hostInterfaceName": "eth0"}]}, "invalid linux net device, empty Name"),
        (
            {
                "netDevices": [
                    {"hostInterfaceName": "eth0", "name": "a"},
                    {"hostInterfaceName": "eth0", "name": "b"},
                ]
            },
            'invalid linux net device, duplicate HostInterfaceName "eth0" with names "b" and "a"',
        ),
    ],
)
def test_container_edits_are_checked_as_the_library_does(edits, message):
    assert _one(edits) == [PREFIX + message]


@pytest.mark.parametrize(
    "edits",
    [
        {"deviceNodes": [{"path": "/dev/x", "type": t, "permissions": p}]}
        for t, p in [("b", "r"), ("c", "rwm"), ("u", "none"), ("p", ""), ("", "mw")]
    ]
    + [
        {"intelRdt": {"closID": "/"}},
        {"intelRdt": {}},
        {"additionalGids": [5]},
        {"hooks": [{"hookName": "poststop", "path": "/h", "timeout": 3, "env": ["A=1"]}]},
    ],
)
def test_valid_edits_pass(edits):
    assert _one(edits) == []


def test_annotations_follow_kubernetes_key_and_size_rules():
    problems = _one({"env": ["A=1"]}, annotations={"bad key": "v", "ok.example.com/k": "v"})
    assert problems == [
        "invalid CDI Spec: vendor.com/gpu.annotations.bad key is invalid: name part must consist "
        "of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
        "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
    ]
    long_name = {"a" * 64: "v"}
    device = [{"name": "d", "annotations": long_name, "containerEdits": {"env": ["A=1"]}}]
    assert _one({}, devices=device) == [
        'invalid CDI Spec: failed add device "d": vendor.com/gpu=d.annotations.'
        + "a" * 64
        + " is invalid: name part must be no more than 63 characters"
    ]
    big = {"k": "x" * (256 * 1024)}
    assert _one({"env": ["A=1"]}, annotations=big) == [
        "invalid CDI Spec: vendor.com/gpu.annotations is too long: annotations size 262145 is "
        "larger than limit 262144"
    ]


@pytest.mark.parametrize(
    ("version", "message"),
    [
        ("0.2.0", "the spec version must be at least v0.3.0"),
        ("0.1.0", "the spec version must be at least v0.3.0"),
        ("v0.2.0", "the spec version must be at least v0.3.0"),
        ("0.2.9", 'invalid version "0.2.9"'),
        ("", 'invalid version ""'),
    ],
)
def test_old_and_unknown_versions_get_the_library_messages(version, message):
    document = {"cdiVersion": version, "kind": "v.com/c"}
    document["devices"] = [{"name": "d", "containerEdits": {"env": ["A=1"]}}]
    assert validate_spec(document) == [f"invalid CDI Spec: {message}"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"cdiVersion": "0.3.0", "kind": "v/c", "devices": [], "extra": 1}',
            'json: unknown field "extra"',
        ),
        (
            '{"cdiVersion": "0.3.0", "kind": "v/c", "devices": [{"name": "d", '
            '"containerEdits": {"env": ["A=1"], "devNodes": []}}]}',
            'json: unknown field "devNodes"',
        ),
        (
            '{"cdiVersion": "0.3.0", "kind": "v/c", "devices": [{"name": 5}]}',
            "json: cannot unmarshal number into Go struct field Device.devices.name of type string",
        ),
        (
            '{"cdiVersion": "0.3.0", "kind": "v/c", "devices": [{"name": "d", "containerEdits": '
            '{"additionalGids": [-1]}}]}',
            "json: cannot unmarshal number -1 into Go struct field "
            "ContainerEdits.devices.containerEdits.additionalGids of type uint32",
        ),
    ],
)
def test_spec_files_are_read_strictly(tmp_path, text, message):
    path = tmp_path / "s.json"
    path.write_text(text)
    with pytest.raises(CDIError) as caught:
        load_spec_file(path)
    assert str(caught.value) == (
        f'failed to parse CDI Spec "{path}": failed to unmarshal CDI Spec: error unmarshaling '
        f"JSON: while decoding JSON: {message}"
    )
    devices, problems = index_devices(tmp_path)
    assert devices == {} and problems == [str(caught.value)]


def test_yaml_spec_fields_match_case_insensitively_and_timestamps_stay_strings(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(
        "cdiVersion: 0.6.0\nKind: v/c\nannotations: {when: 2024-01-02T03:04:05Z}\n"
        "devices: [{name: d, containerEdits: {env: [A=1]}}]\n"
    )
    document = load_spec_file(path)
    assert document["annotations"]["when"] == "2024-01-02T03:04:05Z"
    assert document["kind"] == "v/c"  # Go's decoder matches field names in any case
    assert index_devices(tmp_path) == ({"v/c=d": path}, [])


def test_writer_emits_net_devices_intel_rdt_and_additional_gids(tmp_path):
    edits = ContainerEdits(
        net_devices=[{"hostInterfaceName": "eth1", "name": "net0"}],
        intel_rdt={"closID": "clos-1", "schemata": ["L3:0=f"]},
        additional_gids=[44, 107],
    )
    path = CDIWriter(tmp_path).write(CDISpec("vendor.com", "nic", [CDIDevice("n0", edits)]), "u")
    document = json.loads(path.read_text())
    assert document["cdiVersion"] == "1.1.0"
    assert document["devices"][0]["containerEdits"] == {
        "netDevices": [{"hostInterfaceName": "eth1", "name": "net0"}],
        "intelRdt": {"closID": "clos-1", "schemata": ["L3:0=f"]},
        "additionalGids": [44, 107],
    }
    assert validate_spec(document) == []
    assert load_spec_file(path) == document


def test_spec_files_are_private_and_transient_ids_keep_out_of_paths(tmp_path):
    writer = CDIWriter(tmp_path)
    spec_ = CDISpec("vendor.com", "gpu", [CDIDevice("d", ContainerEdits(env=["A=1"]))])
    path = writer.write(spec_, "ns/claim")
    assert path.name == "vendor.com-gpu_ns_claim.json"
    assert path.parent == tmp_path
    assert path.stat().st_mode & 0o777 == 0o600
    assert spec_file_name("vendor.com", "gpu", "../../x") == "vendor.com-gpu_.._.._x.json"
    with pytest.raises(CDIError, match="file names allow at most 255"):
        writer.write(spec_, "x" * 240)
    with pytest.raises(CDIError, match="contains a NUL byte"):
        writer.remove("vendor.com", "gpu", "a\x00b")


def test_a_device_without_edits_cannot_be_written(tmp_path):
    with pytest.raises(CDIError, match="invalid device, empty device edits"):
        CDIWriter(tmp_path).write(CDISpec("vendor.com", "gpu", [CDIDevice("d")]), "u")
    assert list(tmp_path.iterdir()) == []


def test_the_writer_refuses_fields_the_library_does_not_know(tmp_path):
    edits = ContainerEdits(device_nodes=[{"path": "/dev/x", "perms": "rw"}])
    with pytest.raises(CDIError, match='json: unknown field "perms"'):
        CDIWriter(tmp_path).write(CDISpec("vendor.com", "gpu", [CDIDevice("d", edits)]), "u")
    assert list(tmp_path.iterdir()) == []
