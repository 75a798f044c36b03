"""``coordination.k8s.io/v1`` Lease: the heartbeat a kubelet renews for its node (served by
kubedra's apiserver for the simulated nodes, not stored or loaded)."""

from __future__ import annotations

from typing import Literal

from kubedra.api.models.base import Int32, KubeModel, KubeObject, Time
from kubedra.api.models.meta import ObjectMeta


class LeaseSpec(KubeModel):
    holder_identity: str | None = None
    lease_duration_seconds: Int32 | None = None
    acquire_time: Time | None = None
    renew_time: Time | None = None
    lease_transitions: Int32 | None = None
    strategy: str | None = None
    preferred_holder: str | None = None


class Lease(KubeObject):
    """A lease: who holds it, for how long, and when it was last renewed."""

    api_version: Literal["coordination.k8s.io/v1"] = "coordination.k8s.io/v1"
    kind: Literal["Lease"] = "Lease"
    metadata: ObjectMeta | None = None
    spec: LeaseSpec | None = None
