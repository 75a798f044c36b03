"""CEL selector chains: a class's selectors followed by a request's, evaluated lazily.

A chain is evaluated per device in order and stops at the first false selector, as upstream
does, so a broken selector only matters when the search reaches it. Outcomes are cached on
the device per chain (selectors depend on the device alone), including errors, which are
re-raised with the name of the claim that is being allocated.
"""

from __future__ import annotations

from typing import Any

from kubedra.allocator.features import Features
from kubedra.allocator.inventory import DeviceInfo
from kubedra.cel import compile_selector
from kubedra.cel.device import DRIVER_FIELDS, CelDevice
from kubedra.cel.errors import CelCompileError, CelError


class SelectorFailure:
    """A cached selector error: which selector failed, how, and the CEL message."""

    __slots__ = ("from_class", "index", "message", "runtime")

    def __init__(self, from_class: bool, index: int, runtime: bool, message: str) -> None:
        self.from_class = from_class
        self.index = index
        self.runtime = runtime
        self.message = message

    def render(self, class_name: str, claim_label: str, device_key: str) -> str:
        owner = f"class {class_name}" if self.from_class else f"claim {claim_label}"
        if self.runtime:
            return (
                f"{owner}: selector #{self.index} on device {device_key}: "
                f"CEL runtime error: {self.message}"
            )
        return f"{owner}: selector #{self.index}: CEL compile error: {self.message}"


def _compile(expression: str) -> Any:
    """The compiled selector, or the compile error message (str); ``compile_selector``
    keeps a bounded cache of both, so a broken selector met again for every candidate
    device is not compiled again."""
    try:
        return compile_selector(expression)
    except CelCompileError as err:
        return str(err)


class SelectorChain:
    """The class selectors then the request selectors of one (sub)request."""

    __slots__ = ("_compiled", "_driver_only", "chain_id", "class_count", "expressions", "features")

    def __init__(
        self, class_exprs: list[str], request_exprs: list[str], features: Features
    ) -> None:
        self.expressions = [*class_exprs, *request_exprs]
        self.class_count = len(class_exprs)
        self.features = features
        # The chain's identity is what it evaluates: devices cache outcomes under it, and
        # chains built for different claims with the same selectors share those outcomes.
        self.chain_id: tuple[int | str, ...] = (len(class_exprs), *self.expressions)
        self._compiled: list[Any] | None = None
        self._driver_only = False
        """Whether every selector reads only DRIVER_FIELDS (the usual DeviceClass), so that a
        device's view need not convert its attributes and capacity."""

    def evaluate(self, device: DeviceInfo) -> bool | SelectorFailure:
        """True/False, or the failure; cached on the device."""
        cache = device.match_cache
        found = cache.get(self.chain_id)
        if found is None:
            found = self._evaluate(device)
            cache[self.chain_id] = found
        return found

    def _evaluate(self, device: DeviceInfo) -> bool | SelectorFailure:
        compiled_chain = self._compiled
        if compiled_chain is None:
            # Compiled on the first device the chain meets, then read for every other one.
            compiled_chain = self._compiled = [_compile(e) for e in self.expressions]
            self._driver_only = all(
                not isinstance(c, str) and c.device_fields is not None for c in compiled_chain
            ) and all(c.device_fields <= DRIVER_FIELDS for c in compiled_chain)
        for position, compiled in enumerate(compiled_chain):
            from_class = position < self.class_count
            index = position if from_class else position - self.class_count
            if isinstance(compiled, str):
                return SelectorFailure(from_class, index, False, compiled)
            cel = device.cel
            if cel is None or not (cel.complete or self._driver_only):
                # Selectors see list-type attributes whatever the gates; only the
                # conservative implementation leaves allowMultipleAllocations out.
                consumable = not self.features.conservative
                if self._driver_only:
                    cel = CelDevice.driver_only(
                        device.raw, device.driver, consumable_capacity=consumable
                    )
                else:
                    cel = CelDevice.from_v1(
                        device.raw,
                        device.driver,
                        list_type_attributes=True,
                        consumable_capacity=consumable,
                    )
                device.cel = cel
            try:
                matched = compiled.matches(cel)
            except CelError as err:
                return SelectorFailure(from_class, index, True, str(err))
            if not matched:
                return False
        return True
