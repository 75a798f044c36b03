"""``--feature-gates A=true,B=false`` parsed and applied the way kube-scheduler does.

The messages are component-base's ``featuregate`` ones: ``missing bool value for X``,
``invalid value of X=Y, err: strconv.ParseBool: parsing "Y": invalid syntax``,
``unrecognized feature gate: X``, ``cannot set feature gate X to false, feature is locked to
true``. ``AllAlpha`` and ``AllBeta`` set every alpha (beta) gate; named gates override them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kubedra.allocator.features import GATE_NAMES, Features
from kubedra.features.gates import GATES, Stage, default_gates, spec_at
from kubedra.features.releases import DEFAULT

ALL_ALPHA = "AllAlpha"
ALL_BETA = "AllBeta"

_GO_TRUE = {"1", "t", "T", "TRUE", "true", "True"}
_GO_FALSE = {"0", "f", "F", "FALSE", "false", "False"}


class FeatureGateError(ValueError):
    """A ``--feature-gates`` value kube-scheduler would refuse."""


def _parse_bool(key: str, text: str) -> bool:
    """Go's ``strconv.ParseBool``."""
    if text in _GO_TRUE:
        return True
    if text in _GO_FALSE:
        return False
    raise FeatureGateError(
        f'invalid value of {key}={text}, err: strconv.ParseBool: parsing "{text}": invalid syntax'
    )


def parse_feature_gates(text: str) -> dict[str, bool]:
    """``A=true,B=false`` -> ``{"A": True, "B": False}``; names are not checked here."""
    values: dict[str, bool] = {}
    for part in text.split(","):
        if not part:
            continue
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep:
            raise FeatureGateError(f"missing bool value for {key}")
        values[key] = _parse_bool(key, value.strip())
    return values


@dataclass(frozen=True)
class FeatureGates:
    """The gates of one release with the user's overrides applied."""

    release: str = DEFAULT
    overrides: Mapping[str, bool] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    @classmethod
    def for_release(
        cls, release: str = DEFAULT, overrides: Mapping[str, bool] | str | None = None
    ) -> FeatureGates:
        """Check ``overrides`` (a map or the flag's text) against ``release``; raise
        :class:`FeatureGateError` as kube-scheduler would refuse to start."""
        values = parse_feature_gates(overrides) if isinstance(overrides, str) else overrides
        values = dict(values or {})
        resolved: dict[str, bool] = {}
        warnings: list[str] = []
        for meta, stage in ((ALL_ALPHA, Stage.ALPHA), (ALL_BETA, Stage.BETA)):
            if meta in values:
                for gate in default_gates(release):
                    spec = spec_at(gate, release)
                    if spec is not None and spec.stage is stage:
                        resolved[gate] = values[meta]
        for key, value in values.items():
            if key in (ALL_ALPHA, ALL_BETA):
                continue
            spec = spec_at(key, release) if key in GATES else None
            if spec is None:
                raise FeatureGateError(f"unrecognized feature gate: {key}")
            if spec.locked and spec.default != value:
                raise FeatureGateError(
                    f"cannot set feature gate {key} to {str(value).lower()}, "
                    f"feature is locked to {str(spec.default).lower()}"
                )
            if spec.stage is Stage.GA:
                warnings.append(
                    f"Setting GA feature gate {key}={str(value).lower()}. "
                    "It will be removed in a future release."
                )
            resolved[key] = value
        return cls(release, resolved, tuple(warnings))

    def enabled(self, gate: str) -> bool:
        """Whether ``gate`` is on; a gate the release does not have is off."""
        if gate in self.overrides:
            return self.overrides[gate]
        spec = spec_at(gate, self.release)
        return spec.default if spec is not None else False

    def as_dict(self) -> dict[str, bool]:
        """Every gate the release knows, with its effective value."""
        return {gate: self.enabled(gate) for gate in default_gates(self.release)}

    def allocator_features(self) -> Features:
        """The allocator's switches for this release and these overrides."""
        return Features.from_gates({gate: self.enabled(gate) for gate in GATE_NAMES.values()})
