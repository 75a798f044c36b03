"""CEL environments: declarations plus the pipeline parse -> check -> compile.

``Environment`` is generic (variables with types and accessors, a function registry); the
DRA selector environment in ``kubedra.cel.selector`` is one instance of it and the cel-spec
conformance tests build others.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection, Mapping
from functools import cache
from typing import Any

from kubedra.cel.checker import KUBERNETES, Checked, Checker, CheckError, Dialect
from kubedra.cel.compiler import COST_LIMIT_MESSAGE, Code, Compiler, InstantiationError
from kubedra.cel.cost import Estimate, SizeHints, estimate_cost
from kubedra.cel.errors import CelCompileError, CelCostLimitError, CelError, CelEvaluationError
from kubedra.cel.parser import ParseError, parse
from kubedra.cel.registry import Registry, load_libraries
from kubedra.cel.types import CelType

RUNTIME_COST_LIMIT = 1_000_000

FAST_PATH_MARGIN = 2
"""An expression runs untracked only when twice its estimate is within the limit: what the
estimate can fall short of the actual cost is far less (checked by the fuzz tests)."""

# Long operator chains (``a + b + ...``, hundreds of terms) nest deeply; the parser's own
# nesting limit (250, as cel-go) keeps the tree bounded, so a higher limit is safe.
if sys.getrecursionlimit() < 20_000:
    sys.setrecursionlimit(20_000)


@cache
def standard_registry() -> Registry:
    """The standard library plus every Kubernetes and ext library in ``kubedra.cel.libs``."""
    from kubedra.cel import stdlib, timelib

    registry = Registry()
    stdlib.register(registry)
    timelib.register(registry)
    load_libraries(registry)
    return registry


def format_errors(text: str, errors: list[CheckError]) -> str:
    """Render errors like cel-go: ``ERROR: <input>:1:5: message`` plus the source line."""
    parts = []
    for err in errors:
        if err.offset < 0:
            parts.append(f"ERROR: <input>:-1:0: {err.message}")
            continue
        line_no = text.count("\n", 0, err.offset) + 1
        line_start = text.rfind("\n", 0, err.offset) + 1
        line_end = text.find("\n", err.offset)
        line = text[line_start : line_end if line_end >= 0 else len(text)]
        column = err.offset - line_start + 1
        parts.append(
            f"ERROR: <input>:{line_no}:{column}: {err.message}\n | {line}\n | "
            + "." * (column - 1)
            + "^"
        )
    return "\n".join(parts)


class Program:
    """A checked and compiled expression, ready to evaluate many times."""

    def __init__(
        self,
        checked: Checked,
        variables: Collection[str],
        limit: int,
        estimated: Estimate,
    ) -> None:
        self.checked = checked
        self.output_type: CelType = checked.type(checked.root)
        self.limit = limit
        self.estimated_min_cost, self.estimated_max_cost = estimated.min, estimated.max
        self.cost_bound = estimated.bound
        """No evaluation costs more (None: no such figure); see :class:`Estimate`."""
        tracked = Compiler(checked, variables, track=True, limit=limit)
        self._tracked: Code = tracked.compile(checked.root)
        self._slots = tracked.slot_count + 1
        # The bound (sizes of variables come from declared limits, any unknown size is
        # unbounded) well below the limit: no evaluation can exceed the limit, so the cost
        # need not be tracked at all. Well below: upstream's rules, which the bound follows
        # elsewhere, can fall short of the actual cost by a little (``url(...)
        # .getQuery()["a"]`` is estimated at 7, costs 8 in cel-go too).
        bound = self.cost_bound
        if bound is not None and bound * FAST_PATH_MARGIN <= limit:
            fast = Compiler(checked, variables, track=False, limit=limit)
            self._fast: Code | None = fast.compile(checked.root)
        else:
            self._fast = None

    @property
    def constant(self) -> Any:
        return self._tracked.const

    @property
    def scratch_size(self) -> int:
        """Length of the scratch list a closure needs (cost slot plus variable slots)."""
        return self._slots

    @property
    def fast_function(self) -> Callable[[Any, list[Any]], Any] | None:
        """The untracked closure when the expression cannot exceed the cost limit."""
        return self._fast.fn if self._fast is not None else None

    def evaluate(self, data: Mapping[str, Any]) -> tuple[Any, int]:
        """The value and the actual cost for these variable values; raises
        CelEvaluationError (or its subclass for the cost limit)."""
        code = self._tracked
        scratch: list[Any] = [0] * self._slots
        try:
            value = code.fn(data, scratch)
        except CelCostLimitError as e:
            e.cost = self.limit + 1
            raise
        except CelEvaluationError as e:
            # cel-go's errors are values that travel up the tree, every node on the way
            # still being charged: the whole static cost plus what the run added.
            e.cost = scratch[0] + code.cost
            raise
        except CelError:
            raise
        except RecursionError:
            raise CelEvaluationError("expression too deeply nested") from None
        except Exception as e:
            raise CelEvaluationError(f"internal error: {e}") from None
        cost = scratch[0] + code.cost
        if cost > self.limit:
            error = CelCostLimitError(COST_LIMIT_MESSAGE)
            error.cost = self.limit + 1
            raise error
        return value, cost

    def value(self, data: Mapping[str, Any]) -> Any:
        """The value only; takes the untracked fast path when the cost cannot exceed the
        limit."""
        fast = self._fast
        if fast is None:
            return self.evaluate(data)[0]
        try:
            return fast.fn(data, [0] * self._slots)
        except CelError:
            raise
        except RecursionError:
            raise CelEvaluationError("expression too deeply nested") from None
        except Exception as e:
            raise CelEvaluationError(f"internal error: {e}") from None


class Environment:
    """Declared variables (type and how to read the value) and the function registry."""

    def __init__(
        self,
        registry: Registry,
        variables: Mapping[str, CelType],
        *,
        limit: int = RUNTIME_COST_LIMIT,
        size_hints: SizeHints | None = None,
        dialect: Dialect = KUBERNETES,
    ) -> None:
        self.registry = registry
        self.declarations = dict(variables)
        self.limit = limit
        self.size_hints = size_hints
        self.dialect = dialect

    def check(self, text: str) -> Checked:
        try:
            root = parse(text)
        except ParseError as e:
            raise CelCompileError(
                "compilation failed: " + format_errors(text, [CheckError(e.offset, e.message)])
            ) from None
        except RecursionError:
            raise CelCompileError(
                "compilation failed: ERROR: <input>:-1:0: expression recursion limit exceeded"
            ) from None
        checked = Checker(self.registry, self.declarations, self.dialect).check(root)
        if checked.errors:
            raise CelCompileError("compilation failed: " + format_errors(text, checked.errors))
        return checked

    def program(self, checked: Checked) -> Program:
        estimated = estimate_cost(checked, self.registry, self.size_hints)
        try:
            return Program(checked, list(self.declarations), self.limit, estimated)
        except InstantiationError as e:
            raise CelCompileError(f"program instantiation failed: {e}") from None
        except RecursionError:
            raise CelCompileError(
                "program instantiation failed: expression too deeply nested"
            ) from None

    def compile(self, text: str) -> Program:
        return self.program(self.check(text))
