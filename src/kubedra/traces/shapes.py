"""Request shapes: what one task asks of the GPUs, as one ResourceClaimTemplate each.

Tasks with the same shape share a template in cluster.yaml, and each Pod of the trace names its
template, so that a trace entry stays one short line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from kubedra.traces.gpu_cluster import MODEL_ATTRIBUTE, SHARE_CAPACITY, WHOLE_GPU

REQUEST_NAME = "gpu"
"""The request's name in each template and the claim's name in each Pod."""


@dataclass(frozen=True, order=True)
class GpuShape:
    """``gpus`` whole GPUs, or (``milli`` < 1000) a share of one; ``models`` the GPU models
    allowed (empty: any)."""

    gpus: int
    milli: int = WHOLE_GPU
    models: tuple[str, ...] = ()

    @property
    def shared(self) -> bool:
        return self.milli < WHOLE_GPU

    @property
    def template_name(self) -> str:
        """``gpu-2``, ``gpu-milli-460``, ``gpu-1-v100m16-v100m32``: readable and unique."""
        base = f"gpu-milli-{self.milli}" if self.shared else f"gpu-{self.gpus}"
        return "-".join([base, *(model.lower() for model in self.models)])

    def gpu_count(self) -> float:
        """GPUs this shape takes (a share counts its fraction)."""
        return self.milli / WHOLE_GPU if self.shared else float(self.gpus)


def model_selector(driver: str, models: tuple[str, ...]) -> str:
    """A CEL expression true for devices of one of ``models``."""
    attribute = f"device.attributes[{json.dumps(driver)}].{MODEL_ATTRIBUTE}"
    if len(models) == 1:
        return f"{attribute} == {json.dumps(models[0])}"
    return f"{attribute} in [{', '.join(json.dumps(model) for model in models)}]"


def claim_template(shape: GpuShape, driver: str, namespace: str) -> dict[str, Any]:
    """The ResourceClaimTemplate of ``shape``: ``count`` whole devices of the driver's class,
    or one device with ``capacity.requests.gpu_milli`` for a share."""
    exactly: dict[str, Any] = {
        "deviceClassName": driver,
        "allocationMode": "ExactCount",
        "count": shape.gpus,
    }
    if shape.models:
        exactly["selectors"] = [{"cel": {"expression": model_selector(driver, shape.models)}}]
    if shape.shared:
        exactly["capacity"] = {"requests": {SHARE_CAPACITY: str(shape.milli)}}
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": shape.template_name, "namespace": namespace},
        "spec": {"spec": {"devices": {"requests": [{"name": REQUEST_NAME, "exactly": exactly}]}}},
    }
