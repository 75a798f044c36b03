"""The layering rule of docs/architecture.md: each package imports only the kubedra packages
its row of the table lists, and every package has a row."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "kubedra"
PAGE = ROOT / "docs" / "architecture.md"
ROW = re.compile(r"^\|\s*`kubedra\.([\w_]+)`\s*\|.*\|\s*(.+?)\s*\|\s*$")


def allowed() -> dict[str, set[str] | None]:
    """Package -> the packages it may import (None: every package), from the page's table."""
    rules: dict[str, set[str] | None] = {}
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if match is None:
            continue
        names = set(re.findall(r"`kubedra\.([\w_]+)`", match[2]))
        rules[match[1]] = None if "every package" in match[2] else names
    return rules


def packages() -> list[str]:
    return sorted(
        path.stem if path.is_file() else path.name
        for path in PACKAGE.iterdir()
        if (path.suffix == ".py" and path.stem != "__init__")
        or (path.is_dir() and (path / "__init__.py").is_file())
    )


def imports(package: str) -> dict[str, list[str]]:
    """Every kubedra package a module of ``package`` imports -> the modules that do."""
    root = PACKAGE / package if (PACKAGE / package).is_dir() else PACKAGE / f"{package}.py"
    files = sorted(root.rglob("*.py")) if root.is_dir() else [root]
    found: dict[str, list[str]] = {}
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
                if node.module == "kubedra":
                    names = [f"kubedra.{alias.name}" for alias in node.names]
            else:
                continue
            for name in names:
                parts = name.split(".")
                if parts[0] == "kubedra" and len(parts) > 1 and parts[1] != package:
                    found.setdefault(parts[1], []).append(str(path.relative_to(ROOT)))
    return found


def test_every_package_has_a_row_and_every_row_a_package() -> None:
    rules = allowed()
    assert set(packages()) - set(rules) == set(), "packages without a row in the table"
    assert set(rules) - set(packages()) == set(), "rows for packages that do not exist"


def test_imports_go_only_where_the_table_allows() -> None:
    problems = []
    for package, may in allowed().items():
        if may is None:
            continue
        for target, modules in sorted(imports(package).items()):
            if target not in may:
                problems.append(f"kubedra.{package} imports kubedra.{target} in {modules[0]}")
    assert problems == []


def test_the_simulation_loop_does_not_choose_its_scheduler() -> None:
    """kubedra.cluster.simulation takes its scheduler from the layer that runs it."""
    assert "scheduler" not in imports("cluster")
    assert "cli" not in imports("planning")
