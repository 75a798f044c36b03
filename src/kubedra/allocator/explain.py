"""Why candidate devices were rejected: an optional recorder for the search.

The search only calls the recorder when one is given (``recorder is not None`` around each
call), so a normal run pays one comparison per rejection and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kubedra.allocator.selectors import SelectorChain

if TYPE_CHECKING:
    from kubedra.allocator.claims import RequestData
    from kubedra.allocator.inventory import DeviceInfo, PoolView

CLASS_SELECTOR_FALSE = "class selector false"
REQUEST_SELECTOR_FALSE = "request selector false"
ALREADY_ALLOCATED = "already allocated"
COUNTERS_EXHAUSTED = "counters exhausted"
TAINT_NOT_TOLERATED = "taint not tolerated"
CONSTRAINT_MISMATCH = "constraint mismatch"
CAPACITY_INSUFFICIENT = "capacity insufficient"
NODE_NOT_REACHABLE = "node not reachable"
POOL_INCOMPLETE = "pool incomplete"
POOL_INVALID = "pool invalid"
BINDING_CONDITIONS_DISABLED = "binding conditions need DRADeviceBindingConditions"
# Pruning (a long search only): interchangeable with a device that already failed there.
EQUIVALENT_FAILED = "equivalent to a device that failed"

MAX_EXAMPLES = 3


@dataclass
class Rejections:
    """How often one reason rejected candidates, with the first few examples."""

    count: int = 0
    examples: list[str] = field(default_factory=list)

    def add(self, example: str) -> None:
        self.count += 1
        if len(self.examples) < MAX_EXAMPLES and example not in self.examples:
            self.examples.append(example)


@dataclass
class Recorder:
    """Rejection reasons per (claim ``ns/name``, request name), in the order first seen."""

    reasons: dict[tuple[str, str], dict[str, Rejections]] = field(default_factory=dict)

    def reject(
        self, claim: str, request: str, reason: str, device: str, detail: str | None = None
    ) -> None:
        per_request = self.reasons.setdefault((claim, request), {})
        entry = per_request.get(reason)
        if entry is None:
            entry = per_request[reason] = Rejections()
        entry.add(f"{device} ({detail})" if detail else device)

    def pool_skipped(self, claim: str, request: str, pool: PoolView) -> None:
        reason = POOL_INCOMPLETE if pool.incomplete else POOL_INVALID
        detail = pool.reason or None
        self.reject(claim, request, reason, f"{pool.driver}/{pool.name}", detail)

    def unselectable(self, claim: str, data: RequestData, device: DeviceInfo) -> None:
        """Work out which check of ``isSelectable`` said no (all results are cached)."""
        reason = REQUEST_SELECTOR_FALSE
        if (
            device.binding_conditions
            and data.chain is not None
            and not (data.chain.features.binding_conditions)
        ):
            reason = BINDING_CONDITIONS_DISABLED
        elif data.cls is not None and data.chain is not None:
            class_exprs = [e if e is not None else "" for e in data.cls.selectors]
            class_only = SelectorChain(class_exprs, [], data.chain.features)
            if class_only.evaluate(device) is False:
                reason = CLASS_SELECTOR_FALSE
            elif data.chain.evaluate(device) is True:
                reason = NODE_NOT_REACHABLE
        self.reject(claim, data.result_name, reason, device.key)

    def as_dict(self) -> list[dict[str, object]]:
        """A JSON-friendly summary, one entry per claim and request."""
        out: list[dict[str, object]] = []
        for (claim, request), per_reason in self.reasons.items():
            out.append(
                {
                    "claim": claim,
                    "request": request,
                    "rejected": {
                        reason: {"count": r.count, "examples": list(r.examples)}
                        for reason, r in per_reason.items()
                    },
                }
            )
        return out
