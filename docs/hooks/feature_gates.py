"""MkDocs hook: the feature-gate reference gets its table from kubedra.features.

The marker line below is replaced by one row per DRA gate and one column per supported
release (maturity, default, locked), read from the same table kube-scheduler's flags are
checked against, so the page cannot drift from the code.
"""

from __future__ import annotations

from typing import Any

MARKER = "<!-- kubedra: feature-gates -->"


def table() -> str:
    from kubedra.features import SUPPORTED
    from kubedra.features.gates import release_table

    by_release = release_table()  # release -> gate -> spec (None: not in that release)
    gates = sorted({gate for specs in by_release.values() for gate, spec in specs.items() if spec})
    rows = ["| gate | " + " | ".join(SUPPORTED) + " |", "| --- |" + " --- |" * len(SUPPORTED)]
    for gate in gates:
        cells = []
        for release in SUPPORTED:
            spec = by_release[release].get(gate)
            if spec is None:
                cells.append("-")
                continue
            default = "on" if spec.default else "off"
            cells.append(f"{spec.stage.value}, {default}" + (", locked" if spec.locked else ""))
        rows.append(f"| `{gate}` | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    return markdown.replace(MARKER, table()) if MARKER in markdown else markdown
