"""ResourceSlice and claim status validation against upstream's rules and messages."""

from __future__ import annotations

import pytest

from validation_fixtures import (
    allocated_claim,
    counter_slice,
    gpu_device,
    partitionable_slice,
    rendered_errors,
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
SELECTION = "`nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection`"
DEVICE_SELECTION = (
    "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
    "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"
)
DEV0 = ("spec", "devices", 0)
NIC0 = ("spec", "devices", 0)
BANDWIDTH = (*NIC0, "capacity", "bandwidth", "requestPolicy")
QUEUES = (*NIC0, "capacity", "queues", "requestPolicy")
TAINT = {"key": "example.com/t", "effect": "NoSchedule"}


def _devices(n: int, **extra: object) -> list[dict]:
    return [{**gpu_device(f"gpu-{i}"), **extra} for i in range(n)]


SLICE_CASES = [
    # --- slice level ---
    (
        "more than 128 devices",
        with_value(resource_slice(), ("spec", "devices"), _devices(129)),
        ["spec.devices: Too many: 129: must have at most 128 items"],
    ),
    (
        "more than 64 devices when one has taints",
        with_value(
            with_value(resource_slice(), ("spec", "devices"), _devices(65)),
            (*DEV0, "taints"),
            [TAINT],
        ),
        ["spec.devices: Too many: 65: must have at most 64 items"],
    ),
    (
        "more than 64 devices when one consumes counters",
        with_value(
            with_value(resource_slice(), ("spec", "devices"), _devices(65)),
            (*DEV0, "consumesCounters"),
            [{"counterSet": "c", "counters": {"m": {"value": "1"}}}],
        ),
        ["spec.devices: Too many: 65: must have at most 64 items"],
    ),
    (
        "64 devices with taints are fine",
        with_value(resource_slice(), ("spec", "devices"), _devices(64, taints=[TAINT])),
        [],
    ),
    (
        "no node selection",
        without(resource_slice(), ("spec", "nodeName")),
        [f"spec: Required value: exactly one of {SELECTION} is required"],
    ),
    (
        "two node selections",
        with_value(resource_slice(), ("spec", "allNodes"), True),
        [
            'spec: Invalid value: "{`nodeName`, `allNodes`}": exactly one of '
            f"{SELECTION} is required, but multiple fields are set"
        ],
    ),
    (
        "empty node name",
        with_value(
            with_value(resource_slice(), ("spec", "nodeName"), ""), ("spec", "allNodes"), True
        ),
        ['spec.nodeName: Invalid value: "": must be either unset or set to a non-empty string'],
    ),
    (
        "allNodes false",
        with_value(resource_slice(), ("spec", "allNodes"), False),
        ["spec.allNodes: Invalid value: false: must be either unset or set to true"],
    ),
    (
        "node selector without terms",
        with_value(without(resource_slice(), ("spec", "nodeName")), ("spec", "nodeSelector"), {}),
        [
            "spec.nodeSelector.nodeSelectorTerms: Required value: must have at least one node "
            "selector term",
            "spec.nodeSelector.nodeSelectorTerms: Invalid value: null: must have exactly one node "
            "selector term",
        ],
    ),
    (
        "node selector with a bad label value",
        with_value(
            without(resource_slice(), ("spec", "nodeName")),
            ("spec", "nodeSelector"),
            {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "foo", "operator": "In", "values": ["-1"]}]}
                ]
            },
        ),
        [
            "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: "
            '"-1": a valid label must be an empty string or consist of alphanumeric characters, '
            "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
            "'MyValue',"
            "  or 'my_value',  or '12345', regex used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
        ],
    ),
    (
        "node selector with unknown operator",
        with_value(
            without(resource_slice(), ("spec", "nodeName")),
            ("spec", "nodeSelector"),
            {"nodeSelectorTerms": [{"matchExpressions": [{"key": "foo", "operator": "Near"}]}]},
        ),
        [
            "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: "
            '"Near": not a valid selector operator'
        ],
    ),
    (
        "node name not a subdomain",
        with_value(resource_slice(), ("spec", "nodeName"), "Node_1"),
        [f'spec.nodeName: Invalid value: "Node_1": {SUBDOMAIN_MSG}'],
    ),
    (
        "devices and shared counters together",
        with_value(
            resource_slice(), ("spec", "sharedCounters"), counter_slice()["spec"]["sharedCounters"]
        ),
        ['spec: Invalid value: "": only one of `sharedCounters` or `devices` is allowed'],
    ),
    (
        "missing driver",
        without(resource_slice(), ("spec", "driver")),
        ["spec.driver: Required value"],
    ),
    (
        "driver name too long",
        with_value(resource_slice(), ("spec", "driver"), "a" * 60 + ".com"),
        ["spec.driver: Too long: may not be more than 63 bytes"],
    ),
    (
        "driver name not a subdomain",
        with_value(resource_slice(), ("spec", "driver"), "gpu_example"),
        [f'spec.driver: Invalid value: "gpu_example": {SUBDOMAIN_MSG}'],
    ),
    (
        "pool problems",
        with_value(
            with_value(
                with_value(resource_slice(), ("spec", "pool", "name"), "rack-1//node"),
                ("spec", "pool", "resourceSliceCount"),
                0,
            ),
            ("spec", "pool", "generation"),
            -1,
        ),
        [
            f'spec.pool.name: Invalid value: "": {SUBDOMAIN_MSG}',
            "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero",
            "spec.pool.generation: Invalid value: -1: must be greater than or equal to zero",
        ],
    ),
    (
        "missing pool name",
        without(resource_slice(), ("spec", "pool", "name")),
        ["spec.pool.name: Required value"],
    ),
    (
        "pool name longer than 253",
        with_value(resource_slice(), ("spec", "pool", "name"), "x/" * 126 + "xy"),
        ["spec.pool.name: Too long: may not be more than 253 bytes"],
    ),
    # --- devices ---
    (
        "duplicate device names",
        with_value(resource_slice(), ("spec", "devices", 2, "name"), "gpu-0"),
        ['spec.devices[2]: Duplicate value: "gpu-0"'],
    ),
    (
        "device name not a label",
        with_value(resource_slice(), ("spec", "devices", 1, "name"), "gpu.1"),
        ['spec.devices[1].name: Invalid value: "gpu.1": must not contain dots'],
    ),
    (
        "attribute without value",
        with_value(resource_slice(), (*DEV0, "attributes", "model"), {}),
        [
            'spec.devices[0].attributes[model]: Invalid value: "": exactly one value must be '
            "specified"
        ],
    ),
    (
        "attribute with two values",
        with_value(
            resource_slice(), (*DEV0, "attributes", "model"), {"string": "x", "version": "1.2.3"}
        ),
        [
            'spec.devices[0].attributes[model]: Invalid value: {"IntValue":null,"BoolValue":null,'
            '"StringValue":"x","VersionValue":"1.2.3","IntValues":null,"BoolValues":null,'
            '"StringValues":null,"VersionValues":null}: exactly one value must be specified'
        ],
    ),
    (
        "version not strict semver",
        with_value(resource_slice(), (*DEV0, "attributes", "driverVersion"), {"version": "v1.2"}),
        [
            'spec.devices[0].attributes[driverVersion].version: Invalid value: "v1.2": must be a '
            "string compatible with semver.org spec 2.0.0"
        ],
    ),
    (
        "version longer than 64",
        with_value(
            resource_slice(),
            (*DEV0, "attributes", "driverVersion"),
            {"version": "1.0.0-" + "a" * 59},
        ),
        [
            "spec.devices[0].attributes[driverVersion].version: Too long: may not be more than 64 "
            "bytes"
        ],
    ),
    (
        "string longer than 64",
        with_value(resource_slice(), (*DEV0, "attributes", "model"), {"string": "x" * 65}),
        ["spec.devices[0].attributes[model].string: Too long: may not be more than 64 bytes"],
    ),
    (
        "attribute name not a C identifier",
        with_value(resource_slice(), (*DEV0, "attributes", "pci-root"), {"string": "x"}),
        [f'spec.devices[0].attributes: Invalid value: "pci-root": {C_IDENT_MSG}'],
    ),
    (
        "attribute identifier longer than 32",
        with_value(resource_slice(), (*DEV0, "attributes", "a" * 33), {"string": "x"}),
        ["spec.devices[0].attributes: Too long: may not be more than 32 bytes"],
    ),
    (
        "attribute domain not a subdomain",
        with_value(resource_slice(), (*DEV0, "capacity", "Example.com_/memory"), {"value": "1"}),
        [f'spec.devices[0].capacity: Invalid value: "Example.com_": {SUBDOMAIN_MSG}'],
    ),
    (
        "attribute domain longer than 63",
        with_value(resource_slice(), (*DEV0, "attributes", "a" * 64 + "/x"), {"int": 1}),
        ["spec.devices[0].attributes: Too long: may not be more than 63 bytes"],
    ),
    (
        "attribute with empty domain and name",
        with_value(resource_slice(), (*DEV0, "attributes", "/"), {"int": 1}),
        [
            'spec.devices[0].attributes: Invalid value: "": the domain must not be empty',
            'spec.devices[0].attributes: Invalid value: "": the name must not be empty',
        ],
    ),
    (
        "attribute name with two slashes",
        with_value(resource_slice(), (*DEV0, "attributes", "a.com/b/c"), {"int": 1}),
        [
            'spec.devices[0].attributes: Invalid value: "a.com/b/c": must not contain more than '
            "one slash"
        ],
    ),
    (
        "more than 32 attributes and capacities",
        with_value(
            resource_slice(),
            (*DEV0, "capacity"),
            {f"cap{i}": {"value": "1"} for i in range(28)},
        ),
        [
            "spec.devices[0]: Invalid value: 33: the total number of attributes and capacities "
            "must not exceed 32"
        ],
    ),
    (
        "empty list attribute",
        with_value(resource_slice(), (*DEV0, "attributes", "models"), {"strings": []}),
        [
            "spec.devices[0].attributes[models].strings: Invalid value: []: must not be empty if "
            "specified"
        ],
    ),
    (
        "too many taints",
        with_value(resource_slice(), (*DEV0, "taints"), [TAINT] * 17),
        ["spec.devices[0].taints: Too many: 17: must have at most 16 items"],
    ),
    (
        "taint with unknown effect",
        with_value(
            resource_slice(), (*DEV0, "taints"), [{"key": "example.com/t", "effect": "Evict"}]
        ),
        [
            'spec.devices[0].taints[0].effect: Unsupported value: "Evict": supported values: '
            '"NoExecute", "NoSchedule", "None"'
        ],
    ),
    (
        "taint with bad value",
        with_value(
            resource_slice(), (*DEV0, "taints"), [{"key": "k", "value": "a b", "effect": "None"}]
        ),
        [
            'spec.devices[0].taints[0].value: Invalid value: "a b": a valid label must be an empty '
            "string or consist of alphanumeric characters, '-', '_' or '.', and must start and end "
            "with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex "
            "used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
        ],
    ),
    # --- counters ---
    (
        "too many counter consumptions",
        with_value(
            partitionable_slice(),
            (*DEV0, "consumesCounters"),
            [{"counterSet": f"set-{i}", "counters": {"m": {"value": "1"}}} for i in range(3)],
        ),
        ["spec.devices[0].consumesCounters: Too many: 3: must have at most 2 items"],
    ),
    (
        "duplicate counter set consumption",
        with_value(
            partitionable_slice(),
            (*DEV0, "consumesCounters"),
            [{"counterSet": "s", "counters": {"m": {"value": "1"}}}] * 2,
        ),
        ['spec.devices[0].consumesCounters[1]: Duplicate value: "s"'],
    ),
    (
        "consumption without counters",
        with_value(partitionable_slice(), (*DEV0, "consumesCounters"), [{"counterSet": "s"}]),
        ["spec.devices[0].consumesCounters[0].counters: Required value"],
    ),
    (
        "consumption without counter set",
        with_value(
            partitionable_slice(),
            (*DEV0, "consumesCounters"),
            [{"counters": {"m": {"value": "1"}}}],
        ),
        ["spec.devices[0].consumesCounters[0].counterSet: Required value"],
    ),
    (
        "counter name not a label",
        with_value(
            partitionable_slice(),
            (*DEV0, "consumesCounters"),
            [{"counterSet": "s", "counters": {"Memory": {"value": "1"}}}],
        ),
        [f'spec.devices[0].consumesCounters[0].counters: Invalid value: "Memory": {LABEL_MSG}'],
    ),
    (
        "too many counter sets",
        with_value(
            counter_slice(),
            ("spec", "sharedCounters"),
            [{"name": f"set-{i}", "counters": {"m": {"value": "1"}}} for i in range(9)],
        ),
        ["spec.sharedCounters: Too many: 9: must have at most 8 items"],
    ),
    (
        "duplicate counter set",
        with_value(
            counter_slice(),
            ("spec", "sharedCounters"),
            [{"name": "s", "counters": {"m": {"value": "1"}}}] * 2,
        ),
        ['spec.sharedCounters[1]: Duplicate value: "s"'],
    ),
    (
        "counter set without counters or name",
        with_value(counter_slice(), ("spec", "sharedCounters"), [{}]),
        [
            "spec.sharedCounters[0].name: Required value",
            "spec.sharedCounters[0].counters: Required value",
        ],
    ),
    (
        "too many counters in a set",
        with_value(
            counter_slice(),
            ("spec", "sharedCounters", 0, "counters"),
            {f"c{i}": {"value": "1"} for i in range(33)},
        ),
        ["spec.sharedCounters[0].counters: Too many: 33: must have at most 32 items"],
    ),
    # --- per-device node selection ---
    (
        "device without node selection under perDeviceNodeSelection",
        without(shared_device_slice(), (*NIC0, "nodeName")),
        [f"spec.devices[0]: Required value: {DEVICE_SELECTION}"],
    ),
    (
        "device with two node selections",
        with_value(shared_device_slice(), (*NIC0, "allNodes"), True),
        [f'spec.devices[0]: Invalid value: "{{`nodeName`, `allNodes`}}": {DEVICE_SELECTION}'],
    ),
    (
        "device node selection without perDeviceNodeSelection",
        with_value(resource_slice(), (*DEV0, "allNodes"), True),
        [
            "spec.devices[0]: Invalid value: null: `nodeName`, `nodeSelector` and `allNodes` can "
            "only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec"
        ],
    ),
    (
        "perDeviceNodeSelection false",
        with_value(resource_slice(), ("spec", "perDeviceNodeSelection"), False),
        ["spec.perDeviceNodeSelection: Invalid value: false: must be either unset or set to true"],
    ),
    # --- binding conditions ---
    (
        "too many binding conditions",
        with_value(
            shared_device_slice(), (*NIC0, "bindingConditions"), [f"c{i}" for i in range(5)]
        ),
        ["spec.devices[0].bindingConditions: Too many: 5: must have at most 4 items"],
    ),
    (
        "binding failure conditions without binding conditions",
        without(shared_device_slice(), (*NIC0, "bindingConditions")),
        [
            "spec.devices[0].bindingConditions: Invalid value: null: bindingConditions are "
            "required to use bindingFailureConditions"
        ],
    ),
    (
        "overlapping binding conditions",
        with_value(
            shared_device_slice(), (*NIC0, "bindingFailureConditions"), ["example.com/attached"]
        ),
        [
            'spec.devices[0].bindingFailureConditions[0]: Invalid value: "example.com/attached": '
            "bindingFailureConditions must not overlap with bindingConditions"
        ],
    ),
    # --- consumable capacity ---
    (
        "request policy without multiple allocations",
        without(shared_device_slice(), (*NIC0, "allowMultipleAllocations")),
        [
            "spec.devices[0].capacity[bandwidth].requestPolicy: Forbidden: "
            "allowMultipleAllocations "
            "must be true",
            "spec.devices[0].capacity[queues].requestPolicy: Forbidden: allowMultipleAllocations "
            "must be true",
        ],
    ),
    (
        "valid values and range together",
        with_value(shared_device_slice(), (*QUEUES, "validRange"), {"min": "1"}),
        [
            "spec.devices[0].capacity[queues].requestPolicy: Forbidden: exactly one policy can be "
            'specified, cannot specify "validValues" and "validRange" at the same time'
        ],
    ),
    (
        "default not among valid values",
        with_value(shared_device_slice(), (*QUEUES, "default"), "3"),
        [
            'spec.devices[0].capacity[queues].requestPolicy.validValues: Invalid value: "3": '
            "default value is not valid according to the requestPolicy"
        ],
    ),
    (
        "valid values unsorted and above capacity",
        with_value(shared_device_slice(), (*QUEUES, "validValues"), ["1", "32", "4"]),
        [
            'spec.devices[0].capacity[queues].requestPolicy.validValues[2]: Invalid value: "4": '
            "values must be sorted in ascending order",
            'spec.devices[0].capacity[queues].requestPolicy.validValues[1]: Invalid value: "32": '
            "option is larger than capacity value: 16",
        ],
    ),
    (
        "valid values without default",
        without(shared_device_slice(), (*QUEUES, "default")),
        [
            "spec.devices[0].capacity[queues].requestPolicy.default: Required value: required when "
            "validValues is defined"
        ],
    ),
    (
        "range step not a multiple",
        with_value(shared_device_slice(), (*BANDWIDTH, "default"), "1536Mi"),
        [
            "spec.devices[0].capacity[bandwidth].requestPolicy.validRange.step: Invalid value: "
            '"1536Mi": value is not a multiple of a given step (1Gi) from (1Gi)'
        ],
    ),
    (
        "range min above capacity and default below min",
        with_value(shared_device_slice(), (*BANDWIDTH, "validRange"), {"min": "200Gi"}),
        [
            "spec.devices[0].capacity[bandwidth].requestPolicy.validRange.min: Invalid value: "
            '"200Gi": min is larger than capacity value: 100Gi',
            "spec.devices[0].capacity[bandwidth].requestPolicy.validRange.default: Invalid value: "
            '"1Gi": default is less than min: 200Gi',
        ],
    ),
    (
        "range step zero",
        with_value(shared_device_slice(), (*BANDWIDTH, "validRange", "step"), "0"),
        [
            "spec.devices[0].capacity[bandwidth].requestPolicy.validRange.step: Invalid value: "
            '"0": must be greater than zero'
        ],
    ),
    (
        "range without min",
        with_value(shared_device_slice(), (*BANDWIDTH, "validRange"), {"max": "2Gi"}),
        [
            "spec.devices[0].capacity[bandwidth].requestPolicy.validRange.min: Required value: "
            "required when validRange is defined"
        ],
    ),
    (
        "partition type attribute without partitionable devices",
        with_value(resource_slice(), ("spec", "partitionTypeAttribute"), "gpu.example.com/model"),
        [
            'spec.partitionTypeAttribute: Invalid value: "gpu.example.com/model": may only be set '
            "on a slice which declares devices that consume counters"
        ],
    ),
    (
        "partition type attribute missing on a partition",
        with_value(
            partitionable_slice(), ("spec", "partitionTypeAttribute"), "gpu.example.com/kind"
        ),
        [
            "spec.devices[0].attributes[gpu.example.com/kind]: Required value: device consumes "
            "counters and `partitionTypeAttribute` names this attribute, so it must be set",
            "spec.devices[1].attributes[gpu.example.com/kind]: Required value: device consumes "
            "counters and `partitionTypeAttribute` names this attribute, so it must be set",
        ],
    ),
    (
        "partition type attribute names a bare string attribute",
        with_value(
            partitionable_slice(), ("spec", "partitionTypeAttribute"), "gpu.example.com/profile"
        ),
        [],
    ),
]


@pytest.mark.parametrize(
    ("obj", "expected"), [(c[1], c[2]) for c in SLICE_CASES], ids=[c[0] for c in SLICE_CASES]
)
def test_resource_slice_rules(obj: dict, expected: list[str]) -> None:
    assert rendered_errors(obj) == expected


RESULTS = ("status", "allocation", "devices", "results")

STATUS_CASES = [
    (
        "reservedFor above 256",
        with_value(
            allocated_claim(),
            ("status", "reservedFor"),
            [{"resource": "pods", "name": f"p{i}", "uid": f"uid-{i}"} for i in range(257)],
        ),
        ["status.reservedFor: Too many: 257: must have at most 256 items"],
    ),
    (
        "reservation without allocation",
        without(allocated_claim(), ("status", "allocation")),
        ["status.reservedFor: Forbidden: may not be specified when `allocated` is not set"],
    ),
    (
        "incomplete reservation",
        with_value(allocated_claim(), ("status", "reservedFor"), [{"resource": "pods"}]),
        ["status.reservedFor[0].name: Required value", "status.reservedFor[0].uid: Required value"],
    ),
    (
        "duplicate reservation",
        with_value(
            allocated_claim(),
            ("status", "reservedFor"),
            [
                {"resource": "pods", "name": "a", "uid": "u1"},
                {"resource": "pods", "name": "b", "uid": "u1"},
            ],
        ),
        ['status.reservedFor[1]: Duplicate value: "u1"'],
    ),
    (
        "result for unknown request",
        with_value(allocated_claim(), (*RESULTS, 0, "request"), "tpu"),
        [
            'status.allocation.devices.results[0].request: Invalid value: "tpu": must be the name '
            "of a request in the claim or the name of a request and a subrequest separated by '/'"
        ],
    ),
    (
        "result without driver",
        without(allocated_claim(), (*RESULTS, 0, "driver")),
        ["status.allocation.devices.results[0].driver: Required value"],
    ),
    (
        "result with uppercase share ID",
        with_value(
            allocated_claim(), (*RESULTS, 0, "shareID"), "2D5A4B8E-3F1C-4C2A-9D7E-1A2B3C4D5E6F"
        ),
        [
            'status.allocation.devices.results[0].shareID: Invalid value: "2D5A4B8E-3F1C-4C2A-9D7E-'
            '1A2B3C4D5E6F": uid must be in RFC 4122 normalized form, `xxxxxxxx-xxxx-xxxx-xxxx-'
            "xxxxxxxxxxxx` with lowercase hexadecimal characters"
        ],
    ),
    (
        "result with malformed share ID",
        with_value(allocated_claim(), (*RESULTS, 0, "shareID"), "not-a-uuid"),
        [
            'status.allocation.devices.results[0].shareID: Invalid value: "not-a-uuid": error '
            "validating uid: invalid UUID length: 10"
        ],
    ),
    (
        "too many results",
        with_value(
            allocated_claim(),
            RESULTS,
            [
                {"request": "gpu", "driver": "d.example.com", "pool": "p", "device": f"d{i}"}
                for i in range(33)
            ],
        ),
        ["status.allocation.devices.results: Too many: 33: must have at most 32 items"],
    ),
    (
        "allocation config with unknown source",
        with_value(
            allocated_claim(), ("status", "allocation", "devices", "config", 0, "source"), "FromPod"
        ),
        [
            'status.allocation.devices.config[0].source: Unsupported value: "FromPod": supported '
            'values: "FromClaim", "FromClass"'
        ],
    ),
    (
        "device status for a device that is not allocated",
        with_value(
            allocated_claim(),
            ("status", "devices"),
            [{"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-7"}],
        ),
        [
            'status.devices[0]: Invalid value: "gpu.example.com/node-1/gpu-7": must be an '
            "allocated device in the claim"
        ],
    ),
]


@pytest.mark.parametrize(
    ("obj", "expected"), [(c[1], c[2]) for c in STATUS_CASES], ids=[c[0] for c in STATUS_CASES]
)
def test_claim_status_rules(obj: dict, expected: list[str]) -> None:
    assert rendered_errors(obj) == expected


# --- declarative rules of k8s.io/api resource/v1 (+k8s: tags), messages as validate.* ----


def test_skip_node_operations_are_a_set_of_enum_values() -> None:
    """``+k8s:listType=set`` and ``+k8s:enum``: duplicates first, then unsupported values."""
    slice_ = with_value(
        resource_slice(),
        ("spec", "skipNodeOperations"),
        ["NodeUnprepareResources", "Nope", "NodeUnprepareResources"],
    )
    assert rendered_errors(slice_) == [
        'spec.skipNodeOperations[2]: Duplicate value: "NodeUnprepareResources"',
        'spec.skipNodeOperations[1]: Unsupported value: "Nope": supported values: "*", '
        '"NodePrepareResources", "NodeUnprepareResources"',
    ]


def test_skip_node_operations_of_an_allocation_result_are_checked_too() -> None:
    claim = with_value(
        allocated_claim(),
        ("status", "allocation", "devices", "results", 0, "skipNodeOperations"),
        ["*", "*"],
    )
    assert rendered_errors(claim) == [
        'status.allocation.devices.results[0].skipNodeOperations[1]: Duplicate value: "*"'
    ]


def _with_mapping(mapping: dict) -> dict:
    slice_ = with_value(
        resource_slice(), ("spec", "devices", 0, "capacity"), {"cores": {"value": "8"}}
    )
    return with_value(
        slice_, ("spec", "devices", 0, "nodeAllocatableResources"), {"cpu": {"mapping": mapping}}
    )


def test_node_allocatable_mapping_is_a_union_of_capacity_key_and_device_multiplier() -> None:
    path = "spec.devices[0].nodeAllocatableResources[cpu].mapping"
    both = {"capacityKey": "cores", "capacityMultiplier": "2", "deviceMultiplier": "8"}
    assert rendered_errors(_with_mapping(both)) == [
        f'{path}: Invalid value: "{{capacityKey, deviceMultiplier}}": '
        "must specify exactly one of: capacityKey, deviceMultiplier"
    ]
    assert rendered_errors(_with_mapping({"deviceMultiplier": "8"})) == []
    assert rendered_errors(_with_mapping({"capacityKey": "cores", "capacityMultiplier": "2"})) == []


def test_compatibility_groups_hold_at_most_two_unique_names() -> None:
    """1.37's API: "The maximum number of groups is 2, and the names must be unique"."""
    path = ("spec", "devices", 0, "consumesCounters", 0, "compatibilityGroups")
    field = "spec.devices[0].consumesCounters[0].compatibilityGroups"
    assert rendered_errors(with_value(partitionable_slice(), path, ["a", "b"])) == []
    assert rendered_errors(with_value(partitionable_slice(), path, ["a", "b", "c"])) == [
        f"{field}: Too many: 3: must have at most 2 items"
    ]
    assert rendered_errors(with_value(partitionable_slice(), path, ["a", "a"])) == [
        f'{field}[1]: Duplicate value: "a"'
    ]


def test_each_compatibility_group_is_a_dns_label() -> None:
    """k8s.io/api resource/v1 types.go (kubernetes/kubernetes 0226316d6a24, the 1.37 API):
    ``compatibilityGroups`` carries ``+k8s:eachVal=+k8s:format=k8s-short-name``. kubedra
    checked only the count and uniqueness before."""
    path = ("spec", "devices", 0, "consumesCounters", 0, "compatibilityGroups")
    field = "spec.devices[0].consumesCounters[0].compatibilityGroups"
    assert rendered_errors(with_value(partitionable_slice(), path, ["Mig_Group", "mps"])) == [
        f'{field}[0]: Invalid value: "Mig_Group": a lowercase RFC 1123 label must consist of '
        "lower case alphanumeric characters or '-', and must start and end with an "
        "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
    ]
