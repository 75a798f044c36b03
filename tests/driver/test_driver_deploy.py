"""The example driver's deployment manifests validate against the Kubernetes schemas."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

kubernetes_validate = pytest.importorskip("kubernetes_validate")

DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "example-gpu"


def documents() -> list[tuple[str, dict]]:
    found = []
    for path in sorted(DEPLOY.glob("*.yaml")):
        for index, document in enumerate(yaml.safe_load_all(path.read_text())):
            found.append((f"{path.name}#{index}", document))
    return found


def test_the_manifests_cover_daemonset_rbac_and_deviceclass():
    kinds = {document["kind"] for _, document in documents()}
    expected = {"DaemonSet", "ClusterRole", "ClusterRoleBinding", "ServiceAccount", "DeviceClass"}
    assert expected <= kinds


@pytest.mark.parametrize(("name", "document"), documents(), ids=[n for n, _ in documents()])
def test_manifest_is_valid(name, document):
    version = kubernetes_validate.latest_version()
    kubernetes_validate.validate(document, version, strict=True)


def test_daemonset_runs_the_driver_with_the_kubelet_paths():
    daemonset = next(d for _, d in documents() if d["kind"] == "DaemonSet")
    container = daemonset["spec"]["template"]["spec"]["containers"][0]
    assert container["command"][:3] == ["kubedra", "driver", "example-gpu"]
    mounts = {m["mountPath"] for m in container["volumeMounts"]}
    kubelet = "/var/lib/kubelet"
    assert mounts == {f"{kubelet}/plugins_registry", f"{kubelet}/plugins", "/var/run/cdi"}
    assert {e["name"] for e in container["env"]} == {"NODE_NAME", "POD_UID"}
