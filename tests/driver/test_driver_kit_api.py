"""The kit as a driver author meets it: ``import kubedra.driver as dra``, one name, a handle
that republishes, an error hook, typed and validated pools, hashed socket names."""

from __future__ import annotations

import base64
import hashlib
import inspect
import threading
from pathlib import Path
from typing import Any

import grpc
import pytest

import kubedra.driver as dra
from conftest import build_claim, listening, wait_for
from kubedra.api import models
from kubedra.driver import sockets
from kubedra.driver.claims import lookup_claim

NAME = "counter.example.com"


class Counters(dra.Driver):
    name = NAME

    def prepare_claim(self, claim: dra.PrepareClaim) -> list[dra.PreparedDevice]:
        if claim.ref.name == "refused":
            raise RuntimeError("no counters for you")
        return [d.prepared(env={"COUNTER": d.device}) for d in claim.devices]


def devices(*names: str) -> list[dict[str, Any]]:
    return [{"name": n, "attributes": {"kind": {"string": "counter"}}} for n in names]


@pytest.fixture
def cluster(short_tmp: Path) -> dra.ClusterDirectory:
    store = dra.ClusterDirectory(short_tmp / "cluster")
    store.register_node("node-1")
    return store


def start(short_tmp: Path, driver: dra.Driver, pools: Any, **settings: Any) -> dra.DriverHandle:
    settings.setdefault("store", dra.ClusterDirectory(short_tmp / "cluster"))
    return dra.start(
        driver,
        pools,
        node_name="node-1",
        registry_dir=short_tmp / "reg",
        plugin_dir=short_tmp / "plugins",
        cdi_dir=short_tmp / "cdi",
        resync_interval=0.05,
        **settings,
    )


def published(cluster: dra.ClusterDirectory) -> list[list[str]]:
    slices = sorted(
        cluster.list_resource_slices(NAME, "node-1"), key=lambda s: s["metadata"]["name"]
    )
    return [[d["name"] for d in s["spec"].get("devices") or []] for s in slices]


def test_the_package_exports_the_whole_api():
    for name in ("Driver", "Pool", "PreparedDevice", "PrepareResult", "run", "start", "main"):
        assert name in dra.__all__
    for name in ("ClusterDirectory", "KubernetesStore", "DetachedStore", "open_store"):
        assert name in dra.__all__
    assert all(getattr(dra, name) is not None for name in dra.__all__)


def test_the_plugin_directory_has_the_command_lines_name():
    """``dra.start(plugin_dir=...)`` is ``--plugin-dir``; ``plugins_dir=`` still works, warned."""
    options = {action.dest for action in dra.parser()._actions}
    assert {"registry_dir", "plugin_dir", "cdi_dir"} <= options
    for function in (dra.start, dra.plugin_paths):
        assert "plugin_dir" in inspect.signature(function).parameters
    with pytest.warns(DeprecationWarning, match=r"plugins_dir= is deprecated: use plugin_dir="):
        old = dra.plugin_paths(NAME, REGISTRY, plugins_dir=Path("/srv/plugins"))
    assert old == dra.plugin_paths(NAME, REGISTRY, plugin_dir=Path("/srv/plugins"))
    assert old.data_dir == Path("/srv/plugins") / NAME
    with pytest.raises(TypeError, match="plugin_dir and its deprecated name plugins_dir"):
        dra.plugin_paths(NAME, REGISTRY, plugin_dir=Path("/a"), plugins_dir=Path("/b"))


def test_start_takes_the_deprecated_plugins_dir_too(short_tmp, cluster):
    with (
        pytest.warns(DeprecationWarning, match="use plugin_dir="),
        dra.start(
            Counters(),
            None,
            node_name="node-1",
            store=cluster,
            registry_dir=short_tmp / "reg",
            plugins_dir=short_tmp / "old",
        ) as handle,
    ):
        assert handle.paths.dra_socket == short_tmp / "old" / NAME / "dra.sock"


def test_republishing_adds_and_removes_devices(short_tmp, cluster):
    with start(short_tmp, Counters(), dra.Pool(devices=devices("a", "b"))) as handle:
        wait_for(lambda: published(cluster) == [["a", "b"]], what="a and b")
        (first,) = cluster.list_resource_slices(NAME, "node-1")
        handle.publish(dra.Pool(devices=devices("b", "c")))
        wait_for(lambda: published(cluster) == [["b", "c"]], what="b and c")
        (second,) = cluster.list_resource_slices(NAME, "node-1")
        assert second["metadata"]["uid"] == first["metadata"]["uid"]  # updated in place
        many = [f"d-{i}" for i in range(130)]
        handle.publish({"node-1": dra.Pool(devices=devices(*many))})
        wait_for(lambda: published(cluster) == [many[:128], many[128:]], what="two slices")
        handle.publish(dra.Pool(devices=devices("z")))
        wait_for(lambda: published(cluster) == [["z"]], what="one slice again")
        generations = {
            s["spec"]["pool"]["generation"] for s in cluster.list_resource_slices(NAME, None)
        }
        assert len(generations) == 1
    assert not listening(handle.paths.registration_socket)


def test_typed_devices_publish_like_dicts(short_tmp, cluster):
    typed = models.Device(
        name="t-0",
        attributes={"kind": models.DeviceAttribute(string_value="counter")},
        consumes_counters=[
            models.DeviceCounterConsumption(
                counter_set="set", counters={"units": models.Counter(value="2")}
            )
        ],
    )
    counters = models.CounterSet(name="set", counters={"units": models.Counter(value="8")})
    with start(short_tmp, Counters(), dra.Pool(devices=[typed], shared_counters=[counters])):
        wait_for(lambda: published(cluster) == [[], ["t-0"]], what="typed slices")
    by_content = {
        "devices" in s["spec"]: s["spec"] for s in cluster.list_resource_slices(NAME, "node-1")
    }
    assert by_content[True]["devices"] == [
        {
            "name": "t-0",
            "attributes": {"kind": {"string": "counter"}},
            "consumesCounters": [{"counterSet": "set", "counters": {"units": {"value": "2"}}}],
        }
    ]
    assert by_content[False]["sharedCounters"] == [
        {"name": "set", "counters": {"units": {"value": "8"}}}
    ]


def test_a_misspelt_field_is_refused_before_anything_is_published(short_tmp, cluster):
    bad = dra.Pool(devices=[{"name": "a", "atributes": {"kind": {"string": "x"}}}])
    with pytest.raises(dra.PoolError) as refused:
        start(short_tmp, Counters(), bad)
    assert str(refused.value) == (
        "pool 'node-1': ResourceSlice.resource.k8s.io "
        '"00000-counter.example.com-node-1-xxxxx" cannot be decoded: '
        'unknown field "spec.devices[0].atributes"'
    )
    assert cluster.list_resource_slices(NAME, None) == []
    assert not (short_tmp / "reg" / f"{NAME}-reg.sock").exists()  # nothing served either


def test_an_invalid_republish_keeps_the_published_pool(short_tmp, cluster):
    with start(short_tmp, Counters(), dra.Pool(devices=devices("a"))) as handle:
        wait_for(lambda: published(cluster) == [["a"]], what="a")
        invalid = dra.Pool(devices=[{"name": "Not_A_Label"}])
        with pytest.raises(
            dra.PoolError, match=r'spec.devices\[0\].name: Invalid value: "Not_A_Label"'
        ):
            handle.publish(invalid)
        with pytest.raises(dra.PoolError, match="duplicate device 'a'"):
            handle.publish(dra.Pool(devices=devices("a", "a")))
        with pytest.raises(
            dra.PoolError, match=r"expected a dict or a kubedra\.api\.models object"
        ):
            handle.publish(dra.Pool(devices=["a"]))  # type: ignore[list-item]
        handle.publish(dra.Pool(devices=devices("a", "b")))
        wait_for(lambda: published(cluster) == [["a", "b"]], what="a and b")


class FailingStore(dra.ClusterDirectory):
    def create_resource_slice(self, obj: dict[str, Any]) -> dict[str, Any]:
        raise dra.StoreError('resourceslices is forbidden: User "driver" cannot create')


def test_the_error_hook_gets_the_object_and_the_reason_once(short_tmp, cluster):
    problems: list[tuple[object, Exception]] = []
    store = FailingStore(short_tmp / "cluster")
    with start(
        short_tmp,
        Counters(),
        dra.Pool(devices=devices("a")),
        store=store,
        on_error=lambda subject, error: problems.append((subject, error)),
    ) as handle:
        wait_for(lambda: problems, what="a reported problem")
        wait_for(lambda: handle.publisher.stats.creates == 0 and len(problems) == 1, 1.0)
        threading.Event().wait(0.3)  # several resyncs
    (subject, error), *more = problems
    assert more == []
    assert isinstance(subject, dict) and subject["kind"] == "ResourceSlice"
    assert subject["metadata"]["generateName"] == f"00000-{NAME}-node-1-"
    assert subject["spec"]["devices"] == devices("a")
    assert "cannot create" in str(error)


def test_a_missing_node_is_reported_with_the_node(short_tmp):
    problems: list[tuple[object, Exception]] = []
    with start(
        short_tmp,
        Counters(),
        dra.Pool(devices=devices("a")),
        on_error=lambda subject, error: problems.append((subject, error)),
    ):
        wait_for(lambda: problems, what="a reported problem")
    subject, error = problems[0]
    assert subject == {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"}}
    assert str(error) == 'retrieve node "node-1": not found'


def test_a_raising_error_hook_stops_the_driver(short_tmp):
    def fail(subject: object, error: Exception) -> None:
        raise RuntimeError(f"giving up on {error}")

    handle = start(short_tmp, Counters(), dra.Pool(devices=devices("a")), on_error=fail)
    assert handle.wait(10), "the driver should stop"
    assert isinstance(handle.error, RuntimeError)
    assert not handle.paths.registration_socket.exists()
    assert not handle.paths.dra_socket.exists()


def test_run_raises_when_the_error_hook_stopped_it(short_tmp):
    def fail(subject: object, error: Exception) -> None:
        raise RuntimeError("stop")

    with pytest.raises(dra.DriverStopped, match="error hook raised: stop"):
        dra.run(
            Counters(),
            dra.Pool(devices=devices("a")),
            stop=threading.Event(),
            node_name="node-1",
            store=dra.ClusterDirectory(short_tmp / "cluster"),
            registry_dir=short_tmp / "reg",
            plugin_dir=short_tmp / "plugins",
            on_error=fail,
        )


def test_a_refused_registration_reaches_the_hook(short_tmp, kubelet_client):
    problems: list[tuple[object, Exception]] = []
    with (
        start(short_tmp, Counters(), None, on_error=lambda s, e: problems.append((s, e))) as handle,
        pytest.raises(grpc.RpcError),  # the plugin aborts the call, as upstream
    ):
        kubelet_client.notify(handle.paths.registration_socket, False, "version mismatch")
    ((subject, error),) = problems
    assert subject == handle.paths.registration_socket
    assert isinstance(error, dra.RegistrationError)
    assert str(error) == "kubelet rejected the registration: version mismatch"


def test_prepare_claim_writes_the_cdi_spec_and_unprepare_removes_it(short_tmp, cluster):
    cluster.put(build_claim("two", "uid-2", [("c", "a"), ("c", "b")], driver=NAME))
    cluster.put(build_claim("refused", "uid-r", [("c", "a")], driver=NAME))
    driver = Counters()
    driver.cdi_dir = short_tmp / "cdi"
    claims = [
        lookup_claim(cluster, ref, NAME)
        for ref in (
            dra.ClaimRef("default", "two", "uid-2"),
            dra.ClaimRef("default", "refused", "uid-r"),
        )
    ]
    results = driver.prepare(claims)
    assert str(results["uid-r"]) == "no counters for you"
    prepared = results["uid-2"]
    assert isinstance(prepared, dra.PrepareResult)
    assert [(d.pool, d.device, d.requests, d.cdi_device_ids) for d in prepared.devices] == [
        ("node-1", "a", ("c",), (f"k8s.{NAME}/device=uid-2-a",)),
        ("node-1", "b", ("c",), (f"k8s.{NAME}/device=uid-2-b",)),
    ]
    assert driver.cdi_spec_path(dra.ClaimRef("default", "two", "uid-2")).exists()
    spec = dra.load_spec_file(short_tmp / "cdi" / f"k8s.{NAME}-device_uid-2.json")
    assert [d["containerEdits"]["env"] for d in spec["devices"]] == [["COUNTER=a"], ["COUNTER=b"]]
    ref = dra.ClaimRef("default", "two", "uid-2")
    assert driver.unprepare([ref, dra.ClaimRef("default", "never", "uid-n")]) == {
        "uid-2": None,
        "uid-n": None,
    }
    assert list((short_tmp / "cdi").iterdir()) == []
    assert driver.cdi_spec_path(ref) == short_tmp / "cdi" / f"k8s.{NAME}-device_uid-2.json"


def test_prepared_builds_the_common_answer():
    device = dra.AllocatedDevice(request="gpu/small", pool="p", device="d")
    assert device.prepared(["vendor.com/class=x"]) == dra.PreparedDevice(
        "p", "d", ("gpu/small",), ("vendor.com/class=x",)
    )
    edits = device.prepared(edits=dra.ContainerEdits(env=["A=1"]), env={"B": "2"}).edits
    assert edits is not None and edits.env == ["A=1", "B=2"]


def test_a_driver_needs_a_valid_name_and_a_prepare(short_tmp):
    class Nameless(Counters):
        name = ""

    class Idle(dra.Driver):
        name = NAME

    class Shouting(Counters):
        name = "Counter.Example.com"

    with pytest.raises(ValueError, match="driver name: Required value"):
        start(short_tmp, Nameless(), None)
    with pytest.raises(TypeError, match="implements neither prepare nor prepare_claim"):
        start(short_tmp, Idle(), None)
    with pytest.raises(ValueError, match=r"driver name .Counter\.Example\.com.: Invalid value"):
        start(short_tmp, Shouting(), None)


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


UID = "ad4af911-5bcd-47c5-a554-f35cea869472"
REGISTRY = Path("/var/lib/kubelet/plugins_registry")
PLUGINS = Path("/var/lib/kubelet/plugins")


def test_socket_names_follow_upstream():
    short = "gpu.example.com"
    assert sockets.registration_socket(REGISTRY, short) == REGISTRY / f"{short}-reg.sock"
    assert (
        sockets.registration_socket(REGISTRY, short, "pod-a")
        == REGISTRY / f"{short}-pod-a-reg.sock"
    )
    long_name = "gpu.dra-example-driver.sigs.k8s.io"  # kubernetes/kubernetes#139166
    uid_hash = b64(hashlib.sha256(UID.encode()).digest()[:8])
    assert sockets.registration_socket(REGISTRY, long_name, UID) == (
        REGISTRY / f"{long_name}-{uid_hash}-reg.sock"
    )
    deep = Path("/var/lib/kubelet") / ("x" * 40) / "plugins_registry"
    both_hash = b64(hashlib.sha256(f"{long_name}\0{UID}".encode()).digest()[:16])
    assert sockets.registration_socket(deep, long_name, UID) == deep / f"dra-{both_hash}-reg.sock"
    data_dir = PLUGINS / long_name
    assert sockets.dra_socket(data_dir) == data_dir / "dra.sock"
    assert sockets.dra_socket(data_dir, UID) == data_dir / f"dra-{UID}.sock"
    name_63 = "a" * 20 + "." + "b" * 42
    assert sockets.dra_socket(PLUGINS / name_63, UID) == PLUGINS / name_63 / f"{uid_hash}.sock"


def test_socket_paths_stop_at_107_bytes():
    # sun_path holds 108 bytes with the NUL: 107 fits, 108 does not (kubernetes#141815).
    assert sockets.fits(Path("/" + "a" * 106))
    assert not sockets.fits(Path("/" + "a" * 107))
    registry = Path("/" + "r" * (107 - len(f"/gpu.example.com-{UID}-reg.sock") - 1))
    assert sockets.registration_socket(registry, "gpu.example.com", UID).name == (
        f"gpu.example.com-{UID}-reg.sock"
    )
    longer = Path(str(registry) + "r")
    assert UID not in sockets.registration_socket(longer, "gpu.example.com", UID).name


def test_a_long_driver_name_with_rolling_updates_serves_on_hashed_sockets(
    short_tmp, kubelet_client
):
    class LongName(Counters):
        name = "counters.dra-example-driver.sigs.k8s.io"  # 39 characters

    registry = short_tmp / ("r" * 20)
    plugins = short_tmp / ("p" * 20)
    full = registry / f"{LongName.name}-{UID}-reg.sock"
    assert not sockets.fits(full)
    with dra.start(
        LongName(),
        None,
        node_name="node-1",
        store=dra.DetachedStore(),
        registry_dir=registry,
        plugin_dir=plugins,
        rolling_update_uid=UID,
    ) as handle:
        paths = handle.paths
        assert UID not in paths.registration_socket.name
        assert UID not in paths.dra_socket.name
        assert listening(paths.registration_socket) and listening(paths.dra_socket)
        info = kubelet_client.get_info(paths.registration_socket)
        assert info.name == LongName.name
        assert info.endpoint == str(paths.dra_socket)


def test_the_shipped_drivers_use_only_the_public_api():
    import ast

    import kubedra.drivers

    root = Path(kubedra.drivers.__file__).parent
    for path in sorted(root.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                modules = [node.module]
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            else:
                continue
            for module in modules:
                if module.startswith("kubedra.driver."):
                    raise AssertionError(f"{path.name} imports {module}, not kubedra.driver")


def test_a_failing_health_stream_reaches_the_hook(short_tmp, kubelet_client):
    class Sick(Counters):
        def watch_health(self, stop):
            raise OSError("health probe failed")
            yield []

    problems: list[tuple[object, Exception]] = []
    driver = Sick()
    with start(short_tmp, driver, None, on_error=lambda s, e: problems.append((s, e))) as handle:
        info = kubelet_client.get_info(handle.paths.registration_socket)
        assert "v1alpha1.DRAResourceHealth" in info.supported_versions
        with pytest.raises(grpc.RpcError):
            kubelet_client.first_health_report(handle.paths.dra_socket)
    ((subject, error),) = problems
    assert subject is driver
    assert str(error) == "health probe failed"
