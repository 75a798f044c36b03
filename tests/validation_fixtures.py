"""Realistic valid objects (defaulted v1 wire form) and helpers to break them in one place."""

from __future__ import annotations

import copy
from typing import Any

from kubedra.api.validation import validate_object

Path = tuple[str | int, ...]


def with_value(obj: dict, path: Path, value: Any) -> dict:
    """A deep copy of ``obj`` with the value at ``path`` replaced (dicts are created as needed)."""
    result = copy.deepcopy(obj)
    target: Any = result
    for step in path[:-1]:
        if isinstance(step, str) and step not in target:
            target[step] = {}
        target = target[step]
    target[path[-1]] = value
    return result


def without(obj: dict, path: Path) -> dict:
    """A deep copy of ``obj`` with the entry at ``path`` removed."""
    result = copy.deepcopy(obj)
    target: Any = result
    for step in path[:-1]:
        target = target[step]
    del target[path[-1]]
    return result


def rendered_errors(obj: dict) -> list[str]:
    return [str(error) for error in validate_object(obj)]


def device_class() -> dict:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": "gpu.example.com"},
        "spec": {
            "selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}],
            "config": [
                {
                    "opaque": {
                        "driver": "gpu.example.com",
                        "parameters": {"apiVersion": "gpu.example.com/v1", "kind": "GpuConfig"},
                    }
                }
            ],
        },
    }


def resource_claim() -> dict:
    """A claim with an exact request, a prioritized list, a constraint and config."""
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "training", "namespace": "team-a"},
        "spec": {
            "devices": {
                "requests": [
                    {
                        "name": "gpu",
                        "exactly": {
                            "deviceClassName": "gpu.example.com",
                            "allocationMode": "ExactCount",
                            "count": 2,
                            "selectors": [
                                {
                                    "cel": {
                                        "expression": "device.capacity['gpu.example.com']"
                                        ".memory.compareTo(quantity('16Gi')) >= 0"
                                    }
                                }
                            ],
                            "tolerations": [
                                {
                                    "key": "gpu.example.com/unhealthy",
                                    "operator": "Exists",
                                    "effect": "NoSchedule",
                                }
                            ],
                        },
                    },
                    {
                        "name": "nic",
                        "firstAvailable": [
                            {
                                "name": "fast",
                                "deviceClassName": "nic.example.com",
                                "allocationMode": "ExactCount",
                                "count": 1,
                            },
                            {
                                "name": "any",
                                "deviceClassName": "nic.example.com",
                                "allocationMode": "All",
                            },
                        ],
                    },
                ],
                "constraints": [
                    {"requests": ["gpu", "nic/fast"], "matchAttribute": "example.com/numa"}
                ],
                "config": [
                    {
                        "requests": ["gpu"],
                        "opaque": {"driver": "gpu.example.com", "parameters": {"sharing": "none"}},
                    }
                ],
            }
        },
    }


def admin_claim() -> dict:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "monitor", "namespace": "admin"},
        "spec": {
            "devices": {
                "requests": [
                    {
                        "name": "all-gpus",
                        "exactly": {
                            "deviceClassName": "gpu.example.com",
                            "allocationMode": "All",
                            "adminAccess": True,
                        },
                    }
                ]
            }
        },
    }


def allocated_claim() -> dict:
    claim = resource_claim()
    claim["status"] = {
        "allocation": {
            "devices": {
                "results": [
                    {
                        "request": "gpu",
                        "driver": "gpu.example.com",
                        "pool": "node-1",
                        "device": "gpu-0",
                    },
                    {
                        "request": "gpu",
                        "driver": "gpu.example.com",
                        "pool": "node-1",
                        "device": "gpu-1",
                    },
                    {
                        "request": "nic/fast",
                        "driver": "nic.example.com",
                        "pool": "node-1",
                        "device": "nic-0",
                    },
                ],
                "config": [
                    {
                        "source": "FromClaim",
                        "requests": ["gpu"],
                        "opaque": {"driver": "gpu.example.com", "parameters": {"sharing": "none"}},
                    }
                ],
            },
            "nodeSelector": {
                "nodeSelectorTerms": [
                    {
                        "matchFields": [
                            {"key": "metadata.name", "operator": "In", "values": ["node-1"]}
                        ]
                    }
                ]
            },
        },
        "reservedFor": [
            {"resource": "pods", "name": "trainer", "uid": "2d5a4b8e-3f1c-4c2a-9d7e-1a2b3c4d5e6f"}
        ],
    }
    return claim


def claim_template() -> dict:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "one-gpu", "namespace": "team-a"},
        "spec": {
            "metadata": {"labels": {"app": "trainer"}},
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "gpu",
                            "exactly": {
                                "deviceClassName": "gpu.example.com",
                                "allocationMode": "ExactCount",
                                "count": 1,
                            },
                        }
                    ]
                }
            },
        },
    }


def gpu_device(name: str, memory: str = "24Gi") -> dict:
    return {
        "name": name,
        "attributes": {
            "model": {"string": "LATEST-GPU-MODEL"},
            "driverVersion": {"version": "1.0.0"},
            "index": {"int": 0},
            "healthy": {"bool": True},
            "example.com/numa": {"int": 0},
        },
        "capacity": {"memory": {"value": memory}},
    }


def resource_slice() -> dict:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "node-1-gpu.example.com-x7b2k"},
        "spec": {
            "driver": "gpu.example.com",
            "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
            "nodeName": "node-1",
            "devices": [
                gpu_device("gpu-0", "8Gi"),
                gpu_device("gpu-1"),
                gpu_device("gpu-2", "12Gi"),
            ],
        },
    }


def partitionable_slice() -> dict:
    """A MIG-like GPU: devices consume counters from a counter set of another slice."""
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "node-1-mig-devices"},
        "spec": {
            "driver": "gpu.example.com",
            "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 2},
            "nodeName": "node-1",
            "devices": [
                {
                    "name": "gpu-0-full",
                    "attributes": {"profile": {"string": "full"}},
                    "capacity": {"memory": {"value": "40Gi"}},
                    "consumesCounters": [
                        {
                            "counterSet": "gpu-0-counters",
                            "counters": {"memory": {"value": "40Gi"}, "slices": {"value": "7"}},
                        }
                    ],
                    "taints": [{"key": "gpu.example.com/maintenance", "effect": "NoSchedule"}],
                },
                {
                    "name": "gpu-0-mig-1g",
                    "attributes": {"profile": {"string": "1g.5gb"}},
                    "capacity": {"memory": {"value": "5Gi"}},
                    "consumesCounters": [
                        {
                            "counterSet": "gpu-0-counters",
                            "counters": {"memory": {"value": "5Gi"}, "slices": {"value": "1"}},
                        }
                    ],
                },
            ],
        },
    }


def counter_slice() -> dict:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "node-1-mig-counters"},
        "spec": {
            "driver": "gpu.example.com",
            "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 2},
            "nodeName": "node-1",
            "sharedCounters": [
                {
                    "name": "gpu-0-counters",
                    "counters": {"memory": {"value": "40Gi"}, "slices": {"value": "7"}},
                }
            ],
        },
    }


def shared_device_slice() -> dict:
    """Consumable capacity: a NIC shared by several claims with request policies."""
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "nics"},
        "spec": {
            "driver": "nic.example.com",
            "pool": {"name": "rack-1/node-1", "generation": 0, "resourceSliceCount": 1},
            "perDeviceNodeSelection": True,
            "devices": [
                {
                    "name": "nic-0",
                    "nodeName": "node-1",
                    "allowMultipleAllocations": True,
                    "capacity": {
                        "bandwidth": {
                            "value": "100Gi",
                            "requestPolicy": {
                                "default": "1Gi",
                                "validRange": {"min": "1Gi", "max": "100Gi", "step": "1Gi"},
                            },
                        },
                        "queues": {
                            "value": "16",
                            "requestPolicy": {"default": "1", "validValues": ["1", "2", "4"]},
                        },
                    },
                    "bindingConditions": ["example.com/attached"],
                    "bindingFailureConditions": ["example.com/failed"],
                    "bindsToNode": True,
                },
                {"name": "nic-1", "allNodes": True},
            ],
        },
    }


def device_taint_rule() -> dict:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceTaintRule",
        "metadata": {"name": "drain-gpu-0"},
        "spec": {
            "deviceSelector": {"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"},
            "taint": {"key": "example.com/maintenance", "value": "planned", "effect": "NoExecute"},
        },
    }


def pod() -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "trainer", "namespace": "team-a", "labels": {"app": "trainer"}},
        "spec": {
            "schedulerName": "default-scheduler",
            "priorityClassName": "high",
            "nodeSelector": {"kubernetes.io/os": "linux"},
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {
                                        "key": "topology.kubernetes.io/zone",
                                        "operator": "In",
                                        "values": ["a"],
                                    }
                                ]
                            }
                        ]
                    }
                }
            },
            "tolerations": [
                {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
                {
                    "key": "node.kubernetes.io/not-ready",
                    "operator": "Exists",
                    "effect": "NoExecute",
                    "tolerationSeconds": 300,
                },
            ],
            "resourceClaims": [
                {"name": "gpu", "resourceClaimTemplateName": "one-gpu"},
                {"name": "shared", "resourceClaimName": "training"},
            ],
            "containers": [
                {
                    "name": "main",
                    "image": "registry.example.com/trainer:1.0",
                    "resources": {
                        "requests": {"cpu": "2", "memory": "4Gi"},
                        "limits": {"memory": "8Gi"},
                        "claims": [{"name": "gpu"}, {"name": "shared", "request": "gpu"}],
                    },
                }
            ],
        },
    }


def node() -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "node-1", "labels": {"kubernetes.io/hostname": "node-1"}},
        "spec": {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
        "status": {"allocatable": {"cpu": "16", "memory": "64Gi", "pods": "110"}},
    }


def namespace() -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "team-a", "labels": {"resource.kubernetes.io/admin-access": "true"}},
    }


def priority_class() -> dict:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "high"},
        "value": 1000,
        "preemptionPolicy": "PreemptLowerPriority",
    }
