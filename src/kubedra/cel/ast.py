"""The parsed form of a CEL expression.

Operators are calls with cel-go's internal names (``_+_``, ``_[_]``, ``!_``, ``@in``...), so
that the checker and the compiler resolve them through the same registry as functions.
Macros stay as ``Macro`` nodes instead of being expanded into generic comprehensions: the
checker types them directly and the compiler emits a tight loop for each kind.
Every node carries ``offset``, the character position that error messages point at.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(eq=False, slots=True)
class Node:
    offset: int


@dataclass(eq=False, slots=True)
class Const(Node):
    value: Any


@dataclass(eq=False, slots=True)
class Ident(Node):
    name: str


@dataclass(eq=False, slots=True)
class Select(Node):
    operand: Node
    field: str
    test_only: bool = False
    optional: bool = False


@dataclass(eq=False, slots=True)
class Call(Node):
    function: str
    args: list[Node]
    target: Node | None = None


@dataclass(eq=False, slots=True)
class CreateList(Node):
    elements: list[Node]
    optional: list[bool] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class MapEntry:
    key: Node
    value: Node
    optional: bool


@dataclass(eq=False, slots=True)
class CreateMap(Node):
    entries: list[MapEntry]


@dataclass(eq=False, slots=True)
class Macro(Node):
    """A comprehension macro: ``kind`` is all, exists, exists_one, map, filter, transformList,
    transformMap, transformMapEntry, bind, optMap or optFlatMap; ``variables`` holds one or
    two iteration variable names; ``args`` the remaining expressions (predicate, filter,
    transform)."""

    kind: str
    target: Node | None
    variables: tuple[str, ...]
    args: list[Node]
