"""Wire schemas (field name -> type) of the kinds we validate, after resource.k8s.io/v1 and core/v1.

Only the fields the validators read or that must decode for the object to be accepted are
listed; anything else is left to the object model.
"""

from __future__ import annotations

from kubedra.api.validation.typecheck import ListOf, MapOf, Scalar, Spec

STR = Scalar.STRING
INT64 = Scalar.INT64
INT32 = Scalar.INT32
BOOL = Scalar.BOOL
QTY = Scalar.QUANTITY
ANY = Scalar.ANY
STRINGS = ListOf(STR)

OWNER_REFERENCE: Spec = {
    "apiVersion": STR,
    "kind": STR,
    "name": STR,
    "uid": STR,
    "controller": BOOL,
    "blockOwnerDeletion": BOOL,
}

OBJECT_META: Spec = {
    "name": STR,
    "generateName": STR,
    "namespace": STR,
    "uid": STR,
    "resourceVersion": STR,
    "generation": INT64,
    "labels": MapOf(STR),
    "annotations": MapOf(STR),
    "finalizers": STRINGS,
    "ownerReferences": ListOf(OWNER_REFERENCE),
}

NODE_SELECTOR_REQUIREMENT: Spec = {"key": STR, "operator": STR, "values": STRINGS}
NODE_SELECTOR_TERM: Spec = {
    "matchExpressions": ListOf(NODE_SELECTOR_REQUIREMENT),
    "matchFields": ListOf(NODE_SELECTOR_REQUIREMENT),
}
NODE_SELECTOR: Spec = {"nodeSelectorTerms": ListOf(NODE_SELECTOR_TERM)}

CONDITION: Spec = {
    "type": STR,
    "status": STR,
    "observedGeneration": INT64,
    "lastTransitionTime": STR,
    "reason": STR,
    "message": STR,
}

# resource.k8s.io/v1

DEVICE_SELECTOR: Spec = {"cel": {"expression": STR}}
DEVICE_TOLERATION: Spec = {
    "key": STR,
    "operator": STR,
    "value": STR,
    "effect": STR,
    "tolerationSeconds": INT64,
}
DEVICE_TAINT: Spec = {"key": STR, "value": STR, "effect": STR, "timeAdded": STR}
OPAQUE_CONFIG: Spec = {"driver": STR, "parameters": ANY}
DEVICE_CONFIGURATION: dict[str, Spec] = {"opaque": OPAQUE_CONFIG}
CAPACITY_REQUIREMENTS: Spec = {"requests": MapOf(QTY)}
DERIVED_ATTRIBUTE: Spec = {"name": STR, "expression": STR}

_REQUEST_COMMON: dict[str, Spec] = {
    "deviceClassName": STR,
    "selectors": ListOf(DEVICE_SELECTOR),
    "allocationMode": STR,
    "count": INT64,
    "tolerations": ListOf(DEVICE_TOLERATION),
    "capacity": CAPACITY_REQUIREMENTS,
    "derivedAttributes": ListOf(DERIVED_ATTRIBUTE),
}
EXACT_DEVICE_REQUEST: Spec = {**_REQUEST_COMMON, "adminAccess": BOOL}
DEVICE_SUB_REQUEST: Spec = {"name": STR, **_REQUEST_COMMON}
DEVICE_REQUEST: Spec = {
    "name": STR,
    "exactly": EXACT_DEVICE_REQUEST,
    "firstAvailable": ListOf(DEVICE_SUB_REQUEST),
}
DEVICE_CONSTRAINT: Spec = {"requests": STRINGS, "matchAttribute": STR, "distinctAttribute": STR}
DEVICE_CLAIM_CONFIGURATION: Spec = {"requests": STRINGS, **DEVICE_CONFIGURATION}
DEVICE_CLAIM: Spec = {
    "requests": ListOf(DEVICE_REQUEST),
    "constraints": ListOf(DEVICE_CONSTRAINT),
    "config": ListOf(DEVICE_CLAIM_CONFIGURATION),
}
RESOURCE_CLAIM_SPEC: Spec = {"devices": DEVICE_CLAIM}

DEVICE_REQUEST_ALLOCATION_RESULT: Spec = {
    "request": STR,
    "driver": STR,
    "pool": STR,
    "device": STR,
    "adminAccess": BOOL,
    "tolerations": ListOf(DEVICE_TOLERATION),
    "bindingConditions": STRINGS,
    "bindingFailureConditions": STRINGS,
    "shareID": STR,
    "consumedCapacity": MapOf(QTY),
    "skipNodeOperations": STRINGS,
}
DEVICE_ALLOCATION_CONFIGURATION: Spec = {"source": STR, "requests": STRINGS, **DEVICE_CONFIGURATION}
ALLOCATION_RESULT: Spec = {
    "devices": {
        "results": ListOf(DEVICE_REQUEST_ALLOCATION_RESULT),
        "config": ListOf(DEVICE_ALLOCATION_CONFIGURATION),
    },
    "nodeSelector": NODE_SELECTOR,
    "allocationTimestamp": STR,
}
CONSUMER_REFERENCE: Spec = {"apiGroup": STR, "resource": STR, "name": STR, "uid": STR}
ALLOCATED_DEVICE_STATUS: Spec = {
    "driver": STR,
    "pool": STR,
    "device": STR,
    "shareID": STR,
    "conditions": ListOf(CONDITION),
    "data": ANY,
    "networkData": {"interfaceName": STR, "ips": STRINGS, "hardwareAddress": STR},
}
RESOURCE_CLAIM_STATUS: Spec = {
    "allocation": ALLOCATION_RESULT,
    "reservedFor": ListOf(CONSUMER_REFERENCE),
    "devices": ListOf(ALLOCATED_DEVICE_STATUS),
}

DEVICE_ATTRIBUTE: Spec = {
    "int": INT64,
    "bool": BOOL,
    "string": STR,
    "version": STR,
    "ints": ListOf(INT64),
    "bools": ListOf(BOOL),
    "strings": STRINGS,
    "versions": STRINGS,
}
DEVICE_CAPACITY: Spec = {
    "value": QTY,
    "requestPolicy": {
        "default": QTY,
        "validValues": ListOf(QTY),
        "validRange": {"min": QTY, "max": QTY, "step": QTY},
    },
}
COUNTER: Spec = {"value": QTY}
DEVICE_COUNTER_CONSUMPTION: Spec = {
    "counterSet": STR,
    "counters": MapOf(COUNTER),
    "compatibilityGroups": STRINGS,
}
NODE_ALLOCATABLE_RESOURCE: Spec = {
    "mapping": {"capacityKey": STR, "capacityMultiplier": QTY, "deviceMultiplier": QTY},
    "overhead": {"perPod": QTY, "perContainer": QTY},
}
DEVICE: Spec = {
    "name": STR,
    "attributes": MapOf(DEVICE_ATTRIBUTE),
    "capacity": MapOf(DEVICE_CAPACITY),
    "consumesCounters": ListOf(DEVICE_COUNTER_CONSUMPTION),
    "nodeName": STR,
    "nodeSelector": NODE_SELECTOR,
    "allNodes": BOOL,
    "taints": ListOf(DEVICE_TAINT),
    "bindsToNode": BOOL,
    "bindingConditions": STRINGS,
    "bindingFailureConditions": STRINGS,
    "allowMultipleAllocations": BOOL,
    "nodeAllocatableResources": MapOf(NODE_ALLOCATABLE_RESOURCE),
    "nodeAllocatableResourceMappings": MapOf({"capacityKey": STR, "allocationMultiplier": QTY}),
}
RESOURCE_SLICE_SPEC: Spec = {
    "driver": STR,
    "pool": {"name": STR, "generation": INT64, "resourceSliceCount": INT64},
    "nodeName": STR,
    "nodeSelector": NODE_SELECTOR,
    "allNodes": BOOL,
    "devices": ListOf(DEVICE),
    "perDeviceNodeSelection": BOOL,
    "sharedCounters": ListOf({"name": STR, "counters": MapOf(COUNTER)}),
    "partitionTypeAttribute": STR,
    "skipNodeOperations": STRINGS,
}
DEVICE_CLASS_SPEC: Spec = {
    "selectors": ListOf(DEVICE_SELECTOR),
    "config": ListOf(DEVICE_CONFIGURATION),
    "extendedResourceName": STR,
}
DEVICE_TAINT_RULE_SPEC: Spec = {
    "deviceSelector": {"driver": STR, "pool": STR, "device": STR},
    "taint": DEVICE_TAINT,
}

# core/v1 subset

TOLERATION: Spec = {
    "key": STR,
    "operator": STR,
    "value": STR,
    "effect": STR,
    "tolerationSeconds": INT64,
}
CONTAINER: Spec = {
    "name": STR,
    "image": STR,
    "resources": {
        "requests": MapOf(QTY),
        "limits": MapOf(QTY),
        "claims": ListOf({"name": STR, "request": STR}),
    },
}
POD_SPEC: Spec = {
    "nodeName": STR,
    "nodeSelector": MapOf(STR),
    "affinity": {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": NODE_SELECTOR,
            "preferredDuringSchedulingIgnoredDuringExecution": ListOf(
                {"weight": INT32, "preference": NODE_SELECTOR_TERM}
            ),
        }
    },
    "tolerations": ListOf(TOLERATION),
    "priority": INT32,
    "priorityClassName": STR,
    "schedulerName": STR,
    "preemptionPolicy": STR,
    "resourceClaims": ListOf(
        {"name": STR, "resourceClaimName": STR, "resourceClaimTemplateName": STR}
    ),
    "containers": ListOf(CONTAINER),
    "initContainers": ListOf(CONTAINER),
}
NODE_TAINT: Spec = {"key": STR, "value": STR, "effect": STR, "timeAdded": STR}
NODE_SPEC: Spec = {"unschedulable": BOOL, "taints": ListOf(NODE_TAINT), "providerID": STR}
NODE_STATUS: Spec = {"allocatable": MapOf(QTY), "capacity": MapOf(QTY)}


SCHEDULING_POLICY: Spec = {"basic": ANY, "gang": {"minCount": INT32, "minGroupCount": INT32}}
GROUP_CLAIMS = ListOf({"name": STR, "resourceClaimName": STR, "resourceClaimTemplateName": STR})
GROUP_SETTINGS: dict[str, Spec] = {
    "schedulingPolicy": SCHEDULING_POLICY,
    "schedulingConstraints": {"topology": ListOf({"key": STR})},
    "resourceClaims": GROUP_CLAIMS,
    "disruptionMode": ANY,  # a string in v1alpha2, a single/all union from v1beta1 on
    "priorityClassName": STR,
    "priority": INT32,
    "preemptionPolicy": STR,
}
"""What a PodGroup, a CompositePodGroup and their templates share (every Workload API version)."""
POD_GROUP_TEMPLATE: Spec = {"name": STR, **GROUP_SETTINGS}
WORKLOAD_REF: Spec = {"workloadName": STR, "templateName": STR}
CONTROLLER_REF: Spec = {"apiGroup": STR, "kind": STR, "name": STR}


def top_level(**fields: Spec) -> Spec:
    """The schema of a whole object: metadata plus the given top-level fields."""
    return {"apiVersion": STR, "kind": STR, "metadata": OBJECT_META, **fields}


POOL_STATUS_REQUEST_SPEC: Spec = {
    "driver": STR,
    "poolName": STR,
    "limit": INT32,
    "defaultPartitionTypeAttribute": STR,
}
POOL_STATUS: Spec = {
    "driver": STR,
    "poolName": STR,
    "generation": INT64,
    "resourceSliceCount": INT32,
    "totalDevices": INT32,
    "allocatedDevices": INT32,
    "availableDevices": INT32,
    "unavailableDevices": INT32,
    "nodeName": STR,
    "validationError": STR,
    "partitionSummary": ListOf(
        {"attribute": STR, "type": STR, "total": INT32, "allocatable": INT32}
    ),
    "shareableSummary": {
        "fullyAvailableDevices": INT32,
        "partiallyAvailableDevices": INT32,
        "capacity": ListOf({"name": STR, "total": QTY, "consumed": QTY, "available": QTY}),
    },
}

KIND_SCHEMAS: dict[str, Spec] = {
    "DeviceClass": top_level(spec=DEVICE_CLASS_SPEC),
    "ResourceClaim": top_level(spec=RESOURCE_CLAIM_SPEC, status=RESOURCE_CLAIM_STATUS),
    "ResourceClaimTemplate": top_level(spec={"metadata": OBJECT_META, "spec": RESOURCE_CLAIM_SPEC}),
    "ResourceSlice": top_level(spec=RESOURCE_SLICE_SPEC),
    "DeviceTaintRule": top_level(spec=DEVICE_TAINT_RULE_SPEC),
    "ResourcePoolStatusRequest": top_level(
        spec=POOL_STATUS_REQUEST_SPEC,
        status={"poolCount": INT32, "pools": ListOf(POOL_STATUS), "conditions": ListOf(ANY)},
    ),
    "Pod": top_level(spec=POD_SPEC),
    "Node": top_level(spec=NODE_SPEC, status=NODE_STATUS),
    "Namespace": top_level(spec={"finalizers": STRINGS}),
    "PriorityClass": top_level(
        value=INT32, globalDefault=BOOL, description=STR, preemptionPolicy=STR
    ),
    "Workload": top_level(
        spec={
            "controllerRef": CONTROLLER_REF,
            "podGroupTemplates": ListOf(POD_GROUP_TEMPLATE),
            "compositePodGroupTemplates": ANY,
        }
    ),
    "PodDisruptionBudget": top_level(
        spec={"minAvailable": ANY, "maxUnavailable": ANY, "selector": ANY},
        status={"disruptionsAllowed": INT32, "disruptedPods": ANY},
    ),
    "PodGroup": top_level(
        spec={
            "podGroupTemplateRef": ANY,
            "parentCompositePodGroupName": STR,
            "workloadRef": WORKLOAD_REF,
            **GROUP_SETTINGS,
        },
        status={
            "conditions": ListOf(CONDITION),
            "resourceClaimStatuses": ListOf({"name": STR, "resourceClaimName": STR}),
        },
    ),
    "CompositePodGroup": top_level(
        spec={"parentCompositePodGroupName": STR, "workloadRef": WORKLOAD_REF, **GROUP_SETTINGS},
        status={"conditions": ListOf(CONDITION)},
    ),
}
