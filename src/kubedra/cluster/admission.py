"""What the simulated apiserver does to an object between decoding and storing it, beyond
defaulting and validation: the admission plugins kubedra applies, and dropping fields whose
feature gate is off.

Order, as kube-apiserver's create handler: mutating admission (Priority's ``Admit``), then the
registry strategy's ``PrepareForCreate`` (disabled fields dropped), validation, then validating
admission (Priority's ``Validate``). :class:`kubedra.cluster.store.Store` calls
:meth:`Admission.mutate`, :meth:`Admission.prepare` and :meth:`Admission.validate` on every
create, so whatever creates objects through a store (``simulate``, timelines, replay,
``serve-api``, the web page, the controllers) gets them once.

**Priority** (``plugin/pkg/admission/priority/admission.go``): a new pod gets ``spec.priority``
from its ``priorityClassName`` (or from the global default class, whose name it then takes; 0
without one) and ``spec.preemptionPolicy`` from the class (``PreemptLowerPriority`` without a
default class). A class that does not exist, or a ``priority``/``preemptionPolicy`` in the pod
that differs from the computed one, is refused as Forbidden with upstream's message. In 1.37 a
PodGroup's ``spec.priority`` is resolved the same way (kubernetes/kubernetes#139240; its
``preemptionPolicy`` belongs to the alpha PodGroupPreemptionPolicy gate and is left as written).
A PriorityClass marked ``globalDefault`` while another one is refused. The two system classes
(``system-node-critical``, ``system-cluster-critical``), which every apiserver creates at
start-up, resolve without being stored.

**Disabled fields** (``dropDisabledFields`` of the PodGroup strategy): with
DRAWorkloadResourceClaims off (the default in 1.36 and 1.37) a new PodGroup loses
``spec.resourceClaims``, so its pods get claims of their own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kubedra.api.releases import DEFAULT, at_least
from kubedra.api.validation.core_kinds import SYSTEM_PRIORITY_CLASSES
from kubedra.cluster.kinds import KindInfo
from kubedra.gofmt import quote

PRIORITY = "Priority"
APPLIED_PLUGINS: tuple[str, ...] = (PRIORITY,)
"""The admission plugins kubedra applies (of kube-apiserver's default set)."""

PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority"
DEFAULT_PRIORITY = 0
"""``DefaultPriorityWhenNoDefaultClassExists``."""

WORKLOAD_RESOURCE_CLAIMS = "DRAWorkloadResourceClaims"

ClassLookup = Callable[[str], dict[str, Any] | None]
ClassList = Callable[[], list[dict[str, Any]]]


class AdmissionError(Exception):
    """A request admission refused: ``Forbidden`` (403) with the apiserver's message."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def forbidden(info: KindInfo, name: str, reason: str) -> AdmissionError:
    """``admission.NewForbidden``: ``pods "web" is forbidden: ...`` (no name for generateName)."""
    if not name:
        return AdmissionError(f"{info.group_resource} is forbidden: {reason}")
    return AdmissionError(f"{info.group_resource} {quote(name)} is forbidden: {reason}")


@dataclass(frozen=True)
class AdmissionConfig:
    """The release and feature gates of the simulated apiserver, and the plugins it runs."""

    release: str = DEFAULT
    gates: Mapping[str, bool] = field(default_factory=dict)
    """Gate overrides (``--feature-gates``); any other gate has the release's default."""
    plugins: tuple[str, ...] = APPLIED_PLUGINS

    def enabled(self, gate: str) -> bool:
        from kubedra.features import FeatureGates

        if gate in self.gates:
            return bool(self.gates[gate])
        return FeatureGates.for_release(self.release).enabled(gate)


class Admission:
    """The create path's admission for one store (see the module docstring)."""

    def __init__(self, config: AdmissionConfig | None = None) -> None:
        self.config = config or AdmissionConfig()

    # --- Priority ---------------------------------------------------------------------------

    @staticmethod
    def _default_class(classes: ClassList) -> dict[str, Any] | None:
        """The global default class; with several, the lowest value (as upstream)."""
        defaults = [c for c in classes() if c.get("globalDefault") is True]
        return min(defaults, key=lambda c: int(c.get("value") or 0), default=None)

    @staticmethod
    def _class(name: str, lookup: ClassLookup) -> dict[str, Any] | None:
        found = lookup(name)
        if found is not None:
            return found
        value = SYSTEM_PRIORITY_CLASSES.get(name)
        if value is None:
            return None
        return {"metadata": {"name": name}, "value": value}

    def _resolve(
        self, class_name: str, lookup: ClassLookup, classes: ClassList
    ) -> tuple[str, int, str] | str:
        """(class name, priority, preemption policy), or the reason to refuse. A stored class
        always has a policy (PriorityClass defaulting); the bootstrapped system classes get
        ``PreemptLowerPriority`` the same way."""
        if not class_name:
            default = self._default_class(classes)
            if default is None:
                return "", DEFAULT_PRIORITY, PREEMPT_LOWER_PRIORITY
            class_name = str((default.get("metadata") or {}).get("name") or "")
            found: dict[str, Any] | None = default
        else:
            found = self._class(class_name, lookup)
        if found is None:
            return f"no PriorityClass with name {class_name} was found"
        policy = str(found.get("preemptionPolicy") or PREEMPT_LOWER_PRIORITY)
        return class_name, int(found.get("value") or 0), policy

    def _admit_priority(
        self,
        obj: dict[str, Any],
        info: KindInfo,
        name: str,
        lookup: ClassLookup,
        classes: ClassList,
        *,
        with_policy: bool,
    ) -> dict[str, Any]:
        """``spec.priority`` (and, for pods, ``spec.preemptionPolicy``) from the class; a
        value written that differs from the computed one is refused."""
        spec = dict(obj.get("spec") or {})
        resolved = self._resolve(str(spec.get("priorityClassName") or ""), lookup, classes)
        if isinstance(resolved, str):
            raise forbidden(info, name, resolved)
        class_name, priority, policy = resolved
        whose = "pod" if info.kind == "Pod" else "pod group"
        given = spec.get("priority")
        if given is not None and given != priority:
            raise forbidden(
                info,
                name,
                f"the integer value of priority ({given}) must not be provided in {whose} spec; "
                f"priority admission controller computed {priority} from the given "
                "PriorityClass name",
            )
        if class_name:
            spec["priorityClassName"] = class_name
        spec["priority"] = priority
        if with_policy:
            given_policy = spec.get("preemptionPolicy")
            if given_policy is not None and given_policy != policy:
                raise forbidden(
                    info,
                    name,
                    f"the string value of PreemptionPolicy ({given_policy}) must not be "
                    f"provided in {whose} spec; priority admission controller computed "
                    f"{policy} from the given PriorityClass name",
                )
            spec["preemptionPolicy"] = policy
        return {**obj, "spec": spec}

    # --- the create path --------------------------------------------------------------------

    def mutate(
        self,
        obj: dict[str, Any],
        info: KindInfo,
        name: str,
        lookup: ClassLookup,
        classes: ClassList,
    ) -> dict[str, Any]:
        """Mutating admission of a create request; raises :class:`AdmissionError`."""
        if PRIORITY not in self.config.plugins:
            return obj
        if info.kind == "Pod":
            return self._admit_priority(obj, info, name, lookup, classes, with_policy=True)
        if info.kind == "PodGroup" and at_least(self.config.release, "1.37"):
            # kubernetes/kubernetes#139240: the value as for pods; the policy is the alpha
            # PodGroupPreemptionPolicy's and stays as written.
            return self._admit_priority(obj, info, name, lookup, classes, with_policy=False)
        return obj

    def prepare(self, obj: dict[str, Any]) -> dict[str, Any]:
        """``PrepareForCreate``: drop the fields of disabled features."""
        spec = obj.get("spec")
        if (
            obj.get("kind") == "PodGroup"
            and isinstance(spec, dict)
            and "resourceClaims" in spec
            and not self.config.enabled(WORKLOAD_RESOURCE_CLAIMS)
        ):
            return {**obj, "spec": {k: v for k, v in spec.items() if k != "resourceClaims"}}
        return obj

    def validate(self, obj: dict[str, Any], info: KindInfo, name: str, classes: ClassList) -> None:
        """Validating admission of a create request; raises :class:`AdmissionError`."""
        if PRIORITY not in self.config.plugins or info.kind != "PriorityClass":
            return
        if obj.get("globalDefault") is not True:
            return
        current = self._default_class(classes)
        if current is not None:
            other = (current.get("metadata") or {}).get("name")
            raise forbidden(
                info,
                name,
                f"PriorityClass {other} is already marked as default. Only one default can exist",
            )
