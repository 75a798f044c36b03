"""The CEL view of a device for selector chains that read only ``device.driver``.

Such chains (the usual DeviceClass) get a view without the attribute and capacity maps; the
device's conversion error must still be reported as upstream does for any selector, and a
later chain or derived attribute that reads attributes must see the full view.
"""

from __future__ import annotations

from dataclasses import replace

from alloc_builders import DRIVER, allocate, claim, device, device_class, picked, request, slice_

from kubedra.allocator.engine import Allocator
from kubedra.allocator.features import Features
from kubedra.cel.device import CelDevice

DRIVER_ONLY = device_class(DRIVER, f'device.driver == "{DRIVER}"')
READS_MODEL = device_class(DRIVER, f'device.attributes["{DRIVER}"].model != "none"')


def _broken_version_slice() -> list[dict[str, object]]:
    return [
        slice_(
            "s",
            [
                device(
                    "gpu-0",
                    attrs={"model": "A100", "driverVersion": {"version": "1.2"}},
                )
            ],
        )
    ]


def test_an_unconvertible_attribute_fails_a_driver_only_selector_as_any_other() -> None:
    """Upstream builds the whole device for every selector, so a version attribute it cannot
    parse fails ``device.driver == ...`` too, with the same message."""
    claims = [claim("c", request("r"))]
    light = allocate(_broken_version_slice(), claims, classes=[DRIVER_ONLY])
    full = allocate(_broken_version_slice(), claims, classes=[READS_MODEL])
    assert light.error is not None
    assert "attribute driverVersion: parse semantic version" in light.error
    assert light.error == full.error


def test_a_chain_that_reads_attributes_after_a_driver_only_one_sees_them() -> None:
    """The first claim's chain makes the driver-only view; the second claim's selector reads
    the model, which that view leaves out: it must get the full view."""
    slices = [
        slice_(
            "s",
            [device("gpu-0", attrs={"model": "A100"}), device("gpu-1", attrs={"model": "H100"})],
        )
    ]
    allocator = Allocator(Features(), [DRIVER_ONLY], slices, [])
    target = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1", "labels": {}}}
    first = allocator.allocate(target, [claim("a", request("r"))])
    assert picked(first) == ["r=gpu-0"]
    h100 = [{"cel": {"expression": f'device.attributes["{DRIVER}"].model == "H100"'}}]
    second = allocator.allocate(target, [claim("b", request("r", selectors=h100))])
    assert second.error is None
    assert picked(second) == ["r=gpu-1"]


def test_derived_attributes_after_a_driver_only_chain_read_the_full_device() -> None:
    """Derived attributes (KEP-6080) read attributes of devices the class's driver-only
    selector has already looked at."""
    slices = [
        slice_(
            "s",
            [
                device("gpu-0", attrs={"topology": "numa-0"}),
                device("gpu-1", attrs={"topology": "numa-1"}),
                device("gpu-2", attrs={"topology": "numa-1"}),
            ],
        )
    ]
    numa = f'int(device.attributes["{DRIVER}"].topology.split("-")[1])'
    derived = [{"name": "derived/numa", "expression": numa}]
    c = claim(
        "c",
        request("a", derivedAttributes=derived),
        request("b", derivedAttributes=derived),
        constraints=[{"matchAttribute": "derived/numa"}],
    )
    features = replace(Features(list_type_attributes=False), derived_attributes=True)
    outcome = allocate(slices, [c], classes=[DRIVER_ONLY], features=features)
    assert outcome.error is None
    assert picked(outcome) == ["a=gpu-1", "b=gpu-2"]


def test_the_driver_only_view_presents_the_driver_fields() -> None:
    raw = {"name": "gpu-0", "allowMultipleAllocations": True, "attributes": {"x": {"int": 1}}}
    view = CelDevice.driver_only(raw, DRIVER)
    assert not view.complete and view.error is None
    assert view.variables["device"]["driver"] == DRIVER
    assert view.variables["device"]["allowMultipleAllocations"] is True
    off = CelDevice.driver_only(raw, DRIVER, consumable_capacity=False)
    assert off.variables["device"]["allowMultipleAllocations"] is False
    assert CelDevice.from_v1(raw, DRIVER).complete


def test_driver_only_outcomes_follow_each_devices_driver_fields() -> None:
    """Devices share a driver-only chain's outcome per driver and allowMultipleAllocations,
    never across them: the class picks the second driver's device, then only the device
    that allows multiple allocations."""
    slices = [
        slice_("a", [device("a-0"), device("a-1")], driver="a.example.com", pool="a"),
        slice_(
            "b",
            [device("b-0"), device("b-1", allowMultipleAllocations=True)],
            driver="b.example.com",
            pool="b",
        ),
    ]
    by_driver = device_class("pick", 'device.driver == "b.example.com"')
    outcome = allocate(slices, [claim("c", request("r", cls="pick"))], classes=[by_driver])
    assert picked(outcome) == ["r=b-0"]
    shared = device_class("pick", "device.allowMultipleAllocations")
    outcome = allocate(slices, [claim("c", request("r", cls="pick"))], classes=[shared])
    assert picked(outcome) == ["r=b-1"]


def test_only_the_unconvertible_device_fails_a_driver_only_chain() -> None:
    """A device that converts keeps the shared outcome; the broken one reports its error."""
    slices = [
        slice_(
            "s",
            [
                device("gpu-0", attrs={"driverVersion": {"version": "bad"}}),
                device("gpu-1", attrs={"driverVersion": {"version": "1.2.3"}}),
            ],
        )
    ]
    outcome = allocate(slices, [claim("c", request("r"))], classes=[DRIVER_ONLY])
    assert outcome.error is not None and "gpu-0" in outcome.error
    assert "parse semantic version" in outcome.error
    only_good = [slice_("s", [device("gpu-1", attrs={"driverVersion": {"version": "1.2.3"}})])]
    assert picked(allocate(only_good, [claim("c", request("r"))], classes=[DRIVER_ONLY])) == [
        "r=gpu-1"
    ]
