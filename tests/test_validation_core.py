"""core/v1 subset validation: Pod, Node, Namespace, PriorityClass."""

from __future__ import annotations

import pytest

from validation_fixtures import (
    namespace,
    node,
    pod,
    priority_class,
    rendered_errors,
    with_value,
    without,
)

SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    r"for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  "
    "or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
CONTAINER = ("spec", "containers", 0)
CLAIMS = (*CONTAINER, "resources", "claims")


@pytest.mark.parametrize("obj", [pod(), node(), namespace(), priority_class()], ids=str)
def test_realistic_core_objects_are_valid(obj: dict) -> None:
    assert rendered_errors(obj) == []


CORE_CASES = [
    (
        "container claim not in pod resourceClaims",
        with_value(pod(), (*CLAIMS, 0, "name"), "tpu"),
        [
            'spec.containers[0].resources.claims[0]: Not found: "tpu": must be one of the names in '
            "pod.spec.resourceClaims: gpu, shared"
        ],
    ),
    (
        "container claim without pod claims",
        without(pod(), ("spec", "resourceClaims")),
        [
            'spec.containers[0].resources.claims[0]: Not found: "gpu": must be one of the names in '
            "pod.spec.resourceClaims which is empty",
            'spec.containers[0].resources.claims[1]: Not found: "shared": must be one of the names '
            "in pod.spec.resourceClaims which is empty",
        ],
    ),
    (
        "duplicate container claim",
        with_value(pod(), CLAIMS, [{"name": "gpu"}, {"name": "gpu"}]),
        ['spec.containers[0].resources.claims[1]: Duplicate value: "gpu"'],
    ),
    (
        "container claim without name",
        with_value(pod(), CLAIMS, [{}]),
        ["spec.containers[0].resources.claims[0]: Required value"],
    ),
    (
        "pod claim with both sources",
        with_value(pod(), ("spec", "resourceClaims", 0, "resourceClaimName"), "training"),
        [
            'spec.resourceClaims[0]: Invalid value: {"Name":"gpu","ResourceClaimName":"training",'
            '"ResourceClaimTemplateName":"one-gpu"}: at most one of `resourceClaimName` or '
            "`resourceClaimTemplateName` may be specified"
        ],
    ),
    (
        "pod claim without source",
        without(pod(), ("spec", "resourceClaims", 1, "resourceClaimName")),
        [
            'spec.resourceClaims[1]: Invalid value: {"Name":"shared","ResourceClaimName":null,'
            '"ResourceClaimTemplateName":null}: must specify one of: `resourceClaimName`, '
            "`resourceClaimTemplateName`"
        ],
    ),
    (
        "duplicate pod claim",
        with_value(pod(), ("spec", "resourceClaims", 1, "name"), "gpu"),
        [
            'spec.resourceClaims[1].name: Duplicate value: "gpu"',
            'spec.containers[0].resources.claims[1]: Not found: "shared": must be one of the names '
            "in pod.spec.resourceClaims: gpu",
        ],
    ),
    (
        "pod claim template name not a subdomain",
        with_value(pod(), ("spec", "resourceClaims", 0, "resourceClaimTemplateName"), "One_GPU"),
        [
            'spec.resourceClaims[0].resourceClaimTemplateName: Invalid value: "One_GPU": '
            f"{SUBDOMAIN_MSG}"
        ],
    ),
    (
        "toleration without key must use Exists",
        without(pod(), ("spec", "tolerations", 0, "key")),
        [],
    ),
    (
        "toleration without key and Equal",
        with_value(
            without(pod(), ("spec", "tolerations", 0, "key")),
            ("spec", "tolerations", 0, "operator"),
            "Equal",
        ),
        [
            'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when '
            '`key` is empty, which means "match all values and all keys"'
        ],
    ),
    (
        "tolerationSeconds with NoSchedule",
        with_value(pod(), ("spec", "tolerations", 0, "tolerationSeconds"), 60),
        [
            "spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' "
            "when `tolerationSeconds` is set"
        ],
    ),
    (
        "toleration operator unknown",
        with_value(pod(), ("spec", "tolerations", 0, "operator"), "In"),
        [
            'spec.tolerations[0].operator: Unsupported value: "In": supported values: "Equal", '
            '"Exists"'
        ],
    ),
    (
        "toleration Exists with a value",
        with_value(pod(), ("spec", "tolerations", 0, "value"), "x"),
        [
            "spec.tolerations[0].operator: Invalid value: "
            '{"Key":"nvidia.com/gpu","Operator":"Exists",'
            '"Value":"x","Effect":"NoSchedule","TolerationSeconds":null}: value must be empty when '
            "`operator` is 'Exists'"
        ],
    ),
    (
        "toleration effect unknown",
        with_value(pod(), ("spec", "tolerations", 0, "effect"), "None"),
        [
            'spec.tolerations[0].effect: Unsupported value: "None": supported values: '
            '"NoSchedule", '
            '"PreferNoSchedule", "NoExecute"'
        ],
    ),
    (
        "node selector with bad value",
        with_value(pod(), ("spec", "nodeSelector"), {"disk": "fast ssd"}),
        [f'spec.nodeSelector: Invalid value: "fast ssd": {LABEL_VALUE_MSG}'],
    ),
    (
        "required node affinity without terms",
        with_value(
            pod(),
            ("spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"),
            {},
        ),
        [
            "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
            "nodeSelectorTerms: Required value: must have at least one node selector term"
        ],
    ),
    (
        "node affinity Gt with two values",
        with_value(
            pod(),
            ("spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"),
            {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "gen", "operator": "Gt", "values": ["1", "2"]}]}
                ]
            },
        ),
        [
            "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
            "nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified "
            "single value when `operator` is 'Lt' or 'Gt'"
        ],
    ),
    (
        "init container named like a container",
        with_value(pod(), ("spec", "initContainers"), [{"name": "main", "image": "busybox"}]),
        ['spec.initContainers[0].name: Duplicate value: "main"'],
    ),
    (
        "no containers",
        with_value(pod(), ("spec", "containers"), []),
        ["spec.containers: Required value"],
    ),
    (
        "container without image",
        without(pod(), (*CONTAINER, "image")),
        ["spec.containers[0].image: Required value"],
    ),
    (
        "request above limit",
        with_value(pod(), (*CONTAINER, "resources", "requests", "memory"), "16Gi"),
        [
            'spec.containers[0].resources.requests: Invalid value: "16Gi": must be less than or '
            "equal to memory limit of 8Gi"
        ],
    ),
    (
        "negative request",
        with_value(pod(), (*CONTAINER, "resources", "requests", "cpu"), "-1"),
        [
            'spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater '
            "than or equal to 0"
        ],
    ),
    (
        "extended resource without limit",
        with_value(pod(), (*CONTAINER, "resources", "requests", "example.com/foo"), "1"),
        [
            "spec.containers[0].resources.limits: Required value: Limit must be set for non "
            "overcommitable resources"
        ],
    ),
    (
        "pod without namespace",
        without(pod(), ("metadata", "namespace")),
        ["metadata.namespace: Required value"],
    ),
    (
        "priority class name not a subdomain",
        with_value(pod(), ("spec", "priorityClassName"), "High"),
        [f'spec.priorityClassName: Invalid value: "High": {SUBDOMAIN_MSG}'],
    ),
    (
        "node name not a subdomain",
        with_value(pod(), ("spec", "nodeName"), "node_1"),
        [f'spec.nodeName: Invalid value: "node_1": {SUBDOMAIN_MSG}'],
    ),
    (
        "node taint with unknown effect",
        with_value(node(), ("spec", "taints", 0, "effect"), "NoExecuteNow"),
        [
            'spec.taints[0].effect: Unsupported value: "NoExecuteNow": supported values: '
            '"NoSchedule", '
            '"PreferNoSchedule", "NoExecute"'
        ],
    ),
    (
        "node taint without effect",
        without(node(), ("spec", "taints", 0, "effect")),
        ["spec.taints[0].effect: Required value"],
    ),
    (
        "duplicate node taint",
        with_value(
            node(),
            ("spec", "taints"),
            [
                {"key": "a", "value": "1", "effect": "NoSchedule"},
                {"key": "a", "value": "2", "effect": "NoSchedule"},
            ],
        ),
        [
            'spec.taints[1]: Duplicate value: {"Key":"a","Value":"2","Effect":"NoSchedule",'
            '"TimeAdded":null}: taints must be unique by key and effect pair'
        ],
    ),
    (
        "node with namespace",
        with_value(node(), ("metadata", "namespace"), "default"),
        ["metadata.namespace: Forbidden: not allowed on this type"],
    ),
    (
        "negative allocatable",
        with_value(node(), ("status", "allocatable", "cpu"), "-2"),
        ['status.allocatable.cpu: Invalid value: "-2": must be greater than or equal to 0'],
    ),
    (
        "namespace name with dots",
        with_value(namespace(), ("metadata", "name"), "team.a"),
        ['metadata.name: Invalid value: "team.a": must not contain dots'],
    ),
    (
        "user priority above one billion",
        with_value(priority_class(), ("value",), 2_000_000_000),
        ["value: Forbidden: maximum allowed value of a user defined priority is 1000000000"],
    ),
    (
        "unknown system priority class",
        with_value(priority_class(), ("metadata", "name"), "system-high"),
        [
            "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for "
            "system use only. error: system-high is not a known system priority class"
        ],
    ),
    (
        "unknown preemption policy",
        with_value(priority_class(), ("preemptionPolicy",), "Always"),
        [
            'preemptionPolicy: Unsupported value: "Always": supported values: '
            '"PreemptLowerPriority", "Never"'
        ],
    ),
]


@pytest.mark.parametrize(
    ("obj", "expected"), [(c[1], c[2]) for c in CORE_CASES], ids=[c[0] for c in CORE_CASES]
)
def test_core_rules(obj: dict, expected: list[str]) -> None:
    assert rendered_errors(obj) == expected
