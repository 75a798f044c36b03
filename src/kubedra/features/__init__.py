"""DRA feature gates per Kubernetes release: the table, ``--feature-gates`` and feature usage."""

from kubedra.features.flag import FeatureGateError, FeatureGates, parse_feature_gates
from kubedra.features.gates import GATES, GateSpec, Stage, default_gates, known_gates, spec_at
from kubedra.features.releases import DEFAULT, SUPPORTED, ReleaseError, parse_version
from kubedra.features.usage import (
    FeatureUse,
    describe_feature_usage,
    feature_uses,
    feature_warnings,
    gates_used,
)

__all__ = [
    "DEFAULT",
    "GATES",
    "SUPPORTED",
    "FeatureGateError",
    "FeatureGates",
    "FeatureUse",
    "GateSpec",
    "ReleaseError",
    "Stage",
    "default_gates",
    "describe_feature_usage",
    "feature_uses",
    "feature_warnings",
    "gates_used",
    "known_gates",
    "parse_feature_gates",
    "parse_version",
    "spec_at",
]
