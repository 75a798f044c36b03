"""Validation of ``derivedAttributes`` (KEP-6080, alpha in 1.37) against upstream.

Sources: k8s.io/api resource/v1 types.go at kubernetes/kubernetes 0226316d6a24
(``DeviceDerivedAttribute``: name ``+k8s:required`` ``+k8s:format=k8s-resource-fully-qualified-
name``, expression ``+k8s:required``, ``+k8s:maxItems=32``), pkg/apis/resource/validation/
validation.go at 009801d930e2 (``validateDeviceDerivedAttribute``, ``validateCELExpression`` with
``DerivedAttribute: true`` and the claim-wide ``DeviceClaimDerivedAttributeCELMaxCost``) and
k8s.io/dynamic-resource-allocation cel/compile.go (``validateOutputType``). Before, kubedra
checked only the expression's length and the constraint reference.
"""

from __future__ import annotations

from typing import Any

from validation_fixtures import rendered_errors

FIELD = "spec.devices.requests[0].exactly.derivedAttributes"


def _claim(*derived: dict[str, Any], constraints: list[str] | None = None) -> dict[str, Any]:
    names = constraints if constraints is not None else [str(d.get("name")) for d in derived]
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "c", "namespace": "default"},
        "spec": {
            "devices": {
                "requests": [
                    {
                        "name": "r",
                        "exactly": {
                            "deviceClassName": "gpu.example.com",
                            "allocationMode": "ExactCount",
                            "count": 1,
                            "derivedAttributes": list(derived),
                        },
                    }
                ],
                "constraints": [{"matchAttribute": n} for n in names if "/" in n],
            }
        },
    }


NUMA = 'int(device.attributes["gpu.example.com"].topology.split("-")[1])'


def test_a_valid_derived_attribute() -> None:
    assert rendered_errors(_claim({"name": "derived/numa", "expression": NUMA})) == []
    lists = '[device.attributes["gpu.example.com"].topology]'
    assert rendered_errors(_claim({"name": "derived/t", "expression": lists})) == []


def test_the_name_is_required_and_fully_qualified() -> None:
    errors = rendered_errors(_claim({"name": "numa", "expression": NUMA}, constraints=[]))
    assert errors[0] == (
        f'{FIELD}[0].name: Invalid value: "numa": a fully qualified name must be a domain and '
        "a name separated by a slash"
    )
    assert rendered_errors(_claim({"name": "", "expression": NUMA})) == [
        f"{FIELD}[0].name: Required value"
    ]


def test_the_expression_is_required_and_compiled() -> None:
    assert rendered_errors(_claim({"name": "derived/x", "expression": ""})) == [
        f"{FIELD}[0].expression: Required value"
    ]
    [error] = rendered_errors(_claim({"name": "derived/x", "expression": "1 +"}))
    assert error.startswith(
        f'{FIELD}[0].expression: Invalid value: "1 +": compilation failed: ERROR: <input>:1:4:'
    )


def test_the_value_must_be_a_scalar_or_a_list_of_scalars() -> None:
    assert rendered_errors(_claim({"name": "derived/x", "expression": "1.5"})) == [
        f'{FIELD}[0].expression: Invalid value: "1.5": must evaluate to a primitive scalar '
        "(string, integer, boolean, semver) or a list of these scalars, not double"
    ]
    assert rendered_errors(_claim({"name": "derived/x", "expression": "{'a': 1}"}))[0].endswith(
        "or a list of these scalars, not map(string, int)"
    )


def test_at_most_32_derived_attributes() -> None:
    many = [{"name": f"derived/a{i}", "expression": "1"} for i in range(33)]
    used = [f"derived/a{i}" for i in range(32)]
    assert rendered_errors(_claim(*many, constraints=used)) == [
        f"{FIELD}: Too many: 33: must have at most 32 items"
    ]


def test_the_claim_wide_cost_budget() -> None:
    """Each expression below the 1,000,000 limit, together above it: Forbidden on the claim."""
    d = 'device.attributes["gpu.example.com"]'
    costly = f"{d}.all(k, {d}.all(j, {d}.all(i, k != j)))"
    from kubedra.cel.derived import compile_derived_attribute

    cost = compile_derived_attribute(costly).estimated_max_cost
    assert 0 < cost <= 1_000_000
    count = 1_000_000 // cost + 1
    assert count <= 32, "the expression must be costly enough for 32 to exceed the budget"
    derived = [{"name": f"derived/a{i}", "expression": costly} for i in range(count)]
    assert rendered_errors(_claim(*derived)) == [
        "spec.devices: Forbidden: too complex, total cost of derived attribute CEL expressions "
        "in the claim exceeds cost limit"
    ]
