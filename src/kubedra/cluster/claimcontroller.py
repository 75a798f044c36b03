"""The ResourceClaim controller (kube-controller-manager's pkg/controller/resourceclaim).

It creates a claim for each template entry of a pod (generated name ``<pod>-<entry>-xxxxx``,
the ``resource.kubernetes.io/pod-claim-name`` annotation, the pod as controlling owner) and
records it in ``status.resourceClaimStatuses``; reserves allocated claims for pods bound
without the scheduler; drops ``reservedFor`` entries of pods that are gone or done,
deallocates a claim whose last consumer went (removing the delete-protection finalizer), and
deletes generated claims whose pod will not run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubedra.cluster.events import Event
from kubedra.cluster.podclaims import (
    POD_CLAIM_NAME_ANNOTATION,
    ClaimNotCreated,
    claim_name,
    is_for_pod,
    is_pod_done,
    is_reserved_for_pod,
    owning_pod,
    pod_claim_names,
)
from kubedra.cluster.podgroupclaims import group_entry
from kubedra.cluster.store import DELETE_PROTECTION_FINALIZER, Store, StoreError
from kubedra.cluster.workqueue import WorkQueue
from kubedra.gofmt import quote

_MAX_BASE_LEN = 57
"""Room for the hyphen-less random suffix of five characters in a 63 character name."""
RESERVED_FOR_MAX = 256


@dataclass(frozen=True)
class ControllerEvent:
    """A Kubernetes Event the controller would record (shown by ``kubedra simulate``)."""

    object: str
    type: str
    reason: str
    message: str


def generate_name(pod_name: str, entry_name: str) -> str:
    """``<pod>-<entry>-``, both parts shortened in proportion when it is too long (upstream)."""
    base = f"{pod_name}-{entry_name}-"
    if len(base) <= _MAX_BASE_LEN:
        return base
    total = len(base)
    return (
        pod_name[: len(pod_name) * _MAX_BASE_LEN // total]
        + "-"
        + entry_name[: len(entry_name) * _MAX_BASE_LEN // total]
    )


class ResourceClaimController:
    """Reacts to pod and claim changes; :meth:`sync` does the queued work."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.queue: WorkQueue[tuple[str, str, str]] = WorkQueue()
        self.events: list[ControllerEvent] = []
        self._deleted_pods: set[str] = set()
        self._failed_pods: set[tuple[str, str, str]] = set()
        # "namespace/claim" -> keys of pods whose spec refers to it (podResourceClaimIndex)
        self._pods_by_claim: dict[str, set[str]] = {}
        self._pod_claims: dict[str, list[str]] = {}
        # The (spec.resourceClaims, status.resourceClaimStatuses) lists each pod was indexed
        # from: a write that keeps both (binding, the kubelet's status) names the same claims.
        self._indexed_from: dict[str, tuple[Any, Any]] = {}
        store.subscribe(self._on_event)

    # --- event handlers (never write, only queue) ------------------------------------------

    def _on_event(self, event: Event) -> None:
        if event.kind == "Pod":
            self._on_pod(event.obj, event.type == "DELETED")
        elif event.kind == "ResourceClaim":
            self._on_claim(event)
        elif event.kind == "PodGroup" and event.type == "DELETED":
            # KEP-5729: a claim reserved for a PodGroup is released when the group is gone.
            self._on_pod_group_deleted(event.obj)
        elif event.kind == "ResourceClaimTemplate" and event.type == "ADDED":
            # Upstream retries failed pods with backoff; a new template is when that can help.
            for key in sorted(self._failed_pods):
                self.queue.add(key)

    def _on_pod_group_deleted(self, group: dict[str, Any]) -> None:
        meta = group["metadata"]
        namespace = meta.get("namespace")
        for claim in self.store.list("ResourceClaim", namespace):
            reserved = (claim.get("status") or {}).get("reservedFor") or []
            uid = meta["uid"]
            if any(r.get("resource") == "podgroups" and r.get("uid") == uid for r in reserved):
                self.queue.add(("claim", namespace, claim["metadata"]["name"]))

    def _on_pod(self, pod: dict[str, Any], deleted: bool) -> None:
        spec_claims = (pod.get("spec") or {}).get("resourceClaims")
        meta = pod["metadata"]
        key = f"{meta['namespace']}/{meta['name']}"
        self._index_pod(key, pod, deleted)
        if not spec_claims:
            return
        if deleted:
            self._deleted_pods.add(meta["uid"])
        if deleted or is_pod_done(pod):
            # podNeedsClaims is false: its claims are only to be released (or deleted).
            for name, _ in pod_claim_names(pod):
                self.queue.add(("claim", meta["namespace"], name))
        if not deleted and self._needs_work(pod):
            self.queue.add(("pod", meta["namespace"], meta["name"]))

    def _on_claim(self, event: Event) -> None:
        claim = event.obj
        meta = claim["metadata"]
        if event.type != "DELETED":
            self.queue.add(("claim", meta["namespace"], meta["name"]))
        for pod_key in sorted(self._pods_by_claim.get(f"{meta['namespace']}/{meta['name']}", ())):
            namespace, _, name = pod_key.partition("/")
            pod = self.store.get("Pod", name, namespace)
            if pod is not None:
                self._on_pod(pod, False)

    def _index_pod(self, key: str, pod: dict[str, Any], deleted: bool) -> None:
        if deleted:
            self._indexed_from.pop(key, None)
        else:
            # Stored objects are never changed in place: the same lists, the same names.
            source = (
                (pod.get("spec") or {}).get("resourceClaims"),
                (pod.get("status") or {}).get("resourceClaimStatuses"),
            )
            last = self._indexed_from.get(key)
            if last is not None and last[0] is source[0] and last[1] is source[1]:
                return
            self._indexed_from[key] = source
        namespace = pod["metadata"]["namespace"]
        new = [] if deleted else [f"{namespace}/{name}" for name, _ in pod_claim_names(pod)]
        old = self._pod_claims.get(key, [])
        if new == old:
            return
        for claim_key in old:
            pods = self._pods_by_claim.get(claim_key)
            if pods is not None:
                pods.discard(key)
                if not pods:
                    del self._pods_by_claim[claim_key]
        for claim_key in new:
            self._pods_by_claim.setdefault(claim_key, set()).add(key)
        if new:
            self._pod_claims[key] = new
        else:
            self._pod_claims.pop(key, None)

    def _needs_work(self, pod: dict[str, Any]) -> bool:
        if "deletionTimestamp" in pod["metadata"] or is_pod_done(pod):
            # A pod that is done will not run again: creating a claim for it (which its
            # claim sync would delete at once, queueing the pod again) or reserving one
            # for it would never end (issue 23; upstream kubernetes#141274 for reserving).
            return False
        namespace = pod["metadata"]["namespace"]
        for entry in pod["spec"].get("resourceClaims") or []:
            try:
                ref = claim_name(pod, entry)
            except ClaimNotCreated:
                return True
            except ValueError:
                return False
            if ref.name is None:
                return False
            claim = self.store.get("ResourceClaim", ref.name, namespace)
            if claim is None:
                return bool(entry.get("resourceClaimTemplateName"))
            if ref.check_owner and not is_for_pod(pod, claim):
                return False
            if not pod["spec"].get("nodeName"):
                continue
            if self._needs_reservation(pod, claim):
                return True
        return False

    @staticmethod
    def _needs_reservation(pod: dict[str, Any], claim: dict[str, Any]) -> bool:
        status = claim.get("status") or {}
        return (
            bool(status.get("allocation"))
            and not is_reserved_for_pod(pod, claim)
            and len(status.get("reservedFor") or []) < RESERVED_FOR_MAX
        )

    # --- work ------------------------------------------------------------------------------

    def sync(self) -> bool:
        """Process the queue until empty; True when anything was processed."""
        worked = False
        while self.queue:
            key = self.queue.pop()
            assert key is not None
            worked = True
            prefix, namespace, name = key
            if prefix == "pod":
                self._sync_pod(namespace, name)
            else:
                self._sync_claim(namespace, name)
        return worked

    def _sync_pod(self, namespace: str, name: str) -> None:
        pod = self.store.get("Pod", name, namespace)
        if pod is None or "deletionTimestamp" in pod["metadata"] or is_pod_done(pod):
            return  # gone, going, or finished since it was queued: nothing to create
        key = ("pod", namespace, name)
        created: dict[str, str] = {}
        for entry in pod["spec"].get("resourceClaims") or []:
            error = self._handle_entry(pod, entry, created)
            if error is not None:
                self._failed_pods.add(key)
                self.events.append(
                    ControllerEvent(
                        f"{namespace}/{name}",
                        "Warning",
                        "FailedResourceClaimCreation",
                        f"PodResourceClaim {entry.get('name')}: {error}",
                    )
                )
                if created:
                    self._record_statuses(pod, created)
                return
        self._failed_pods.discard(key)
        if created:
            pod = self._record_statuses(pod, created)
        if not pod["spec"].get("nodeName"):
            return
        for claim, check_owner in pod_claim_names(pod):
            stored = self.store.get("ResourceClaim", claim, namespace)
            if stored is None or (check_owner and not is_for_pod(pod, stored)):
                return
            if self._needs_reservation(pod, stored):
                self._reserve(pod, stored)

    def _handle_entry(
        self, pod: dict[str, Any], entry: dict[str, Any], created: dict[str, str]
    ) -> str | None:
        namespace = pod["metadata"]["namespace"]
        try:
            ref = claim_name(pod, entry)
        except ClaimNotCreated:
            pass
        except ValueError as error:
            return f"checking for claim before creating it: {error}"
        else:
            if ref.name is None:
                return None
            if ref.name:
                existing = self.store.get("ResourceClaim", ref.name, namespace)
                if existing is not None and (not ref.check_owner or is_for_pod(pod, existing)):
                    return None
        template_name = entry.get("resourceClaimTemplateName")
        if not template_name:
            return None
        found = group_entry(self.store, pod, entry)
        if found is not None:
            group_claim = self._group_claim(found[0], entry["name"], template_name)
            if isinstance(group_claim, str):
                return group_claim
            created[entry["name"]] = group_claim["metadata"]["name"]
            return None
        claim = self._find_generated(pod, entry["name"])
        if claim is None:
            template = self.store.get("ResourceClaimTemplate", template_name, namespace)
            if template is None:
                return (
                    f"resource claim template {quote(template_name)}: "
                    f"resourceclaimtemplates.resource.k8s.io {quote(template_name)} not found"
                )
            features = self.store.features
            if (
                features is not None
                and not getattr(features, "admin_access", True)
                and _needs_admin_access(template)
            ):
                return "admin access is requested, but the feature is disabled"
            try:
                claim = self.store.create(self._claim_from(pod, entry["name"], template))
            except StoreError as error:
                base = generate_name(pod["metadata"]["name"], entry["name"])
                return f"create ResourceClaim {base}: {error}"
        created[entry["name"]] = claim["metadata"]["name"]
        return None

    def _group_claim(
        self, group: dict[str, Any], entry_name: str, template_name: str
    ) -> dict[str, Any] | str:
        """KEP-5729: the PodGroup's claim from a template, created once for the group (owned
        by it, recorded in its ``status.resourceClaimStatuses``); an error message else."""
        meta = group["metadata"]
        namespace = meta["namespace"]
        statuses = list((group.get("status") or {}).get("resourceClaimStatuses") or [])
        for status in statuses:
            if status.get("name") == entry_name and status.get("resourceClaimName"):
                existing = self.store.get("ResourceClaim", status["resourceClaimName"], namespace)
                if existing is not None:
                    return existing
        template = self.store.get("ResourceClaimTemplate", template_name, namespace)
        if template is None:
            return (
                f"resource claim template {quote(template_name)}: "
                f"resourceclaimtemplates.resource.k8s.io {quote(template_name)} not found"
            )
        owner = {"name": meta["name"], "metadata": {**meta}}
        claim = self._claim_from(owner, entry_name, template)
        claim["metadata"]["ownerReferences"] = [
            {
                "apiVersion": group["apiVersion"],
                "kind": "PodGroup",
                "name": meta["name"],
                "uid": meta["uid"],
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ]
        try:
            created = self.store.create(claim)
        except StoreError as error:
            return f"create ResourceClaim {generate_name(meta['name'], entry_name)}: {error}"
        statuses = [s for s in statuses if s.get("name") != entry_name]
        statuses.append({"name": entry_name, "resourceClaimName": created["metadata"]["name"]})
        status = {**(group.get("status") or {}), "resourceClaimStatuses": statuses}
        self.store.update({**group, "status": status})
        return created

    def _claim_from(
        self, pod: dict[str, Any], entry_name: str, template: dict[str, Any]
    ) -> dict[str, Any]:
        template_spec = template.get("spec") or {}
        template_meta = template_spec.get("metadata") or {}
        annotations = dict(template_meta.get("annotations") or {})
        annotations[POD_CLAIM_NAME_ANNOTATION] = entry_name
        meta: dict[str, Any] = {
            "generateName": generate_name(pod["metadata"]["name"], entry_name),
            "namespace": pod["metadata"]["namespace"],
            "ownerReferences": [
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "name": pod["metadata"]["name"],
                    "uid": pod["metadata"]["uid"],
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
            "annotations": annotations,
        }
        if template_meta.get("labels"):
            meta["labels"] = dict(template_meta["labels"])
        return {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": meta,
            "spec": template_spec.get("spec") or {},
        }

    def _find_generated(self, pod: dict[str, Any], entry_name: str) -> dict[str, Any] | None:
        """A claim created for this entry earlier whose pod status update did not land."""
        uid = pod["metadata"]["uid"]
        for dependent in self.store.dependents(uid):
            if dependent.get("kind") != "ResourceClaim":
                continue
            annotations = dependent["metadata"].get("annotations") or {}
            if annotations.get(POD_CLAIM_NAME_ANNOTATION) == entry_name and is_for_pod(
                pod, dependent
            ):
                return dependent
        return None

    def _record_statuses(self, pod: dict[str, Any], created: dict[str, str]) -> dict[str, Any]:
        status = dict(pod.get("status") or {})
        known = {s["name"]: s for s in status.get("resourceClaimStatuses") or []}
        for entry_name, claim in created.items():
            known[entry_name] = {"name": entry_name, "resourceClaimName": claim}
        order = [e["name"] for e in pod["spec"].get("resourceClaims") or []]
        status["resourceClaimStatuses"] = sorted(
            known.values(), key=lambda s: order.index(s["name"]) if s["name"] in order else 0
        )
        return self.store.update(pod | {"status": status})

    def _reserve(self, pod: dict[str, Any], claim: dict[str, Any]) -> None:
        status = dict(claim.get("status") or {})
        meta = pod["metadata"]
        status["reservedFor"] = [
            *(status.get("reservedFor") or []),
            {"resource": "pods", "name": meta["name"], "uid": meta["uid"]},
        ]
        self.store.update(claim | {"status": status})

    def _sync_claim(self, namespace: str, name: str) -> None:
        claim = self.store.get("ResourceClaim", name, namespace)
        if claim is None:
            return
        status = claim.get("status") or {}
        reserved = status.get("reservedFor") or []
        valid = [ref for ref in reserved if self._keep_reservation(namespace, ref)]
        finalizers = list(claim["metadata"].get("finalizers") or [])
        protected = DELETE_PROTECTION_FINALIZER in finalizers
        if len(valid) < len(reserved):
            new_status = dict(status)
            new_status["reservedFor"] = valid
            if not valid:
                new_status.pop("reservedFor")
                if protected:
                    new_status.pop("allocation", None)
                    new_status.pop("devices", None)
            claim = self.store.update(claim | {"status": new_status})
            if protected and "allocation" not in new_status:
                finalizers.remove(DELETE_PROTECTION_FINALIZER)
                claim = self.store.update(
                    claim | {"metadata": claim["metadata"] | {"finalizers": finalizers}}
                )
                if self.store.get("ResourceClaim", name, namespace) is None:
                    return
        elif protected and "deletionTimestamp" in claim["metadata"] and not valid:
            if status.get("allocation"):
                new_status = {k: v for k, v in status.items() if k not in ("allocation", "devices")}
                claim = self.store.update(claim | {"status": new_status})
            finalizers.remove(DELETE_PROTECTION_FINALIZER)
            self.store.update(claim | {"metadata": claim["metadata"] | {"finalizers": finalizers}})
            if self.store.get("ResourceClaim", name, namespace) is None:
                return
            claim = self.store.get("ResourceClaim", name, namespace) or claim
        if valid:
            return
        owner = owning_pod(claim)
        if owner is None:
            return
        pod = self.store.get("Pod", owner[0], namespace)
        if pod is not None and (pod["metadata"]["uid"] != owner[1] or is_pod_done(pod)):
            self.store.delete("ResourceClaim", name, namespace)

    def _keep_reservation(self, namespace: str, ref: dict[str, Any]) -> bool:
        if ref.get("apiGroup") == "scheduling.k8s.io" and ref.get("resource") == "podgroups":
            group = self.store.get("PodGroup", str(ref.get("name")), namespace)
            return group is not None and group["metadata"].get("uid") == ref.get("uid")
        if ref.get("apiGroup") or ref.get("resource") != "pods":
            return True
        uid = ref.get("uid")
        if uid in self._deleted_pods:
            return False
        pod = self.store.get("Pod", str(ref.get("name")), namespace)
        return pod is not None and pod["metadata"]["uid"] == uid and not is_pod_done(pod)


def _needs_admin_access(template: dict[str, Any]) -> bool:
    requests = (((template.get("spec") or {}).get("spec") or {}).get("devices") or {}).get(
        "requests"
    ) or []
    return any(((r.get("exactly") or {}).get("adminAccess")) for r in requests)
