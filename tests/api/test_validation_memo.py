"""ValidationMemo answers exactly what validate_object answers, shape after shape."""

from __future__ import annotations

from typing import Any

from kubedra.api.defaults import apply_defaults
from kubedra.api.validation import ValidationMemo, validate_object


def _claim(name: Any, count: Any = 1) -> dict[str, Any]:
    return apply_defaults(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {
                "devices": {
                    "requests": [
                        {"name": "gpu", "exactly": {"deviceClassName": "gpu", "count": count}}
                    ]
                }
            },
        }
    )


def _pod(name: str, claim_name: Any) -> dict[str, Any]:
    return apply_defaults(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {
                "resourceClaims": [{"name": "c0", "resourceClaimName": claim_name}],
                "containers": [{"name": "main", "image": "busybox"}],
            },
        }
    )


def _same(memo: ValidationMemo, obj: dict[str, Any]) -> list[str]:
    got = [str(e) for e in memo.validate(obj)]
    assert got == [str(e) for e in validate_object(obj)]
    return got


def test_a_remembered_shape_still_checks_each_objects_names() -> None:
    memo = ValidationMemo()
    assert _same(memo, _claim("c-1")) == []
    assert _same(memo, _claim("c-2")) == []
    bad = _same(memo, _claim("Bad_Name"))
    assert bad and "metadata.name" in bad[0]
    assert _same(memo, _pod("p-1", "c-1")) == []
    assert _same(memo, _pod("p-2", "c-2")) == []
    bad = _same(memo, _pod("p-3", "Not_A_Claim"))
    assert bad and "resourceClaimName" in bad[0]
    assert _same(memo, _pod("Bad_Pod", "c-3"))


def test_a_value_of_another_type_is_not_the_remembered_shape() -> None:
    memo = ValidationMemo()
    assert _same(memo, _claim("c-1", count=1)) == []
    assert _same(memo, _claim("c-2", count="1")), "a string count is a type error"
    assert _same(memo, _claim("c-3", count=True)), "a boolean count is a type error"
    assert _same(memo, _pod("p-1", "c-1")) == []
    assert _same(memo, _pod("p-2", 7)), "a number as resourceClaimName is a type error"


def test_a_key_of_another_type_is_not_the_remembered_shape() -> None:
    """JSON would write the label key 1 as "1": the shape key must keep them apart."""
    memo = ValidationMemo()
    good = _claim("c-1")
    good["metadata"]["labels"] = {"1": "a"}
    assert _same(memo, good) == []
    bad = _claim("c-2")
    bad["metadata"]["labels"] = {1: "a"}
    assert _same(memo, bad), "a label key that is not a string is a type error"
