# ruff: noqa: E501  (upstream expressions are kept verbatim, one per line)
"""Static cost estimates equal upstream's, call by call.

``UPSTREAM`` holds every ``expectCost`` of k8s.io/dynamic-resource-allocation/cel's
compile_test.go (the worst-case estimate the apiserver compares with the 1,000,000 limit; the
``5 + (3 + 3) * 64`` style figures are written out). ``LIBRARY`` adds one selector per
library function, its figure worked out by hand from cel-go's checker/cost.go, Kubernetes'
library/cost.go and the ext libraries' estimators (the working is in the comments).
"""

from __future__ import annotations

import pytest

from kubedra.api.validation.cel_checks import CEL_SELECTOR_EXPRESSION_MAX_COST
from kubedra.cel import compile_selector

UNBOUNDED = (1 << 64) - 1

UPSTREAM = [
    (
        "runtime-error-lookup-identifier",
        'device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0"))',
        6,
    ),
    (
        "runtime-error-lookup-map",
        'device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0"))',
        6,
    ),
    ("domain-check-negative", '"no-such-domain" in device.attributes', 3),
    ("domain-check-positive", '"dra.example.com" in device.attributes', 3),
    ("empty-driver-name", 'device.driver == ""', 2),
    ("real-driver-name", 'device.driver == "dra.example.com"', 4),
    ("driver-name-qualifier", 'device.attributes["dra.example.com"].name', 4),
    ("driver-name-qualifier-map-lookup", 'device.attributes["dra.example.com"]["name"]', 4),
    ("bind", 'cel.bind(dra, device.attributes["dra.example.com"], dra.name)', 15),
    ("qualified-attribute-name", 'device.attributes["other.example.com"].name', 4),
    ("int", 'device.attributes["dra.example.com"].name > 0', 5),
    ("string", 'device.attributes["dra.example.com"].name == "fish"', 5),
    ("macro-exists-on-int", 'device.attributes["dra.example.com"].name.exists(x, x > 0)', 389),
    ("macro-exists-on-bool", 'device.attributes["dra.example.com"].name.exists(x, x == true)', 389),
    (
        "macro-exists-on-string",
        'device.attributes["dra.example.com"].name.exists(x, x == "fish")',
        389,
    ),
    ("list-result-type-causes-match-error", 'device.attributes["dra.example.com"].names', 4),
    (
        "includes-function-can-evaluate",
        'device.attributes["dra.example.com"].name.includes("fish")',
        52,
    ),
    ("list-of-bool", 'device.attributes["dra.example.com"].names.size() == 2', 6),
    ("macro-on-list-of-int", 'device.attributes["dra.example.com"].names.exists(x, x > 0)', 389),
    ("macro-on-list-of-string", 'device.attributes["dra.example.com"].names.all(x, x != "")', 261),
    (
        "macro-on-list-of-semver",
        'device.attributes["dra.example.com"].names.all(x, x.isGreaterThan(semver("0.0.1")))',
        389,
    ),
    (
        "includes-function-on-bool-scalar-positive",
        'device.attributes["dra.example.com"].name.includes(true)',
        52,
    ),
    (
        "includes-function-on-bool-list-negative",
        'device.attributes["dra.example.com"].name.includes(false)',
        52,
    ),
    (
        "includes-function-on-int-scalar-positive",
        'device.attributes["dra.example.com"].name.includes(1)',
        52,
    ),
    (
        "includes-function-on-int-list-negative",
        'device.attributes["dra.example.com"].name.includes(3)',
        52,
    ),
    (
        "includes-function-on-string-scalar-negative",
        'device.attributes["dra.example.com"].name.includes("bird")',
        52,
    ),
    (
        "includes-function-on-string-list-negative",
        'device.attributes["dra.example.com"].name.includes("cat")',
        52,
    ),
    (
        "includes-function-on-semver-scalar-positive",
        'device.attributes["dra.example.com"].name.includes(semver("1.0.0"))',
        53,
    ),
    (
        "includes-function-on-semver-scalar-negative",
        'device.attributes["dra.example.com"].name.includes(semver("2.0.0"))',
        53,
    ),
    (
        "includes-function-on-semver-list-negative",
        'device.attributes["dra.example.com"].name.includes(semver("3.0.0"))',
        53,
    ),
    ("in-operator-on-list", '1 in device.attributes["dra.example.com"].names', 68),
    ("version", 'device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1"))', 6),
    (
        "version_v",
        'device.attributes["dra.example.com"].name.isGreaterThan(semver("v0.0.1", true)) && isSemver("v1.0.0", true)',
        7,
    ),
    (
        "macro-exists-on-version",
        'device.attributes["dra.example.com"].name.exists(x, x.isGreaterThan(semver("0.0.1")))',
        453,
    ),
    ("quantity", 'device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))', 6),
    (
        "check-positive",
        '"name" in device.capacity["dra.example.com"] && device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))',
        10,
    ),
    (
        "check-negative",
        '!("name" in device.capacity["dra.example.com"]) || device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))',
        11,
    ),
    (
        "all",
        '\ndevice.capacity["dra.example.com"].quantity.isGreaterThan(quantity("1Ki")) &&\ndevice.attributes["dra.example.com"].bool &&\ndevice.attributes["dra.example.com"].int > 0 &&\ndevice.attributes["dra.example.com"].string == "fish" &&\ndevice.attributes["dra.example.com"].version.isGreaterThan(semver("0.0.1")) &&\ndevice.capacity["dra.example.com"]["quantity"].isGreaterThan(quantity("1Ki")) &&\ndevice.attributes["dra.example.com"]["bool"] &&\ndevice.attributes["dra.example.com"]["int"] > 0 &&\ndevice.attributes["dra.example.com"]["string"] == "fish" &&\ndevice.attributes["dra.example.com"]["version"].isGreaterThan(semver("0.0.1"))\n',
        52,
    ),
    (
        "many",
        'device.attributes["dra.example.com"].a && device.attributes["dra.example.com"].b && device.attributes["dra.example.com"].c',
        12,
    ),
    ("check_attribute_domains", 'device.attributes.exists_one(x, x == "dra.example.com")', 164),
    (
        "check_attribute_ids",
        'device.attributes["dra.example.com"].exists_one(x, x == "services")',
        133,
    ),
    (
        "split_attribute",
        'device.attributes["dra.example.com"].services.split("example").size() >= 2',
        19,
    ),
    ("regexp_attribute", 'device.attributes["dra.example.com"].services.matches("[^a]?sym")', 18),
    ("check_capacity_domains", 'device.capacity.exists_one(x, x == "dra.example.com")', 164),
    ("check_capacity_ids", 'device.capacity["dra.example.com"].exists_one(x, x == "memory")', 133),
    (
        "expensive",
        "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1'.find('[0-9]*')) < 100)))))))",
        85555551,
    ),
    ("allow_multiple_allocations", "device.allowMultipleAllocations == true", 3),
    ("allow_multiple_allocations_default", "device.allowMultipleAllocations == false", 3),
]

# Paths into ``device`` cost 4 (device, .attributes, [domain], .name); an attribute is at most
# 64 long (max(DeviceAttributeMaxValueLength, ResourceSliceMaxAttributeValuesPerDevice)).
LIBRARY = [
    # lowerAscii keeps the size (64): 7; matches: ceil(65 * 0.1) * ceil(10 * 0.25) = 21.
    (
        'device.attributes["gpu.nvidia.com"].productName.lowerAscii().matches("^.*a100.*$")',
        32,
    ),
    # range: 20000 + 1 + 10; distinct: 20000^2 * 2 + 11; size 1; > 1.
    ("lists.range(20000).distinct().size() > 0", 800_020_024),
    # two literals (10 each); 3 * 2 * 1 + 1.
    ("sets.intersects([1, 2, 3], [4, 5])", 27),
    # split: ceil(64 * 0.2) = 13; size 1; == 1.
    ('device.attributes["d"].s.split(",").size() == 2', 19),
    # replace: 13, its result size bounded; size 1; > 1.
    ('device.attributes["d"].s.replace("a", "bb").size() > 0', 19),
    # startsWith is charged by the prefix: ceil(3 * 0.1).
    ('device.driver.startsWith("gpu")', 3),
    # contains: ceil(6.4) * ceil(0.1).
    ('device.attributes["d"].s.contains("x")', 11),
    # +: ceil(65 * 0.1) = 7, result size 65; ==: ceil(min(65, 1) * 0.1) = 1.
    ('device.attributes["d"].s + "x" == "y"', 12),
    # url: 7 with the argument's size; getHost 1; == 1.
    ('url(device.attributes["d"].s).getHost() == "h"', 13),
    # cidr 7 and ip 7 on paths of 4; containsIP: ceil((16 + 16) * 0.1) = 4.
    ('cidr(device.attributes["d"].s).containsIP(ip(device.attributes["d"].t))', 26),
    # literals 10 + 10; sort: 3^2 * 2 + 11 = 29 with result size 9; ==: ceil(3 * 0.1).
    ("[3, 1, 2].sort() == [1, 2, 3]", 50),
    # format: ceil(2 * 0.1) = 1; the list literal 10 + 4; == 1.
    ('"%d".format([device.attributes["d"].n]) == "1"', 16),
    # bind: 10 for its empty range; init 4 + 7; x.startsWith 2; x.endsWith 2.
    (
        'cel.bind(x, device.attributes["d"].s.lowerAscii(), x.startsWith("a") && x.endsWith("b"))',
        25,
    ),
    # The items of a list attribute have no declared size: lowerAscii is unbounded.
    ('device.attributes["d"].names.all(n, n.lowerAscii() == "a")', UNBOUNDED),
    # quantity: ceil(3 * 0.1); capacity path 4; isGreaterThan 1.
    ('quantity("1Gi").isGreaterThan(device.capacity["d"].memory)', 6),
    # range 21; map: [] 10 + 10 * (i * 2 (2) + accu + [..] (12)) + 1; size 1; == 1.
    ("lists.range(10).map(i, i * 2).size() == 10", 174),
    # substring and upperAscii keep the size 64: 7 each; ==: ceil(2 * 0.1).
    ('device.attributes["d"].s.substring(1, 3).upperAscii() == "AB"', 19),
    # join over a literal list: its items have no size, so 2 * unknown saturates; the
    # cost is ceil(2**64 * 0.1) in doubles (1844674407370955264), + 10 + 4 + ceil(6.4).
    ('["a", "b"].join(",") == device.attributes["d"].s', 1_844_674_407_370_955_285),
]


@pytest.mark.parametrize(("name", "expression", "cost"), UPSTREAM, ids=[c[0] for c in UPSTREAM])
def test_estimate_equals_upstream_compile_test(name: str, expression: str, cost: int) -> None:
    assert compile_selector(expression).estimated_max_cost == cost


@pytest.mark.parametrize(("expression", "cost"), LIBRARY)
def test_library_estimate_equals_upstream(expression: str, cost: int) -> None:
    assert compile_selector(expression).estimated_max_cost == cost


def test_nvidia_quickstart_selector_passes_validation() -> None:
    """NVIDIA's published selector style is within the apiserver's cost limit."""
    from kubedra.api.validation.cel_checks import validate_selector_expression

    expression = (
        'device.attributes["gpu.nvidia.com"].productName.lowerAscii().matches("^.*a100.*$")'
    )
    assert compile_selector(expression).estimated_max_cost <= CEL_SELECTOR_EXPRESSION_MAX_COST
    assert validate_selector_expression(expression, "spec.selectors[0].cel.expression") == []
