"""``policy/v1`` PodDisruptionBudget, partially modeled: what DefaultPreemption reads
(``minAvailable``/``maxUnavailable``, ``selector``, ``status.disruptionsAllowed`` and
``disruptedPods``); other fields are kept as written."""

from __future__ import annotations

from typing import Any, Literal

from kubedra.api.models.base import Int32, KubeModel, KubeObject
from kubedra.api.models.meta import ObjectMeta


class PodDisruptionBudgetSpec(KubeModel):
    min_available: Int32 | str | None = None
    max_unavailable: Int32 | str | None = None
    selector: dict[str, Any] | None = None


class PodDisruptionBudgetStatus(KubeModel):
    disruptions_allowed: Int32 | None = None
    disrupted_pods: dict[str, Any] | None = None


class PodDisruptionBudget(KubeObject):
    api_version: Literal["policy/v1"] = "policy/v1"
    kind: Literal["PodDisruptionBudget"] = "PodDisruptionBudget"
    metadata: ObjectMeta | None = None
    spec: PodDisruptionBudgetSpec | None = None
    status: PodDisruptionBudgetStatus | None = None
