"""The DynamicResources plugin: PreEnqueue, PreFilter, Filter, PostFilter, Score, Reserve,
PreBind, as upstream's ``plugins/dynamicresources``.

Unlike upstream, which builds an allocator per scheduling cycle, one ``Allocator`` is kept for
the scheduler's lifetime: its allocated state follows the claims in the store (and the
allocations in flight between Reserve and PreBind); its inventory is rebuilt only when
DeviceClasses, ResourceSlices or DeviceTaintRules change. Filter results are remembered per
claim shape and node, and reused while none of the pools the node can see changed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from kubedra.allocator.claims import PreparedClaim
from kubedra.allocator.engine import Allocator, Outcome
from kubedra.allocator.explain import Recorder
from kubedra.allocator.features import Features
from kubedra.allocator.nodeselect import NodeSelectorError, selector_matches
from kubedra.allocator.policy import DeviceKey
from kubedra.cluster.clock import SimClock, parse_time
from kubedra.cluster.podgroupclaims import group_claim_ref, owned_by_group, reserved_for_group
from kubedra.cluster.store import DELETE_PROTECTION_FINALIZER, Store
from kubedra.scheduler.nodeinfo import NodeState
from kubedra.scheduler.plugins import DYNAMIC_RESOURCES
from kubedra.scheduler.resources import DEVICE_CLASS_PREFIX, QuantityCache, is_extended_resource
from kubedra.scheduler.status import Status, error, unresolvable

_SHAPE_JSON = json.JSONEncoder(sort_keys=True)
"""Claim specs as a shape key (what json.dumps(sort_keys=True) writes, without building an
encoder for every pod)."""

RESERVED_FOR_MAX_SIZE = 256
"""resourceclaim.ResourceClaimReservedForMaxSize."""
FIRST_AVAILABLE_MAX_SIZE = 8
"""resourceapi.FirstAvailableDeviceRequestMaxSize: the Score of a subrequest is 8 - index."""
BINDING_TIMEOUT_SECONDS = 600
"""BindingTimeoutDefaultSeconds: how long PreBind waits for device binding conditions."""
EXTENDED_RESOURCE_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
SPECIAL_CLAIM_NAME = "<extended-resources>"

ERR_CANNOT_ALLOCATE = "cannot allocate all claims"
ERR_NOT_AVAILABLE = "resourceclaim not available on the node"
ERR_IN_USE = "resourceclaim in use"


def claim_key(claim: Mapping[str, Any]) -> str:
    meta = claim.get("metadata") or {}
    return f"{meta.get('namespace') or ''}/{meta.get('name') or ''}"


def pod_claim_names(pod: Mapping[str, Any]) -> list[tuple[str, str | None, bool, str | None]]:
    """(pod claim name, claim name or None, must check owner, error) per spec.resourceClaims,
    as resourceclaim.Name resolves them."""
    meta = pod.get("metadata") or {}
    statuses = {
        s.get("name"): s for s in (pod.get("status") or {}).get("resourceClaimStatuses") or []
    }
    out: list[tuple[str, str | None, bool, str | None]] = []
    for entry in (pod.get("spec") or {}).get("resourceClaims") or []:
        name = str(entry.get("name") or "")
        if entry.get("resourceClaimName"):
            out.append((name, str(entry["resourceClaimName"]), False, None))
        elif entry.get("resourceClaimTemplateName"):
            status = statuses.get(name)
            if status is None:
                msg = (
                    f'pod "{meta.get("namespace")}/{meta.get("name")}": '
                    "ResourceClaim not created yet"
                )
                out.append((name, None, True, msg))
            else:
                claim = status.get("resourceClaimName")
                out.append((name, str(claim) if claim else None, True, None))
    return out


def is_reserved_for(pod: Mapping[str, Any], claim: Mapping[str, Any]) -> bool:
    uid = (pod.get("metadata") or {}).get("uid")
    return any(r.get("uid") == uid for r in (claim.get("status") or {}).get("reservedFor") or [])


def _results(allocation: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    return list(((allocation or {}).get("devices") or {}).get("results") or [])


@dataclass
class ExtendedResources:
    """The pod's extended resources that a DeviceClass backs (DRAExtendedResource)."""

    requests: dict[str, int]
    classes: dict[str, str]
    existing: dict[str, Any] | None = None


@dataclass
class CycleState:
    """DynamicResources' part of one scheduling cycle for one pod."""

    claims: list[dict[str, Any]] = field(default_factory=list)
    to_allocate: list[int] = field(default_factory=list)
    available_on: dict[int, Mapping[str, Any]] = field(default_factory=dict)
    prepared: list[PreparedClaim] | None = None
    shape: str = ""
    extended: ExtendedResources | None = None
    node_allocations: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    node_extended_claim: dict[str, dict[str, Any]] = field(default_factory=dict)
    unavailable: set[int] = field(default_factory=set)
    allocated: list[int] = field(default_factory=list)
    prioritized: bool = False
    complete: bool = False
    """PreFilter got through (upstream's claim store is filled only then)."""

    @property
    def empty(self) -> bool:
        return not self.claims and self.extended is None


class DynamicResources:
    """The plugin, with its allocator and the claim state it follows."""

    name = DYNAMIC_RESOURCES

    def __init__(self, store: Store, clock: SimClock, features: Features) -> None:
        self.store = store
        self.clock = clock
        self.features = features
        self.allocator: Allocator | None = None
        self._dirty = True
        self._counted: dict[str, list[dict[str, Any]]] = {}
        self.pending: set[str] = set()
        """Claim uids whose allocation is in flight (Reserve done, PreBind not yet)."""
        self.assumed: dict[str, dict[str, Any]] = {}
        """Claim uid -> allocation a gang plan assumed for an earlier pod of the gang, so a
        later pod sharing the claim uses it instead of allocating it again."""
        self._memo: dict[str, dict[Any, tuple[int, Outcome, tuple[tuple[str, str], ...]]]] = {}
        self._class_mapping: dict[str, str] | None = None
        self.allocate_calls = 0
        self.epoch = 0
        """Bumped whenever the allocator is rebuilt (cached Filter results become stale)."""
        self.check_classes = True
        """PreFilter's DeviceClass check; off for the first-fit policy, where the allocator
        reports a missing class as an error (FirstFitScheduler's semantics)."""
        self.device_policy: str | DeviceKey = "first-fit"
        """Which valid devices the allocator picks: a name or a placement policy's device
        ranking (kubedra.allocator.policy)."""

    # --- the state it follows ---------------------------------------------------------------

    def on_event(self, type_: str, kind: str, obj: dict[str, Any]) -> None:
        if kind in ("ResourceSlice", "DeviceClass", "DeviceTaintRule"):
            self._dirty = True
            if kind == "DeviceClass":
                self._class_mapping = None
        elif kind == "ResourceClaim":
            uid = str((obj.get("metadata") or {}).get("uid") or "")
            allocation = None if type_ == "DELETED" else (obj.get("status") or {}).get("allocation")
            if uid in self.pending and allocation is None and type_ != "DELETED":
                return
            self.pending.discard(uid)
            self._count(uid, _results(allocation))

    def _count(self, uid: str, results: list[dict[str, Any]]) -> None:
        old = self._counted.get(uid)
        if old == results or (old is None and not results):
            return
        allocator = self.allocator
        if old is not None:
            del self._counted[uid]
            if allocator is not None and not self._dirty:
                allocator.state.remove_results(old)
        if results:
            self._counted[uid] = results
            if allocator is not None and not self._dirty:
                allocator.state.add_results(results)

    def ensure_allocator(self) -> Allocator:
        """The allocator over the current classes and slices (rebuilt after they changed)."""
        if self.allocator is None or self._dirty:
            store = self.store
            allocator = Allocator(
                self.features,
                store.list("DeviceClass"),
                store.list("ResourceSlice"),
                (),
                store.list("DeviceTaintRule"),
                device_policy=self.device_policy,
                share_ids=store.share_id,
            )
            for results in self._counted.values():
                allocator.state.add_results(results)
            self.allocator = allocator
            self._dirty = False
            self._memo.clear()
            self.epoch += 1
        return self.allocator

    def class_mapping(self) -> dict[str, str]:
        """Extended resource name -> DeviceClass: ``spec.extendedResourceName`` and the implicit
        ``deviceclass.resource.kubernetes.io/<class>`` (first class in name order wins)."""
        if self._class_mapping is None:
            mapping: dict[str, str] = {}
            classes = sorted(
                self.store.list("DeviceClass"), key=lambda c: c["metadata"].get("name", "")
            )
            for cls in classes:
                name = cls["metadata"].get("name", "")
                explicit = (cls.get("spec") or {}).get("extendedResourceName")
                if explicit:
                    mapping.setdefault(str(explicit), name)
                mapping.setdefault(DEVICE_CLASS_PREFIX + name, name)
            self._class_mapping = mapping
        return self._class_mapping

    # --- PreEnqueue ---------------------------------------------------------------------------

    def pod_claims(self, pod: Mapping[str, Any]) -> tuple[list[dict[str, Any]], str | None]:
        """foreachPodResourceClaim: the pod's claims, or the reason one is missing."""
        namespace = (pod.get("metadata") or {}).get("namespace")
        claims: list[dict[str, Any]] = []
        for _, name, must_check_owner, problem in pod_claim_names(pod):
            if problem is not None:
                return claims, problem
            if name is None:
                continue
            claim = self.store.get("ResourceClaim", name, namespace)
            if claim is None:
                return claims, f'resourceclaim.resource.k8s.io "{name}" not found'
            meta = claim.get("metadata") or {}
            assumed = self.assumed.get(str(meta.get("uid")))
            if assumed is not None and not (claim.get("status") or {}).get("allocation"):
                claim = {**claim, "status": {**(claim.get("status") or {}), "allocation": assumed}}
            if meta.get("deletionTimestamp"):
                return claims, f'resourceclaim "{name}" is being deleted'
            if must_check_owner and not owned_by_group(pod, claim):
                uid = (pod.get("metadata") or {}).get("uid")
                if not any(
                    r.get("uid") == uid and r.get("controller")
                    for r in meta.get("ownerReferences") or []
                ):
                    pmeta = pod.get("metadata") or {}
                    return claims, (
                        f"ResourceClaim {namespace}/{name} was not created for pod "
                        f"{pmeta.get('namespace')}/{pmeta.get('name')} (pod is not owner)"
                    )
            claims.append(claim)
        return claims, None

    def pre_enqueue(self, pod: Mapping[str, Any]) -> str | None:
        return self.pod_claims(pod)[1]

    # --- PreFilter ----------------------------------------------------------------------------

    def _extended(
        self, pod: Mapping[str, Any], requests: Mapping[str, int]
    ) -> ExtendedResources | None:
        mapping = self.class_mapping()
        wanted = {
            name: value
            for name, value in requests.items()
            if value and is_extended_resource(name) and name in mapping
        }
        if not wanted:
            return None
        ext = ExtendedResources(dict(requests), mapping)
        uid = (pod.get("metadata") or {}).get("uid")
        for claim in self.store.list("ResourceClaim", (pod.get("metadata") or {}).get("namespace")):
            meta = claim["metadata"]
            if (meta.get("annotations") or {}).get(EXTENDED_RESOURCE_ANNOTATION) == "true" and any(
                r.get("uid") == uid and r.get("controller")
                for r in meta.get("ownerReferences") or []
            ):
                ext.existing = claim
                break
        return ext

    def pre_filter(
        self, pod: Mapping[str, Any], requests: Mapping[str, int]
    ) -> tuple[CycleState, Status | None]:
        state = CycleState()
        claims, problem = self.pod_claims(pod)
        if problem is not None:
            return state, unresolvable(self.name, problem)
        state.extended = self._extended(pod, requests)
        if not claims and state.extended is None:
            return state, None
        allocator = self.ensure_allocator()
        for index, claim in enumerate(claims):
            status = claim.get("status") or {}
            allocation = status.get("allocation")
            if any(
                r.get("firstAvailable")
                for r in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or []
            ):
                state.prioritized = True
            if allocation is not None:
                state.allocated.append(index)
                if len(status.get("reservedFor") or []) >= RESERVED_FOR_MAX_SIZE and not (
                    is_reserved_for(pod, claim) or reserved_for_group(pod, claim)
                ):
                    return state, unresolvable(self.name, ERR_IN_USE)
                if allocation.get("nodeSelector"):
                    state.available_on[index] = allocation["nodeSelector"]
                continue
            state.to_allocate.append(index)
            uid = (claim.get("metadata") or {}).get("uid")
            if uid in self.pending:
                return state, unresolvable(
                    self.name,
                    f"resource claim {claim_key(claim)} is in the process of being allocated",
                )
            problem_status = self._check_requests(claim) if self.check_classes else None
            if problem_status is not None:
                return state, problem_status
        state.claims = claims
        state.complete = True
        if state.to_allocate:
            to_allocate = [claims[i] for i in state.to_allocate]
            state.shape = _SHAPE_JSON.encode([c.get("spec") for c in to_allocate])
            state.prepared = allocator.prepare(to_allocate)
        return state, None

    def _check_requests(self, claim: Mapping[str, Any]) -> Status | None:
        classes = self.ensure_allocator().inventory.classes
        for request in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or []:
            name = request.get("name")
            if request.get("exactly") is not None:
                options = [(name, request["exactly"].get("deviceClassName"))]
            elif request.get("firstAvailable"):
                if not self.features.prioritized_list:
                    return unresolvable(
                        self.name,
                        f"resource claim {claim_key(claim)}, request {name}: has subrequests, "
                        "but the DRAPrioritizedList feature is disabled",
                    )
                options = [
                    (f"{name}/{sub.get('name')}", sub.get("deviceClassName"))
                    for sub in request["firstAvailable"]
                ]
            else:
                return unresolvable(
                    self.name,
                    f"resource claim {claim_key(claim)}, request {name}: unknown request type",
                )
            for request_name, class_name in options:
                if not class_name:
                    return error(self.name, f"request {request_name}: unsupported request type")
                if class_name not in classes:
                    return unresolvable(
                        self.name,
                        f"request {request_name}: device class {class_name} does not exist",
                    )
        return None

    # --- Filter -------------------------------------------------------------------------------

    def _extended_requests(
        self, pod: Mapping[str, Any], ext: ExtendedResources, node: NodeState
    ) -> tuple[dict[str, int] | None, Status | None]:
        """filterExtendedResources: which extended resources the node must give through DRA."""
        if ext.existing is not None:
            return None, unresolvable(self.name, "cannot schedule extended resource claim")
        need: dict[str, int] = {}
        for name, value in ext.requests.items():
            if not value or not is_extended_resource(name):
                continue
            on_node = name in node.allocatable
            if name in ext.classes:
                if not on_node:
                    need[name] = value
            elif not on_node:
                return None, unresolvable(self.name, "cannot fit resource")
        return need, None

    def extended_claim(
        self, pod: Mapping[str, Any], need: Mapping[str, int], classes: Mapping[str, str]
    ) -> dict[str, Any]:
        """createDeviceRequests: one request per container and DRA-backed resource."""
        spec = pod.get("spec") or {}
        containers = list(spec.get("initContainers") or []) + list(spec.get("containers") or [])
        requests: list[dict[str, Any]] = []
        q = QuantityCache()
        for resource in sorted(need):
            for i, container in enumerate(containers):
                creqs = (container.get("resources") or {}).get("requests") or {}
                if resource not in creqs:
                    continue
                count = q.amount(resource, creqs[resource])
                if count == 0:
                    continue
                ridx = sorted(creqs).index(resource)
                requests.append(
                    {
                        "name": f"container-{i}-request-{ridx}",
                        "exactly": {
                            "deviceClassName": classes[resource],
                            "allocationMode": "ExactCount",
                            "count": count,
                        },
                    }
                )
        meta = pod.get("metadata") or {}
        return {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {
                "namespace": meta.get("namespace"),
                "name": SPECIAL_CLAIM_NAME,
                "generateName": f"{meta.get('name')}-extended-resources-",
                "annotations": {EXTENDED_RESOURCE_ANNOTATION: "true"},
                "ownerReferences": [
                    {
                        "apiVersion": "v1",
                        "kind": "Pod",
                        "name": meta.get("name"),
                        "uid": meta.get("uid"),
                        "controller": True,
                        "blockOwnerDeletion": True,
                    }
                ],
            },
            "spec": {"devices": {"requests": requests}},
        }

    def filter(
        self,
        state: CycleState,
        pod: Mapping[str, Any],
        node: NodeState,
        recorder: Recorder | None = None,
    ) -> Status | None:
        if state.empty:
            return None
        prepared = state.prepared
        shape = state.shape
        ext_claim: dict[str, Any] | None = None
        if state.extended is not None:
            need, status = self._extended_requests(pod, state.extended, node)
            if status is not None:
                return status
            if need:
                ext_claim = self.extended_claim(pod, need, state.extended.classes)
            elif not state.claims:
                return None
        unavailable: list[int] = []
        for index, selector in state.available_on.items():
            try:
                ok = selector_matches(selector, node.info)
            except NodeSelectorError as err:
                return error(self.name, str(err))
            if not ok:
                unavailable.append(index)
        if self.features.binding_conditions:
            for index in state.allocated:
                claim = state.claims[index]
                ready, problem = self.claim_ready_for_binding(claim)
                if problem is not None or (not ready and self.claim_timed_out(claim)):
                    unavailable.append(index)
        allocator = self.ensure_allocator()
        if state.to_allocate or ext_claim is not None:
            if ext_claim is not None:
                claims = [state.claims[i] for i in state.to_allocate] + [ext_claim]
                prepared = allocator.prepare(claims)
                shape = state.shape + _SHAPE_JSON.encode(ext_claim["spec"])
            assert prepared is not None
            outcome = self._allocate(shape, prepared, node, recorder)
            if outcome.error is not None:
                if outcome.node_local:
                    return unresolvable(self.name, outcome.error)
                return error(self.name, outcome.error)
            if outcome.allocations is None:
                return unresolvable(self.name, ERR_CANNOT_ALLOCATE)
            if unavailable:
                state.unavailable.update(unavailable)
                return unresolvable(self.name, ERR_NOT_AVAILABLE)
            state.node_allocations[node.name] = outcome.allocations
            if ext_claim is not None:
                state.node_extended_claim[node.name] = ext_claim
            return None
        if unavailable:
            state.unavailable.update(unavailable)
            return unresolvable(self.name, ERR_NOT_AVAILABLE)
        return None

    def _allocate(
        self, shape: str, prepared: list[PreparedClaim], node: NodeState, recorder: Recorder | None
    ) -> Outcome:
        allocator = self.ensure_allocator()
        if recorder is not None:
            self.allocate_calls += 1
            return allocator.allocate(node.info, prepared, recorder)
        memo = self._memo.get(shape)
        if memo is None:
            memo = self._memo[shape] = {}
        # The declared features too: a node that declares DRAOptionalNodeOperations later may
        # get devices that skip node operations, which it could not before.
        key = (node.info.key, node.info.declared_features)
        cached = memo.get(key)
        state = allocator.state
        versions = state.pool_version
        if cached is not None:
            when, outcome, pools = cached
            for pool in pools:
                if versions.get(pool, 0) > when:
                    break
            else:
                return outcome
        self.allocate_calls += 1
        outcome = allocator.allocate(node.info, prepared)
        # Allocations of shares are kept too: their shareIDs stay unique, because taking an
        # allocation (Reserve) changes the node's pools, which drops it from the memo.
        if outcome.error is None or outcome.node_local:
            pools = allocator.inventory.node_view(node.info).pool_keys
            memo[key] = (state.clock, outcome, pools)
        return outcome

    # --- PostFilter ---------------------------------------------------------------------------

    def post_filter(self, state: CycleState, pod: Mapping[str, Any]) -> str:
        """Deallocate one allocated claim that blocks the pod, if only this pod uses it."""
        if state.empty or not state.complete:
            return "no new claims to deallocate"
        uid = (pod.get("metadata") or {}).get("uid")
        for index in sorted(state.unavailable):
            claim = state.claims[index]
            reserved = (claim.get("status") or {}).get("reservedFor") or []
            if not reserved or (len(reserved) == 1 and reserved[0].get("uid") == uid):
                new = dict(claim)
                status = dict(claim.get("status") or {})
                for name in ("reservedFor", "allocation", "devices"):
                    status.pop(name, None)
                new["status"] = status
                self.store.update(new)
                return "deallocation of ResourceClaim completed"
        ext = state.extended
        if ext is not None and ext.existing is not None:
            self._delete_claim(ext.existing)
            return "deletion of ResourceClaim completed"
        return "still not schedulable"

    def _delete_claim(self, claim: Mapping[str, Any]) -> None:
        meta = claim.get("metadata") or {}
        finalizers = [f for f in meta.get("finalizers") or [] if f != DELETE_PROTECTION_FINALIZER]
        if finalizers != list(meta.get("finalizers") or []):
            claim = self.store.update({**claim, "metadata": {**meta, "finalizers": finalizers}})
        self.store.delete("ResourceClaim", meta.get("name", ""), meta.get("namespace"))

    # --- Score --------------------------------------------------------------------------------

    def score(self, state: CycleState, node_name: str) -> int:
        if not state.prioritized or not self.features.prioritized_list:
            return 0
        allocations = state.node_allocations.get(node_name)
        if allocations is None:
            return 0
        score = 0
        next_index = 0
        for claim in state.claims:
            allocation = (claim.get("status") or {}).get("allocation")
            if allocation is None:
                if next_index >= len(allocations):
                    break
                allocation = allocations[next_index]
                next_index += 1
            chosen = {r.get("request") for r in _results(allocation)}
            for request in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or []:
                for i, sub in enumerate(request.get("firstAvailable") or []):
                    if f"{request.get('name')}/{sub.get('name')}" in chosen:
                        score += FIRST_AVAILABLE_MAX_SIZE - i
        return score

    # --- Reserve / Unreserve ------------------------------------------------------------------

    def reserve(self, state: CycleState, node_name: str) -> dict[str, dict[str, Any]]:
        """Count the node's allocations as taken; returns them per claim key."""
        out: dict[str, dict[str, Any]] = {}
        allocations = state.node_allocations.get(node_name) or []
        allocator = self.ensure_allocator()
        claims = [state.claims[i] for i in state.to_allocate]
        ext = state.node_extended_claim.get(node_name)
        if ext is not None:
            claims.append(ext)
        for claim, allocation in zip(claims, allocations, strict=False):
            results = _results(allocation)
            allocator.state.add_results(results)
            uid = str(claim["metadata"].get("uid") or f"pending:{claim_key(claim)}")
            self.pending.add(uid)
            self._counted[uid] = results
            out[claim_key(claim)] = allocation
        return out

    def unreserve(self, state: CycleState, node_name: str) -> None:
        allocations = state.node_allocations.get(node_name) or []
        claims = [state.claims[i] for i in state.to_allocate]
        ext = state.node_extended_claim.get(node_name)
        if ext is not None:
            claims.append(ext)
        for claim, _ in zip(claims, allocations, strict=False):
            uid = str(claim["metadata"].get("uid") or f"pending:{claim_key(claim)}")
            if uid in self.pending:
                self.pending.discard(uid)
                self._count(uid, [])

    # --- PreBind ------------------------------------------------------------------------------

    def pre_bind(
        self, state: CycleState, pod: dict[str, Any], node_name: str
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """bindClaim for every claim not yet reserved for the pod; returns the claims as
        written and the pod (with extendedResourceClaimStatus when a claim was created)."""
        meta = pod.get("metadata") or {}
        ref = {"resource": "pods", "name": meta.get("name"), "uid": meta.get("uid")}
        allocations = iter(state.node_allocations.get(node_name) or [])
        allocation_of: dict[int, dict[str, Any]] = {}
        for index in state.to_allocate:
            allocation_of[index] = next(allocations)
        written: list[dict[str, Any]] = []
        now = self.clock.timestamp()
        for index, claim in enumerate(state.claims):
            current = self.store.get(
                "ResourceClaim", claim["metadata"]["name"], claim["metadata"].get("namespace")
            )
            if current is None:
                raise BindError(f"claim {claim_key(claim)} got deleted in the meantime")
            if is_reserved_for(pod, current):
                written.append(current)
                continue
            # KEP-5729: a PodGroup's claim is reserved once, for the PodGroup.
            group_ref = group_claim_ref(self.store, pod, current)
            if group_ref is not None and any(
                r.get("uid") == group_ref["uid"]
                for r in (current.get("status") or {}).get("reservedFor") or []
            ):
                written.append(current)
                continue
            written.append(
                self._bind_claim(current, allocation_of.get(index), group_ref or ref, now)
            )
        ext = state.node_extended_claim.get(node_name)
        if ext is not None:
            allocation = next(allocations)
            created_meta = {k: v for k, v in ext["metadata"].items() if k != "name"}
            created = self.store.create({**ext, "metadata": created_meta})
            old_uid = f"pending:{claim_key(ext)}"
            self.pending.discard(old_uid)
            results = self._counted.pop(old_uid, [])
            uid = created["metadata"]["uid"]
            self._counted[uid] = results
            self.pending.add(uid)
            written.append(self._bind_claim(created, allocation, ref, now))
            pod = self._patch_extended_status(pod, created)
        return written, pod

    def _bind_claim(
        self,
        claim: dict[str, Any],
        allocation: dict[str, Any] | None,
        ref: dict[str, Any],
        now: str,
    ) -> dict[str, Any]:
        meta = dict(claim["metadata"])
        status = dict(claim.get("status") or {})
        if meta.get("deletionTimestamp"):
            raise BindError(f"claim {claim_key(claim)} got deleted in the meantime")
        if allocation is not None:
            if status.get("allocation") is not None:
                raise BindError(f"claim {claim_key(claim)} got allocated elsewhere in the meantime")
            finalizers = list(meta.get("finalizers") or [])
            if DELETE_PROTECTION_FINALIZER not in finalizers:
                finalizers.append(DELETE_PROTECTION_FINALIZER)
                meta["finalizers"] = finalizers
            allocation = dict(allocation)
            if self.features.binding_conditions and not allocation.get("allocationTimestamp"):
                allocation["allocationTimestamp"] = now
            status["allocation"] = allocation
        status["reservedFor"] = [*list(status.get("reservedFor") or []), ref]
        return self.store.update({**claim, "metadata": meta, "status": status})

    def _patch_extended_status(
        self, pod: dict[str, Any], claim: Mapping[str, Any]
    ) -> dict[str, Any]:
        spec = pod.get("spec") or {}
        containers = list(spec.get("initContainers") or []) + list(spec.get("containers") or [])
        names = {r.get("name") for r in claim["spec"]["devices"]["requests"]}
        mappings = []
        for i, c in enumerate(containers):
            creqs = (c.get("resources") or {}).get("requests") or {}
            keys = sorted(creqs)
            for resource in creqs:
                request = f"container-{i}-request-{keys.index(resource)}"
                if request in names:
                    mappings.append(
                        {
                            "containerName": c.get("name"),
                            "resourceName": resource,
                            "requestName": request,
                        }
                    )
        status = dict(pod.get("status") or {})
        status["extendedResourceClaimStatus"] = {
            "requestMappings": mappings,
            "resourceClaimName": claim["metadata"]["name"],
        }
        return self.store.update({**pod, "status": status})

    # --- binding conditions -------------------------------------------------------------------

    def claim_ready_for_binding(self, claim: Mapping[str, Any]) -> tuple[bool, str | None]:
        """isClaimReadyForBinding: (ready, failure message)."""
        status = claim.get("status") or {}
        allocation = status.get("allocation")
        if allocation is None:
            return False, None
        devices = status.get("devices") or []
        for result in _results(allocation):
            conditions = result.get("bindingConditions") or []
            if not conditions:
                continue
            device_status = next(
                (
                    d
                    for d in devices
                    if d.get("device") == result.get("device")
                    and d.get("driver") == result.get("driver")
                    and d.get("pool") == result.get("pool")
                ),
                None,
            )
            if device_status is None:
                return False, None
            by_type = {c.get("type"): c for c in device_status.get("conditions") or []}
            for name in result.get("bindingFailureConditions") or []:
                cond = by_type.get(name)
                if cond is not None and cond.get("status") == "True":
                    quoted = json.dumps(cond.get("message", ""))
                    return False, (
                        f"claim {claim['metadata'].get('name')} binding failed: "
                        f"reason={cond.get('reason', '')}, message={quoted}"
                    )
            for name in conditions:
                cond = by_type.get(name)
                if cond is None or cond.get("status") != "True":
                    return False, None
        return True, None

    def binding_deadline(self, claim: Mapping[str, Any]) -> Any:
        """When the binding timeout of a claim with binding conditions runs out (or None)."""
        allocation = (claim.get("status") or {}).get("allocation") or {}
        stamp = allocation.get("allocationTimestamp")
        if not stamp or not any(r.get("bindingConditions") for r in _results(allocation)):
            return None
        start = parse_time(str(stamp))
        return None if start is None else start + timedelta(seconds=BINDING_TIMEOUT_SECONDS)

    def claim_timed_out(self, claim: Mapping[str, Any]) -> bool:
        # Reaching the deadline counts (upstream compares with a clock that has moved on);
        # PreBind's wait uses the same rule, so a retry cannot find the claim still usable.
        deadline = self.binding_deadline(claim)
        return deadline is not None and deadline <= self.clock.now()

    def has_binding_conditions(self, claims: list[dict[str, Any]]) -> bool:
        return any(
            r.get("bindingConditions")
            for c in claims
            for r in _results((c.get("status") or {}).get("allocation"))
        )


class BindError(Exception):
    """PreBind could not write a claim; the pod goes back to the queue."""
