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
from kubedra.cel.device import DRIVER_FIELDS, CelDevice, conversion_error
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

    __slots__ = (
        "_by_driver",
        "_compiled",
        "_driver_only",
        "chain_id",
        "class_count",
        "expressions",
        "features",
    )

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
        """Whether every selector reads only DRIVER_FIELDS (the usual DeviceClass): devices
        that convert to CEL share one outcome per driver fields, and no device's
        attributes and capacity are converted for the chain."""
        self._by_driver: dict[tuple[str, bool], bool | SelectorFailure] = {}

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
                not isinstance(c, str)
                and c.device_fields is not None
                and c.device_fields <= DRIVER_FIELDS
                for c in compiled_chain
            )
        consumable = not self.features.conservative
        if self._driver_only:
            # The outcome depends on the driver fields alone, unless the device cannot be
            # presented to CEL (then every selector fails on it, as upstream's do).
            cel = device.cel
            error = conversion_error(device.raw) if cel is None else cel.error
            key = (device.driver, device.allow_multiple)
            found = self._by_driver.get(key) if error is None else None
            if found is not None:
                return found
            if cel is None:
                cel = CelDevice.driver_only(
                    device.raw, device.driver, consumable_capacity=consumable
                )
            found = self._run(compiled_chain, cel)
            if error is None:
                self._by_driver[key] = found
            else:
                device.cel = cel  # keeps its error for other chains
            return found
        cel = device.cel
        if cel is None or not cel.complete:
            # Selectors see list-type attributes whatever the gates; only the conservative
            # implementation leaves allowMultipleAllocations out.
            cel = device.cel = CelDevice.from_v1(
                device.raw,
                device.driver,
                list_type_attributes=True,
                consumable_capacity=consumable,
            )
        return self._run(compiled_chain, cel)

    def _run(self, compiled_chain: list[Any], cel: CelDevice) -> bool | SelectorFailure:
        """The selectors in order against one view, up to the first that is not true."""
        for position, compiled in enumerate(compiled_chain):
            from_class = position < self.class_count
            index = position if from_class else position - self.class_count
            if isinstance(compiled, str):
                return SelectorFailure(from_class, index, False, compiled)
            try:
                matched = compiled.matches(cel)
            except CelError as err:
                return SelectorFailure(from_class, index, True, str(err))
            if not matched:
                return False
        return True
