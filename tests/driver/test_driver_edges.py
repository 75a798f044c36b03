"""Edge cases: socket path limits, unreadable checkpoints, claims that cannot be prepared."""

from __future__ import annotations

import pytest

from conftest import build_claim
from kubedra.driver.checkpoint import Checkpoint, CheckpointError
from kubedra.driver.claims import ClaimLookupError, lookup_claim
from kubedra.driver.helper import PluginHelper
from kubedra.driver.server import PluginPaths, PluginServer
from kubedra.driver.store_dir import ClusterDirectory
from kubedra.driver.types import ClaimRef
from kubedra.drivers.example_gpu import ExampleGpuDriver


def test_too_long_socket_paths_are_refused_with_the_reason(tmp_path):
    deep = tmp_path / ("d" * 120)
    paths = PluginPaths.for_driver("gpu.example.com", deep, deep)
    helper = PluginHelper(
        ExampleGpuDriver("n", tmp_path), "gpu.example.com", ClusterDirectory(tmp_path), deep
    )
    with pytest.raises(ValueError, match="Unix sockets allow at most 107"):
        PluginServer(helper, paths).start()


def test_unreadable_or_foreign_checkpoints_are_errors(tmp_path):
    path = tmp_path / "checkpoint.json"
    path.write_text("{")
    with pytest.raises(CheckpointError, match="unreadable checkpoint"):
        Checkpoint(path).load()
    path.write_text('{"version": "other/v9", "checksum": "", "claims": {}}')
    with pytest.raises(CheckpointError, match="unsupported version 'other/v9'"):
        Checkpoint(path).load()
    assert Checkpoint(tmp_path / "absent.json").load() == {}


def test_unallocated_claims_are_not_prepared(tmp_path):
    cluster = ClusterDirectory(tmp_path)
    claim = build_claim("c", "uid-c", [("gpu", "gpu-0")])
    del claim["status"]
    cluster.put(claim)
    with pytest.raises(ClaimLookupError, match="claim default/c not allocated"):
        lookup_claim(cluster, ClaimRef("default", "c", "uid-c"), "gpu.example.com")


def test_unknown_config_sources_are_claim_errors(tmp_path):
    cluster = ClusterDirectory(tmp_path)
    config = [{"source": "FromSomewhere", "opaque": {"driver": "gpu.example.com"}}]
    cluster.put(build_claim("c", "uid-c", [("gpu", "gpu-0")], config=config))
    with pytest.raises(ClaimLookupError, match=r"config\[0\]\.source: unsupported value"):
        lookup_claim(cluster, ClaimRef("default", "c", "uid-c"), "gpu.example.com")
