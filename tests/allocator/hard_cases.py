"""Small valid inputs on which an unpruned depth-first search runs for many seconds.

Each builder returns ``(allocator inputs, node, claims)`` for ``Allocator``; the tests check
that the allocator answers them quickly and with upstream's result.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from alloc_builders import claim, device, device_class, node, request, slice_

Case = tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]


def _inputs(devices: list[dict[str, Any]]) -> dict[str, Any]:
    return {"classes": [device_class()], "slices": [slice_("s", devices)]}


def two_claims_over_search_case(shared_dir: Path) -> Case:
    """The search-021 conformance case with its claim twice."""
    case = json.loads((shared_dir / "conformance/allocate/search-021.json").read_text())
    data = case["input"]
    first = data["claims"][0]
    second = copy.deepcopy(first)
    second["metadata"]["name"] += "-2"
    second["metadata"]["uid"] += "-2"
    inputs = {"classes": data["deviceClasses"], "slices": data["resourceSlices"]}
    return inputs, data["node"], [first, second]


def three_claims_then_unsatisfiable() -> Case:
    """Three one-device claims, then a claim no device matches, over 128 devices."""
    devices = [device(f"gpu-{i:03d}", attrs={"index": i}) for i in range(128)]
    never = [{"cel": {"expression": 'device.attributes["gpu.example.com"].index > 1000'}}]
    claims = [claim(f"c{i}", request("r")) for i in range(3)]
    claims.append(claim("never", request("r", selectors=never)))
    return _inputs(devices), node(), claims


def subrequests_with_last_unsatisfiable() -> Case:
    """Four requests of eight subrequests each; no subrequest of the last one can be met."""
    devices = [device(f"gpu-{i:02d}", attrs={"index": i}) for i in range(32)]

    def subrequests(name: str, selectors: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "name": name,
            "firstAvailable": [
                {"name": f"s{j}", "deviceClassName": "gpu.example.com", "count": j + 1}
                | ({"selectors": selectors} if selectors else {})
                for j in range(8)
            ],
        }

    never = [{"cel": {"expression": 'device.attributes["gpu.example.com"].index > 1000'}}]
    c = claim("c")
    c["spec"]["devices"]["requests"] = [
        subrequests("a", []),
        subrequests("b", []),
        subrequests("c", []),
        subrequests("d", never),
    ]
    return _inputs(devices), node(), [c]


def six_of_identical_then_unsatisfiable() -> Case:
    """Count 6 of 32 identical devices, then a claim that the 26 left over cannot meet."""
    devices = [device(f"gpu-{i:02d}") for i in range(32)]
    claims = [claim("six", request("r", count=6)), claim("rest", request("r", count=27))]
    return _inputs(devices), node(), claims
