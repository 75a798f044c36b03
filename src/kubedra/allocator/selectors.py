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
from kubedra.cel.device import CelDevice
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


_compiled: dict[str, Any] = {}
_chain_ids: dict[tuple[Any, ...], int] = {}


def _compile(expression: str) -> Any:
    """The compiled selector, or the compile error message (str)."""
    found = _compiled.get(expression)
    if found is None:
        try:
            found = compile_selector(expression)
        except CelCompileError as err:
            found = str(err)
        _compiled[expression] = found
    return found


class SelectorChain:
    """The class selectors then the request selectors of one (sub)request."""

    __slots__ = ("chain_id", "class_count", "expressions", "features")

    def __init__(
        self, class_exprs: list[str], request_exprs: list[str], features: Features
    ) -> None:
        self.expressions = [*class_exprs, *request_exprs]
        self.class_count = len(class_exprs)
        self.features = features
        key = (len(class_exprs), *self.expressions)
        chain_id = _chain_ids.get(key)
        if chain_id is None:
            chain_id = len(_chain_ids) + 1
            _chain_ids[key] = chain_id
        self.chain_id = chain_id

    def evaluate(self, device: DeviceInfo) -> bool | SelectorFailure:
        """True/False, or the failure; cached on the device."""
        cache = device.match_cache
        found = cache.get(self.chain_id)
        if found is None:
            found = self._evaluate(device)
            cache[self.chain_id] = found
        return found

    def _evaluate(self, device: DeviceInfo) -> bool | SelectorFailure:
        for position, expression in enumerate(self.expressions):
            from_class = position < self.class_count
            index = position if from_class else position - self.class_count
            compiled = _compile(expression)
            if isinstance(compiled, str):
                return SelectorFailure(from_class, index, False, compiled)
            cel = device.cel
            if cel is None:
                # Selectors see list-type attributes whatever the gates; only the
                # conservative implementation leaves allowMultipleAllocations out.
                cel = CelDevice.from_v1(
                    device.raw,
                    device.driver,
                    list_type_attributes=True,
                    consumable_capacity=not self.features.conservative,
                )
                device.cel = cel
            try:
                matched = compiled.matches(cel)
            except CelError as err:
                return SelectorFailure(from_class, index, True, str(err))
            if not matched:
                return False
        return True
