"""The generated parts of the site: the command reference and the feature-gate table come
from the code when ``mkdocs build`` runs the hooks in docs/hooks/."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from kubedra.cli.reference import commands
from kubedra.features import SUPPORTED, known_gates

ROOT = Path(__file__).resolve().parents[2]


def _hook(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / "hooks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_cli_page_gets_every_command_with_its_help() -> None:
    hook = _hook("cli_reference")
    page = (ROOT / "docs" / "reference" / "cli.md").read_text(encoding="utf-8")
    assert hook.MARKER in page
    rendered = hook.on_page_markdown(page, None, None, None)
    assert hook.MARKER not in rendered
    for entry in commands():
        assert f"\n## {entry.name}\n" in rendered
        assert entry.help.splitlines()[0] in rendered  # Usage: kubedra ...
    assert "[`kubedra simulate`](#kubedra-simulate)" in rendered
    assert "--limit" in rendered and "--rolling-update-uid" in rendered


def test_the_feature_gate_page_gets_every_gate_of_every_release() -> None:
    hook = _hook("feature_gates")
    page = (ROOT / "docs" / "reference" / "feature-gates.md").read_text(encoding="utf-8")
    assert hook.MARKER in page
    rendered = hook.on_page_markdown(page, None, None, None)
    header = "| gate | " + " | ".join(SUPPORTED) + " |"
    assert header in rendered
    for release in SUPPORTED:
        for gate in known_gates(release):
            assert f"| `{gate}` |" in rendered
    assert (
        "| `DRAAdminAccess` | beta, on | beta, on | GA, on, locked | GA, on, locked |" in rendered
    )


def test_pages_without_the_markers_are_left_alone() -> None:
    for name in ("cli_reference", "feature_gates"):
        assert _hook(name).on_page_markdown("# x\n", None, None, None) == "# x\n"
