"""ObjectMeta rules shared by every kind."""

from __future__ import annotations

import pytest

from validation_fixtures import device_class, node, rendered_errors, with_value, without

SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    r"for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)

META_CASES = [
    (
        "name longer than 253",
        with_value(node(), ("metadata", "name"), "n" * 254),
        ['metadata.name: Invalid value: "' + "n" * 254 + '": must be no more than 253 characters'],
    ),
    (
        "generateName checked as a prefix",
        with_value(without(node(), ("metadata", "name")), ("metadata", "generateName"), "node-"),
        [],
    ),
    (
        "device class generateName checked through the generated name",
        with_value(
            without(device_class(), ("metadata", "name")), ("metadata", "generateName"), "GPU-"
        ),
        [f'metadata.name: Invalid value: "GPU-x7b2k": {SUBDOMAIN_MSG}'],
    ),
    (
        "generateName prefix masking drops two characters, as upstream's maskTrailingDash",
        with_value(without(node(), ("metadata", "name")), ("metadata", "generateName"), "n_-"),
        [],
    ),
    (
        "negative generation",
        with_value(node(), ("metadata", "generation"), -1),
        ["metadata.generation: Invalid value: -1: must be greater than or equal to 0"],
    ),
    (
        "label key with uppercase prefix",
        with_value(node(), ("metadata", "labels"), {"Example.com/zone": "a"}),
        [f'metadata.labels: Invalid value: "Example.com/zone": prefix part {SUBDOMAIN_MSG}'],
    ),
    (
        "label key name too long",
        with_value(node(), ("metadata", "labels"), {"k" * 64: "a"}),
        [
            'metadata.labels: Invalid value: "'
            + "k" * 64
            + '": name part must be no more than 63 bytes'
        ],
    ),
    (
        "annotations above 256 KiB",
        with_value(node(), ("metadata", "annotations"), {"big": "x" * (256 * 1024)}),
        ["metadata.annotations: Too long: may not be more than 262144 bytes"],
    ),
    (
        "uppercase annotation keys are fine",
        with_value(node(), ("metadata", "annotations"), {"Example.com/Note": "x"}),
        [],
    ),
    (
        "owner reference without version and uid",
        with_value(
            node(),
            ("metadata", "ownerReferences"),
            [{"apiVersion": "", "kind": "Pod", "name": "p"}],
        ),
        [
            'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
            'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
        ],
    ),
    (
        "finalizer neither standard nor qualified",
        with_value(node(), ("metadata", "finalizers"), ["cleanup"]),
        [
            'metadata.finalizers[0]: Invalid value: "cleanup": name is neither a standard '
            "finalizer name nor is it fully qualified"
        ],
    ),
]


@pytest.mark.parametrize(
    ("obj", "expected"), [(c[1], c[2]) for c in META_CASES], ids=[c[0] for c in META_CASES]
)
def test_object_meta_rules(obj: dict, expected: list[str]) -> None:
    assert rendered_errors(obj) == expected
