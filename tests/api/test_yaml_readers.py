"""The fast YAML reader is used only where it reads exactly what the reference reader does.

``parse_yaml`` takes the Rust fast path (YAML 1.2) unless the text holds a scalar that YAML 1.1
may read differently; the reference is PyYAML with :class:`ManifestLoader` (YAML 1.1 as
Kubernetes' go-yaml v2 reads it). The grammar below generates plain scalars from the pieces
where YAML readers disagree (underscores, base prefixes, signs, dots, exponents, colons,
infinities, YAML 1.1 words, dates, tags) in every position a scalar can take.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubedra.api.io.reading import LoadError, RawDocument, _parse_pyyaml, parse_yaml

PIECES = [
    *("0", "1", "7", "9", "00", "01", "08", "10", "123", "_", ".", ":", "-", "+", "e", "E"),
    *("0o", "0x", "0b", "0O", "0X", "1F", "ff", "a", "inf", "Inf", "INF", "nan", "NaN", "NAN"),
    *("y", "Y", "n", "N", "yes", "No", "ON", "off", "true", "False", "null", "Null", "~"),
    *("T", "Z", "2026-01-01", "12:30:00", "Gi", "m", "1.2.3", " ", "!!str ", "!!int "),
]
scalar = st.lists(st.sampled_from(PIECES), min_size=1, max_size=5).map("".join)

CONTEXTS = [
    "k: {}\n",
    "{}: v\n",
    "- {}\n",
    "k: [{}, {}]\n",
    "k: {{{}: {}}}\n",
    "k:\n  {}: v\n",
    "k:\n- {}\n",
    "k: [\n  {},\n  {}\n]\n",
    "? {}\n: v\n",
]


def _reading(documents: list[RawDocument | LoadError]) -> list[str]:
    """Content (by repr: 1 and 1.0 differ, NaN equals NaN) or the error, per document."""
    return [
        repr(doc.content) if isinstance(doc, RawDocument) else f"error: {doc.message}"
        for doc in documents
    ]


@st.composite
def documents(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        context = draw(st.sampled_from(CONTEXTS))
        values = [draw(scalar) for _ in range(context.count("{}"))]
        lines.append(context.format(*values))
    return "".join(lines) if draw(st.booleans()) else "---\n".join(lines)


def _assert_same_reading(text: str) -> None:
    fast_or_routed = _reading(list(parse_yaml(text, "t.yaml")))
    reference = _reading(list(_parse_pyyaml(text, "t.yaml", False)))
    assert fast_or_routed == reference, text


@settings(max_examples=20 * settings.default.max_examples, derandomize=True, deadline=None)
@given(documents())
def test_fast_path_reads_every_generated_scalar_as_the_reference_does(text: str) -> None:
    _assert_same_reading(text)


@pytest.mark.parametrize(
    "scalar",
    [
        *("_2", "0o17", "017", "0x1F", "1_000", ".5", "+.inf", "-.inf", ".nan", "09", "0b101"),
        *("1:20", "1:1:1", "+1", "-0", "1e3", "1.5E-2", "1.", "yes", "Off", "y", "n"),
        *("2026-01-01", "2026-01-01T00:00:00Z", "1.2.3", "10.0.0.1", "16Gi", "0x1G", "1_0Gi"),
    ],
)
@pytest.mark.parametrize("context", CONTEXTS)
def test_fast_path_reads_known_disputed_scalars_as_the_reference_does(
    scalar: str, context: str
) -> None:
    _assert_same_reading(context.format(*[scalar] * context.count("{}")))
