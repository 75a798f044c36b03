"""Loading manifests: streams, lists, directories, JSON, and one clear line per problem."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kubedra.api.io import dump_json, dump_yaml, load_paths, load_text
from kubedra.api.io.reading import ManifestLoader, RawDocument, _parse_fast, parse_yaml

EXAMPLES = Path(__file__).resolve().parent.parent.parent / "examples"

CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
"""

CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: claim
  namespace: default
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
"""


def test_multi_document_stream_skips_empty_documents() -> None:
    result = load_text(f"---\n{CLASS}---\n---\n{CLAIM}")
    assert [obj.kind for obj in result.objects] == ["DeviceClass", "ResourceClaim"]
    assert [obj.document for obj in result.objects] == [0, 2]
    assert result.errors == []


def test_kubectl_list_is_unpacked_with_item_positions() -> None:
    items = [yaml.safe_load(CLASS), yaml.safe_load(CLAIM)]
    text = yaml.safe_dump({"apiVersion": "v1", "kind": "List", "metadata": {}, "items": items})
    result = load_text(text)
    assert [(obj.kind, obj.item) for obj in result.objects] == [
        ("DeviceClass", 0),
        ("ResourceClaim", 1),
    ]


def test_typed_list_items_inherit_api_version_and_kind() -> None:
    text = yaml.safe_dump(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClassList",
            "items": [{"metadata": {"name": "a"}}, {"metadata": {"name": "b"}}],
        }
    )
    result = load_text(text)
    assert [obj.wire["metadata"]["name"] for obj in result.objects] == ["a", "b"]
    assert all(obj.wire["kind"] == "DeviceClass" for obj in result.objects)


def test_directories_are_read_recursively_in_order(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "claim.yml").write_text(CLAIM)
    (tmp_path / "a.yaml").write_text(CLASS)
    (tmp_path / "notes.txt").write_text("not a manifest")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "x.yaml").write_text(": bad")
    result = load_paths([tmp_path])
    assert [obj.kind for obj in result.objects] == ["DeviceClass", "ResourceClaim"]
    assert result.errors == [] and result.files == 2


def test_json_files_and_streams(tmp_path: Path) -> None:
    one = json.dumps(yaml.safe_load(CLASS))
    (tmp_path / "objs.json").write_text(one + "\n" + json.dumps(yaml.safe_load(CLAIM)))
    result = load_paths([tmp_path / "objs.json"])
    assert [obj.kind for obj in result.objects] == ["DeviceClass", "ResourceClaim"]


def test_json_syntax_error_names_line_and_column(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text('{\n  "kind": ,\n}')
    [error] = load_paths([tmp_path / "bad.json"]).errors
    assert str(error).startswith(
        f"{tmp_path / 'bad.json'}: document 0: JSON syntax error at line 2"
    )


def test_yaml_syntax_error_keeps_earlier_documents_and_names_the_line() -> None:
    result = load_text(f"{CLASS}---\nkind: [unclosed\n", source="x.yaml")
    assert [obj.kind for obj in result.objects] == ["DeviceClass"]
    [error] = result.errors
    assert error.document == 1
    assert str(error).startswith("x.yaml: document 1: YAML syntax error at line")


def test_missing_file_and_empty_directory(tmp_path: Path) -> None:
    result = load_paths([tmp_path / "nope.yaml", tmp_path])
    assert [str(error) for error in result.errors] == [
        f"{tmp_path / 'nope.yaml'}: no such file or directory",
        f"{tmp_path}: directory holds no .yaml, .yml or .json files",
    ]


def test_binary_file_is_reported(tmp_path: Path) -> None:
    (tmp_path / "bin.yaml").write_bytes(b"\xff\xfe\x00garbage")
    [error] = load_paths([tmp_path / "bin.yaml"]).errors
    assert "not UTF-8 text" in error.message


def test_non_mapping_and_type_meta_problems() -> None:
    text = (
        "- a\n---\nkind: X\n---\napiVersion: v1\nkind: 3\n---\n"
        "apiVersion: resource.k8s.io/v1\nkind: Foo\n---\napiVersion: x/v1\nkind: Foo\n"
    )
    result = load_text(text)
    messages = [error.message for error in result.errors]
    assert messages == [
        "document is an array, not an object",
        "apiVersion not set",
        "kind must be a string, not a number",
        'no matches for kind "Foo" in version "resource.k8s.io/v1"',
    ]
    # Kinds of other groups are not errors: they are kept, unmodeled, for the caller to skip.
    assert [(entry.api_version, entry.kind) for entry in result.unmodeled] == [("x/v1", "Foo")]


def test_wrong_types_and_unknown_fields_in_one_line() -> None:
    text = CLAIM.replace("deviceClassName: gpu.example.com", "deviceClassName: 7\n        cont: 2")
    [error] = load_text(text).errors
    assert error.message == (
        'ResourceClaim.resource.k8s.io "default/claim" cannot be decoded: '
        "spec.devices.requests[0].exactly.deviceClassName: expected string, got a number 7; "
        'unknown field "spec.devices.requests[0].exactly.cont"'
    )


def test_map_keys_are_shown_in_brackets() -> None:
    text = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: d
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  allNodes: true
  devices:
  - name: a
    capacity:
      memory: {value: lots}
"""
    [error] = load_text(text).errors
    assert "spec.devices[0].capacity[memory].value: quantities must match" in error.message


def test_timestamps_stay_strings() -> None:
    text = CLAIM.replace(
        "  namespace: default", "  namespace: default\n  creationTimestamp: 2026-01-02T03:04:05Z"
    )
    [obj] = load_text(text).objects
    assert obj.wire["metadata"]["creationTimestamp"] == "2026-01-02T03:04:05Z"


def test_nulls_mean_unset() -> None:
    text = CLAIM.replace("  namespace: default", "  namespace: default\n  labels: null")
    [obj] = load_text(text).objects
    assert "labels" not in obj.wire["metadata"]


def test_recursive_and_exploding_aliases_are_refused() -> None:
    recursive = "apiVersion: v1\nkind: Pod\nmetadata: &m\n  x: *m\n"
    laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(8)
    )
    assert "recursive" in load_text(recursive).errors[0].message
    assert "excessive aliasing" in load_text(laughs).errors[0].message


def test_dump_yaml_round_trips_and_omits_empties() -> None:
    [claim] = load_text(CLAIM).objects
    wire = claim.wire | {"status": {}, "metadata": claim.wire["metadata"] | {"labels": {}}}
    text = dump_yaml([wire])
    assert "status" not in text and "labels" not in text
    assert load_text(text).objects[0].wire == claim.wire


def test_dump_json_of_several_objects_is_a_list() -> None:
    objects = [obj.wire for obj in load_text(f"{CLASS}---\n{CLAIM}").objects]
    listing = json.loads(dump_json(objects))
    assert listing["kind"] == "List" and listing["items"] == objects
    assert json.loads(dump_json(objects[:1])) == objects[0]


def test_dump_keeps_opaque_parameters_as_given() -> None:
    claim = yaml.safe_load(CLAIM)
    claim["spec"]["devices"]["config"] = [
        {"opaque": {"driver": "gpu.example.com", "parameters": {"empty": {}, "none": None}}}
    ]
    dumped = yaml.safe_load(dump_yaml([claim]))
    assert dumped["spec"]["devices"]["config"][0]["opaque"]["parameters"] == {
        "empty": {},
        "none": None,
    }


def test_yaml_1_1_scalars_read_as_kubernetes_reads_them() -> None:
    text = CLAIM.replace(
        "deviceClassName: gpu.example.com",
        "deviceClassName: gpu.example.com\n        adminAccess: yes\n        count: 010",
    )
    [claim] = load_text(text).objects
    exactly = claim.wire["spec"]["devices"]["requests"][0]["exactly"]
    assert exactly["adminAccess"] is True and exactly["count"] == 8


def test_quoted_yaml_1_1_words_stay_strings() -> None:
    [error] = load_text(CLAIM.replace("gpu.example.com", "gpu\n        adminAccess: 'yes'")).errors
    assert "adminAccess: expected boolean, got a string" in error.message


def test_fast_and_pyyaml_readings_agree_on_the_examples() -> None:
    for path in sorted(EXAMPLES.rglob("*.yaml")):
        text = path.read_text()
        fast = _parse_fast(text)
        assert fast is not None, path
        slow = list(yaml.load_all(text, Loader=ManifestLoader))
        assert fast == slow, path


def test_repeated_key_is_an_error_as_in_strict_kubernetes_decoding() -> None:
    text = CLAIM.replace("  name: claim\n", "  name: claim\n  name: other\n")
    [error] = load_text(text).errors
    assert error.message == 'YAML error at line 5, column 3: key "name" already set in map'


def test_merge_keys_may_repeat_a_key() -> None:
    text = "base: &b {driver: d}\nobj:\n  <<: *b\n  driver: e\n"
    [document] = load_text(text).errors  # not a Kubernetes object, but it parsed
    assert document.message == "apiVersion and kind not set"


def test_impossible_paths_are_reported() -> None:
    errors = load_paths(["bad\x00name.yaml", "x" * 5000 + ".yaml"]).errors
    assert [error.message for error in errors] == [
        "no such file or directory",
        "cannot read: File name too long",
    ]


@pytest.mark.parametrize(
    "text", ["_0: []\n", "labels:\n  1_000: a\n", "a: ._5\n", "a: _1e3\n", "{_0: 1}\n"]
)
def test_underscored_numbers_read_as_yaml_1_1_reads_them(text: str) -> None:
    """The fast YAML 1.2 reader takes ``_0``, ``._5`` or a ``1_000`` key for numbers;
    YAML 1.1 (PyYAML, Kubernetes) does not, so such streams take the slow path."""
    [document] = list(parse_yaml(text, "t"))
    assert isinstance(document, RawDocument)
    assert document.content == yaml.safe_load(text)
