"""Compare kubedra's result with a case's ``expected`` by the conformance README's rules."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping
from typing import Any

_NAMED = re.compile(r"(claim [a-z0-9.-]+/[a-z0-9.-]+|class [a-z0-9.-]*[a-z0-9])", re.IGNORECASE)


def named_object(message: str) -> str | None:
    """The first ``claim ns/name`` or ``class name`` an error message names, if any."""
    found = _NAMED.search(message)
    return found.group(1) if found else None


def error_matches(expected: str, actual: str | None) -> bool:
    if not actual:
        return False
    named = named_object(expected)
    return named is None or named.lower() in actual.lower()


def _mask_share_ids(expected: Any, actual: Any) -> Any:
    """``actual`` with each shareID replaced by "*" where the expected value is "*"."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        out = {}
        for key, value in actual.items():
            if key == "shareID" and expected.get(key) == "*" and isinstance(value, str) and value:
                out[key] = "*"
            else:
                out[key] = _mask_share_ids(expected.get(key), value)
        return out
    if isinstance(expected, list) and isinstance(actual, list):
        return [
            _mask_share_ids(expected[i] if i < len(expected) else None, v)
            for i, v in enumerate(actual)
        ]
    return actual


def allocations_equal(expected: Any, actual: Any) -> bool:
    return bool(_mask_share_ids(expected, actual) == expected)


def diff(expected: Any, actual: Any) -> str:
    """A unified diff of the two JSON values (shareIDs masked), for humans."""
    masked = _mask_share_ids(expected, actual)
    a = json.dumps(expected, indent=2, sort_keys=True).splitlines()
    b = json.dumps(masked, indent=2, sort_keys=True).splitlines()
    return "\n".join(difflib.unified_diff(a, b, "expected", "actual", lineterm=""))


def _outcome(result: Mapping[str, Any]) -> str:
    if result.get("error") is not None:
        return "error"
    if result.get("ok"):
        return "ok"
    return "unschedulable"


def compare_allocate(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> list[str]:
    """Reasons why ``actual`` fails; empty when it passes."""
    want, got = _outcome(expected), _outcome(actual)
    if want != got:
        return [f"outcome: expected {want}, got {got}"]
    if want == "ok" and not allocations_equal(
        expected.get("allocations"), actual.get("allocations")
    ):
        return ["allocations differ"]
    if want == "error":
        problems = []
        if bool(expected.get("errorIsNodeLocal")) != bool(actual.get("errorIsNodeLocal")):
            problems.append(
                f"errorIsNodeLocal: expected {bool(expected.get('errorIsNodeLocal'))}, "
                f"got {bool(actual.get('errorIsNodeLocal'))}"
            )
        if not error_matches(str(expected["error"]), actual.get("error")):
            problems.append(
                f"error should name {named_object(str(expected['error']))!r}: "
                f"expected {expected['error']!r}, got {actual.get('error')!r}"
            )
        return problems
    return []


def compare_schedule(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> list[str]:
    want = expected.get("placements") or []
    got = actual.get("placements") or []
    problems = []
    if len(want) != len(got):
        problems.append(f"placements: expected {len(want)}, got {len(got)}")
    for w, g in zip(want, got, strict=False):
        pod = w.get("pod")
        if g.get("pod") != pod or g.get("node") != w.get("node"):
            problems.append(
                f"pod {pod}: expected node {w.get('node')!r}, got pod {g.get('pod')!r} "
                f"on node {g.get('node')!r}"
            )
            continue
        if w.get("node") is not None and not allocations_equal(
            w.get("allocations"), g.get("allocations")
        ):
            problems.append(f"pod {pod}: allocations differ")
        if ("error" in w) != ("error" in g):
            problems.append(f"pod {pod}: error expected {w.get('error')!r}, got {g.get('error')!r}")
        elif "error" in w and not error_matches(str(w["error"]), g.get("error")):
            problems.append(
                f"pod {pod}: error should name {named_object(str(w['error']))!r}, "
                f"got {g.get('error')!r}"
            )
    return problems


def compare_cel_pair(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> list[str]:
    problems = []
    for key in ("compileError", "runtimeError"):
        if (expected.get(key) is None) != (actual.get(key) is None):
            problems.append(f"{key}: expected {expected.get(key)!r}, got {actual.get(key)!r}")
    if expected.get("result") != actual.get("result"):
        problems.append(
            f"result: expected {expected.get('result')!r}, got {actual.get('result')!r}"
        )
    return problems
