"""resource.k8s.io/v1 validation: one broken rule per case, checked against upstream's message."""

from __future__ import annotations

import pytest

from validation_fixtures import (
    admin_claim,
    allocated_claim,
    claim_template,
    counter_slice,
    device_class,
    device_taint_rule,
    gpu_device,
    partitionable_slice,
    rendered_errors,
    resource_claim,
    resource_slice,
    shared_device_slice,
    with_value,
    without,
)

LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    r"for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
C_IDENT_MSG = (
    "a valid C identifier must start with alphabetic character or '_', followed by a string of "
    "alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for "
    "validation is '[A-Za-z_][A-Za-z0-9_]*')"
)
LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  "
    "or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
REF_MSG = (
    "must be the name of a request in the claim or the name of a request and a subrequest "
    "separated by '/'"
)
REQ = ("spec", "devices", "requests")
EXACT = (*REQ, 0, "exactly")
SUB = (*REQ, 1, "firstAvailable")


def _many(item: object, n: int) -> list:
    return [item] * n


VALID_OBJECTS = {
    "device class": device_class(),
    "claim with prioritized list, constraint and config": resource_claim(),
    "claim with admin access": admin_claim(),
    "allocated and reserved claim": allocated_claim(),
    "claim template": claim_template(),
    "slice of three GPUs": resource_slice(),
    "partitionable devices with taints": partitionable_slice(),
    "shared counters": counter_slice(),
    "consumable capacity with per-device node selection": shared_device_slice(),
    "device taint rule": device_taint_rule(),
    "claim generated from generateName": with_value(
        without(resource_claim(), ("metadata", "name")), ("metadata", "generateName"), "train-"
    ),
    "slice with node selector": with_value(
        without(resource_slice(), ("spec", "nodeName")),
        ("spec", "nodeSelector"),
        {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "rack", "operator": "In", "values": ["r1"]}]}
            ]
        },
    ),
    "slice with 128 devices": with_value(
        resource_slice(), ("spec", "devices"), [gpu_device(f"gpu-{i}") for i in range(128)]
    ),
    "taint rule without selector": without(device_taint_rule(), ("spec", "deviceSelector")),
    "empty claim": {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "empty", "namespace": "default"},
        "spec": {"devices": {}},
    },
}


@pytest.mark.parametrize("obj", VALID_OBJECTS.values(), ids=VALID_OBJECTS.keys())
def test_realistic_objects_are_valid(obj: dict) -> None:
    assert rendered_errors(obj) == []


# (id, object, expected errors rendered like the apiserver)
INVALID_CASES = [
    # --- claim requests ---
    (
        "count must be positive",
        with_value(resource_claim(), (*EXACT, "count"), -1),
        ["spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero"],
    ),
    (
        "unknown allocation mode",
        with_value(resource_claim(), (*EXACT, "allocationMode"), "Foo"),
        [
            'spec.devices.requests[0].exactly.allocationMode: Unsupported value: "Foo": '
            'supported values: "All", "ExactCount"'
        ],
    ),
    (
        "count with mode All",
        with_value(resource_claim(), (*EXACT, "allocationMode"), "All"),
        [
            "spec.devices.requests[0].exactly.count: Invalid value: 2: must not be specified "
            "when allocationMode is 'All'"
        ],
    ),
    (
        "request without exactly or firstAvailable",
        without(resource_claim(), (*REQ, 0, "exactly")),
        [
            "spec.devices.requests[0]: Required value: exactly one of `exactly` or "
            "`firstAvailable` is required"
        ],
    ),
    (
        "request with exactly and firstAvailable",
        with_value(resource_claim(), (*REQ, 1, "exactly"), {"deviceClassName": "nic.example.com"}),
        [
            "spec.devices.requests[1]: Invalid value: null: exactly one of `exactly` or "
            "`firstAvailable` is required, but multiple fields are set"
        ],
    ),
    (
        "too many requests",
        with_value(
            admin_claim(),
            REQ,
            [
                {"name": f"r{i}", "exactly": {"deviceClassName": "c", "allocationMode": "All"}}
                for i in range(33)
            ],
        ),
        ["spec.devices.requests: Too many: 33: must have at most 32 items"],
    ),
    (
        "too many subrequests",
        with_value(
            resource_claim(),
            SUB,
            [
                {
                    "name": f"s{i}",
                    "deviceClassName": "c",
                    "allocationMode": "ExactCount",
                    "count": 1,
                }
                for i in range(9)
            ],
        ),
        [
            "spec.devices.requests[1].firstAvailable: Too many: 9: must have at most 8 items",
            f'spec.devices.constraints[0].requests[1]: Invalid value: "nic/fast": {REF_MSG}',
        ],
    ),
    (
        "duplicate request name",
        with_value(resource_claim(), (*REQ, 1, "name"), "gpu"),
        [
            'spec.devices.requests[1]: Duplicate value: "gpu"',
            # The second "gpu" replaces the first in the name table, so "nic/fast" is unknown.
            f'spec.devices.constraints[0].requests[1]: Invalid value: "nic/fast": {REF_MSG}',
        ],
    ),
    (
        "duplicate subrequest name",
        with_value(resource_claim(), (*SUB, 1, "name"), "fast"),
        ['spec.devices.requests[1].firstAvailable[1]: Duplicate value: "fast"'],
    ),
    (
        "request name not a DNS label",
        with_value(admin_claim(), (*REQ, 0, "name"), "All_GPUs"),
        [f'spec.devices.requests[0].name: Invalid value: "All_GPUs": {LABEL_MSG}'],
    ),
    (
        "missing device class",
        without(resource_claim(), (*EXACT, "deviceClassName")),
        ["spec.devices.requests[0].exactly.deviceClassName: Required value"],
    ),
    (
        "device class name not a subdomain",
        with_value(resource_claim(), (*SUB, 0, "deviceClassName"), "NIC"),
        [
            "spec.devices.requests[1].firstAvailable[0].deviceClassName: Invalid value: "
            f'"NIC": {SUBDOMAIN_MSG}'
        ],
    ),
    (
        "selector without cel",
        with_value(resource_claim(), (*EXACT, "selectors"), [{}]),
        ["spec.devices.requests[0].exactly.selectors[0].cel: Required value"],
    ),
    (
        "too many selectors",
        with_value(
            resource_claim(), (*EXACT, "selectors"), _many({"cel": {"expression": "true"}}, 33)
        ),
        ["spec.devices.requests[0].exactly.selectors: Too many: 33: must have at most 32 items"],
    ),
    (
        "selector longer than 10 Ki",
        with_value(
            resource_claim(),
            (*SUB, 0, "selectors"),
            [{"cel": {"expression": "true" + " " * 10237}}],
        ),
        [
            "spec.devices.requests[1].firstAvailable[0].selectors[0].cel.expression: Too long: "
            "may not be more than 10240 bytes"
        ],
    ),
    (
        "toleration with unknown operator",
        with_value(resource_claim(), (*EXACT, "tolerations", 0, "operator"), "Foo"),
        [
            "spec.devices.requests[0].exactly.tolerations[0].operator: Unsupported value: "
            '"Foo": supported values: "Equal", "Exists"'
        ],
    ),
    (
        "toleration Exists with a value",
        with_value(resource_claim(), (*EXACT, "tolerations", 0, "value"), "x"),
        [
            'spec.devices.requests[0].exactly.tolerations[0].value: Invalid value: "x": '
            "must be empty for operator `Exists`"
        ],
    ),
    (
        "toleration without operator",
        without(resource_claim(), (*EXACT, "tolerations", 0, "operator")),
        ["spec.devices.requests[0].exactly.tolerations[0].operator: Required value"],
    ),
    (
        "toleration with node-only effect",
        with_value(resource_claim(), (*EXACT, "tolerations", 0, "effect"), "PreferNoSchedule"),
        [
            "spec.devices.requests[0].exactly.tolerations[0].effect: Unsupported value: "
            '"PreferNoSchedule": supported values: "NoExecute", "NoSchedule", "None"'
        ],
    ),
    (
        "toleration Equal with bad value",
        with_value(
            with_value(resource_claim(), (*EXACT, "tolerations", 0, "operator"), "Equal"),
            (*EXACT, "tolerations", 0, "value"),
            "not ok",
        ),
        [
            'spec.devices.requests[0].exactly.tolerations[0].value: Invalid value: "not ok": '
            + LABEL_VALUE_MSG
        ],
    ),
    # --- constraints ---
    (
        "constraint names unknown request",
        with_value(resource_claim(), ("spec", "devices", "constraints", 0, "requests", 1), "tpu"),
        [f'spec.devices.constraints[0].requests[1]: Invalid value: "tpu": {REF_MSG}'],
    ),
    (
        "constraint names unknown subrequest",
        with_value(
            resource_claim(), ("spec", "devices", "constraints", 0, "requests", 1), "nic/slow"
        ),
        [f'spec.devices.constraints[0].requests[1]: Invalid value: "nic/slow": {REF_MSG}'],
    ),
    (
        "constraint reference with two slashes",
        with_value(
            resource_claim(), ("spec", "devices", "constraints", 0, "requests", 1), "nic/fast/x"
        ),
        [f'spec.devices.constraints[0].requests[1]: Invalid value: "nic/fast/x": {REF_MSG}'],
    ),
    (
        "duplicate constraint request",
        with_value(resource_claim(), ("spec", "devices", "constraints", 0, "requests", 1), "gpu"),
        ['spec.devices.constraints[0].requests[1]: Duplicate value: "gpu"'],
    ),
    (
        "constraint without attribute",
        without(resource_claim(), ("spec", "devices", "constraints", 0, "matchAttribute")),
        [
            'spec.devices.constraints[0]: Required value: exactly one of "matchAttribute" or '
            '"distinctAttribute" is required, but multiple fields are set'
        ],
    ),
    (
        "match attribute without domain",
        with_value(
            resource_claim(), ("spec", "devices", "constraints", 0, "matchAttribute"), "numa"
        ),
        [
            'spec.devices.constraints[0].matchAttribute: Invalid value: "numa": a fully '
            "qualified name must be a domain and a name separated by a slash"
        ],
    ),
    (
        "distinct attribute with bad identifier",
        with_value(
            without(resource_claim(), ("spec", "devices", "constraints", 0, "matchAttribute")),
            ("spec", "devices", "constraints", 0, "distinctAttribute"),
            "example.com/pci-root",
        ),
        [
            'spec.devices.constraints[0].distinctAttribute: Invalid value: "pci-root": '
            + C_IDENT_MSG
        ],
    ),
    (
        "too many constraints",
        with_value(
            resource_claim(),
            ("spec", "devices", "constraints"),
            _many({"matchAttribute": "a.b/c"}, 33),
        ),
        ["spec.devices.constraints: Too many: 33: must have at most 32 items"],
    ),
    # --- config ---
    (
        "config without opaque",
        without(resource_claim(), ("spec", "devices", "config", 0, "opaque")),
        ["spec.devices.config[0].opaque: Required value"],
    ),
    (
        "opaque config without driver",
        without(resource_claim(), ("spec", "devices", "config", 0, "opaque", "driver")),
        ["spec.devices.config[0].opaque.driver: Required value"],
    ),
    (
        "opaque config without parameters",
        without(resource_claim(), ("spec", "devices", "config", 0, "opaque", "parameters")),
        ["spec.devices.config[0].opaque.parameters: Required value"],
    ),
    (
        "opaque parameters not an object",
        with_value(
            resource_claim(), ("spec", "devices", "config", 0, "opaque", "parameters"), [1, 2]
        ),
        [
            'spec.devices.config[0].opaque.parameters: Invalid value: "<value omitted>": '
            "must be a valid JSON object"
        ],
    ),
    (
        "opaque parameters larger than 10 Ki",
        with_value(
            resource_claim(),
            ("spec", "devices", "config", 0, "opaque", "parameters"),
            {"x": "y" * 10240},
        ),
        ["spec.devices.config[0].opaque.parameters: Too long: may not be more than 10240 bytes"],
    ),
    (
        "config for unknown request",
        with_value(resource_claim(), ("spec", "devices", "config", 0, "requests"), ["gpu", "fpga"]),
        [f'spec.devices.config[0].requests[1]: Invalid value: "fpga": {REF_MSG}'],
    ),
    (
        "config driver not a subdomain",
        with_value(resource_claim(), ("spec", "devices", "config", 0, "opaque", "driver"), "gpu_x"),
        [f'spec.devices.config[0].opaque.driver: Invalid value: "gpu_x": {SUBDOMAIN_MSG}'],
    ),
    (
        "too many configs",
        with_value(
            resource_claim(),
            ("spec", "devices", "config"),
            _many({"opaque": {"driver": "d.example.com", "parameters": {}}}, 33),
        ),
        ["spec.devices.config: Too many: 33: must have at most 32 items"],
    ),
    # --- claim metadata ---
    (
        "claim without namespace",
        without(resource_claim(), ("metadata", "namespace")),
        ["metadata.namespace: Required value"],
    ),
    (
        "claim without name",
        without(resource_claim(), ("metadata", "name")),
        ["metadata.name: Required value: name or generateName is required"],
    ),
    (
        "claim name not a subdomain",
        with_value(resource_claim(), ("metadata", "name"), "Training"),
        [f'metadata.name: Invalid value: "Training": {SUBDOMAIN_MSG}'],
    ),
    (
        "namespace not a label",
        with_value(resource_claim(), ("metadata", "namespace"), "team.a"),
        ['metadata.namespace: Invalid value: "team.a": must not contain dots'],
    ),
    (
        "bad label value",
        with_value(resource_claim(), ("metadata", "labels"), {"app": "-bad-"}),
        [f'metadata.labels: Invalid value: "-bad-": {LABEL_VALUE_MSG}'],
    ),
    (
        "bad annotation key",
        with_value(resource_claim(), ("metadata", "annotations"), {"a/b/c": "x"}),
        [
            'metadata.annotations: Invalid value: "a/b/c": a valid label key must consist of '
            "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
            "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and "
            "'/' (e.g. 'example.com/MyName')"
        ],
    ),
    (
        "bad generateName",
        with_value(
            without(resource_claim(), ("metadata", "name")), ("metadata", "generateName"), "Train-"
        ),
        [f'metadata.generateName: Invalid value: "Train-": {SUBDOMAIN_MSG}'],
    ),
    # --- template ---
    (
        "template metadata with name",
        with_value(claim_template(), ("spec", "metadata", "name"), "fixed"),
        ["spec.metadata.name: Forbidden: cannot be set"],
    ),
    (
        "template request count",
        with_value(
            claim_template(), ("spec", "spec", "devices", "requests", 0, "exactly", "count"), 0
        ),
        [
            "spec.spec.devices.requests[0].exactly.count: Invalid value: 0: must be greater than "
            "zero"
        ],
    ),
    # --- device class ---
    (
        "device class with namespace",
        with_value(device_class(), ("metadata", "namespace"), "default"),
        ["metadata.namespace: Forbidden: not allowed on this type"],
    ),
    (
        "device class selector too long",
        with_value(device_class(), ("spec", "selectors", 0, "cel", "expression"), "x" * 10241),
        ["spec.selectors[0].cel.expression: Too long: may not be more than 10240 bytes"],
    ),
    (
        "device class with too many selectors",
        with_value(
            device_class(), ("spec", "selectors"), _many({"cel": {"expression": "true"}}, 33)
        ),
        ["spec.selectors: Too many: 33: must have at most 32 items"],
    ),
    (
        "device class config without opaque",
        with_value(device_class(), ("spec", "config"), [{}]),
        ["spec.config[0].opaque: Required value"],
    ),
    (
        "extended resource name without domain",
        with_value(device_class(), ("spec", "extendedResourceName"), "gpu"),
        ['spec.extendedResourceName: Invalid value: "gpu": must be a valid extended resource name'],
    ),
    (
        "extended resource name in kubernetes.io",
        with_value(device_class(), ("spec", "extendedResourceName"), "kubernetes.io/gpu"),
        [
            'spec.extendedResourceName: Invalid value: "kubernetes.io/gpu": must be a valid '
            "extended resource name"
        ],
    ),
    # --- device taint rule ---
    (
        "taint rule with unknown effect",
        with_value(device_taint_rule(), ("spec", "taint", "effect"), "Evict"),
        [
            'spec.taint.effect: Unsupported value: "Evict": supported values: "NoExecute", '
            '"NoSchedule", "None"'
        ],
    ),
    (
        "taint rule without effect",
        without(device_taint_rule(), ("spec", "taint", "effect")),
        ["spec.taint.effect: Required value"],
    ),
    (
        "taint rule with bad device name",
        with_value(device_taint_rule(), ("spec", "deviceSelector", "device"), "GPU-0"),
        [f'spec.deviceSelector.device: Invalid value: "GPU-0": {LABEL_MSG}'],
    ),
    (
        "taint rule with empty pool",
        with_value(device_taint_rule(), ("spec", "deviceSelector", "pool"), ""),
        ["spec.deviceSelector.pool: Required value"],
    ),
    (
        "taint rule without key",
        without(device_taint_rule(), ("spec", "taint", "key")),
        [
            'spec.taint.key: Invalid value: "": name part must be non-empty',
            'spec.taint.key: Invalid value: "": name part must consist of alphanumeric characters, '
            "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',"
            "  or 'my.name',  or '123-abc', regex used for validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ],
    ),
]


@pytest.mark.parametrize(
    ("obj", "expected"), [(c[1], c[2]) for c in INVALID_CASES], ids=[c[0] for c in INVALID_CASES]
)
def test_invalid_claims_classes_and_rules(obj: dict, expected: list[str]) -> None:
    assert rendered_errors(obj) == expected
