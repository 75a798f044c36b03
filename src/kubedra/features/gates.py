"""The DRA feature gates of Kubernetes 1.34 to 1.37: maturity and default per release.

Sources, checked gate by gate:

* the versioned specs in kubernetes/kubernetes (``defaultVersionedKubernetesFeatureGates``:
  ``pkg/features/kube_features.go``, and from 1.37 on the scheduler-specific gate file split
  out of it), each entry ``{Version, Default, PreRelease, LockToDefault}``;
* the feature-gate pages of kubernetes/website,
  ``content/en/docs/reference/command-line-tools-reference/feature-gates/<Gate>.md``
  (``stages: stage/defaultValue/fromVersion/toVersion/locked``).

Both agree on every stage and default below. One difference: the website marks
DRADeviceTaintRules and DRADeviceTaints as locked GA in 1.37, while the 1.37 code sets
``LockToDefault: false`` ("LockToDefault: true in 1.38"); kubedra follows the code, so both
can still be turned off in 1.37. DRAPreemption (preempting pods that hold claims, KEP-5690)
has a KEP but no gate in the published 1.34-1.37 tables; kubedra accepts it from 1.37 on as the
alpha gate the KEP names (off by default), so that ``--feature-gates DRAPreemption=true`` works
as it will there.

A gate that a release does not have yet is unknown to that release's binaries, so
``--feature-gates`` rejects it there as kube-scheduler does.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from kubedra.features.releases import SUPPORTED, release_key


class Stage(enum.StrEnum):
    ALPHA = "alpha"
    BETA = "beta"
    GA = "GA"


@dataclass(frozen=True)
class GateSpec:
    """One entry of a gate's versioned specs: from ``since`` on, this maturity and default."""

    since: str
    default: bool
    stage: Stage
    locked: bool = False


A, B, GA = Stage.ALPHA, Stage.BETA, Stage.GA

GATES: dict[str, tuple[GateSpec, ...]] = {
    "DynamicResourceAllocation": (
        GateSpec("1.26", False, A),
        GateSpec("1.32", False, B),
        GateSpec("1.34", True, GA),
        GateSpec("1.35", True, GA, locked=True),
    ),
    "DRAAdminAccess": (
        GateSpec("1.32", False, A),
        GateSpec("1.34", True, B),
        GateSpec("1.36", True, GA, locked=True),
    ),
    "DRAConsumableCapacity": (GateSpec("1.34", False, A), GateSpec("1.36", True, B)),
    "DRADerivedAttributes": (GateSpec("1.37", False, A),),
    "DRADeviceBindingConditions": (GateSpec("1.34", False, A), GateSpec("1.36", True, B)),
    "DRADeviceCompatibilityGroups": (GateSpec("1.37", False, A),),
    "DRADeviceTaintRules": (
        GateSpec("1.35", False, A),
        GateSpec("1.36", False, B),  # "Depends on an off-by-default beta API."
        GateSpec("1.37", True, GA),
    ),
    "DRADeviceTaints": (
        GateSpec("1.33", False, A),
        GateSpec("1.36", True, B),
        GateSpec("1.37", True, GA),
    ),
    "DRAExtendedResource": (
        GateSpec("1.34", False, A),
        GateSpec("1.36", True, B),
        GateSpec("1.37", True, GA, locked=True),
    ),
    # Beta in 1.37 but on by default only once the minimum compatibility version is 1.37,
    # i.e. not in a plain 1.37 control plane (whose minimum compatibility version is 1.36).
    "DRAFractionalCapacityRange": (GateSpec("1.37", False, B),),
    "DRAListTypeAttributes": (GateSpec("1.36", False, A),),
    "DRANodeAllocatableResources": (GateSpec("1.36", False, A),),
    "DRAOptionalNodeOperations": (GateSpec("1.37", False, A),),
    "DRAPartitionableDevices": (GateSpec("1.33", False, A), GateSpec("1.36", True, B)),
    "DRAPartitionableDevicesType": (GateSpec("1.37", False, A),),
    "DRAPreemption": (GateSpec("1.37", False, A),),
    "DRAPrioritizedList": (
        GateSpec("1.33", False, A),
        GateSpec("1.34", True, B),
        GateSpec("1.36", True, GA),
        GateSpec("1.37", True, GA, locked=True),
    ),
    # KEP-5677: the resource.k8s.io/v1alpha3 ResourcePoolStatusRequest API (second alpha in
    # 1.37); website feature-gates/DRAResourcePoolStatus.md: alpha, off, from 1.36.
    "DRAResourcePoolStatus": (GateSpec("1.36", False, A),),
    "DRAResourceClaimDeviceStatus": (
        GateSpec("1.32", False, A),
        GateSpec("1.33", True, B),
        GateSpec("1.37", True, GA, locked=True),
    ),
    "DRASchedulerFilterTimeout": (GateSpec("1.34", True, B),),
    "DRAWorkloadResourceClaims": (GateSpec("1.36", False, A), GateSpec("1.37", False, B)),
}
"""Every DRA gate, its specs oldest first."""

BASELINE = "DynamicResourceAllocation"
"""The gate every DRA object depends on."""


def spec_at(gate: str, release: str) -> GateSpec | None:
    """The gate's spec in ``release``, or None when that release does not have the gate."""
    current = None
    for spec in GATES.get(gate, ()):
        if release_key(spec.since) <= release_key(release):
            current = spec
    return current


def known_gates(release: str) -> list[str]:
    """The DRA gates a release knows, sorted."""
    return sorted(gate for gate in GATES if spec_at(gate, release) is not None)


def default_gates(release: str) -> dict[str, bool]:
    """Every gate the release knows, at its default."""
    defaults = {}
    for gate in known_gates(release):
        spec = spec_at(gate, release)
        assert spec is not None
        defaults[gate] = spec.default
    return defaults


def release_table() -> dict[str, dict[str, GateSpec | None]]:
    """``{release: {gate: spec or None}}`` for every supported release (for docs and tests)."""
    return {release: {gate: spec_at(gate, release) for gate in GATES} for release in SUPPORTED}
