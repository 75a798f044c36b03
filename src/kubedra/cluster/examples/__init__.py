"""The built-in scenarios (``--example NAME``): complete clusters with a workload, as YAML.

They live here, below every layer that starts a simulation (the CLI, planning, the web page,
replay), so that each reads them the same way without importing another's command module.
"""

from __future__ import annotations

from importlib import resources


class UnknownExample(LookupError):
    """A name that is not a built-in scenario; ``str()`` names the known ones."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"no example named {name!r} (known: {', '.join(example_names())})")

    def __str__(self) -> str:
        return str(self.args[0])


def example_names() -> list[str]:
    """The built-in scenarios, sorted."""
    folder = resources.files(__name__)
    return sorted(
        entry.name.removesuffix(".yaml")
        for entry in folder.iterdir()
        if entry.name.endswith(".yaml")
    )


def example_text(name: str) -> str | None:
    """The scenario's YAML, or None when there is no such scenario."""
    if name not in example_names():  # also keeps names like ../x out of the package folder
        return None
    return (resources.files(__name__) / f"{name}.yaml").read_text(encoding="utf-8")


def require_example(name: str) -> str:
    """The scenario's YAML; raises ``UnknownExample`` naming the known scenarios."""
    text = example_text(name)
    if text is None:
        raise UnknownExample(name)
    return text


__all__ = ["UnknownExample", "example_names", "example_text", "require_example"]
