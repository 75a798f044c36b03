"""gRPC fuzzing of a running ``kubedra driver example-gpu`` over its real socket.

Random and mutated NodePrepareResources / NodeUnprepareResources requests (v1 and v1beta1):
valid claims, conflicting claims, hostile namespaces, names and UIDs (traversal, absolute paths,
NUL bytes, huge strings, non-ASCII), duplicates, empty batches, plus requests whose serialized
bytes are mutated. The server must never crash, never log a traceback, answer every claim UID
of a well-formed request (and no other), and never write outside its directories.

CI runs a small budget with a fixed seed. A large run:
``KUBEDRA_GRPC_FUZZ_CALLS=10000 python -m pytest tests/driver/test_driver_fuzz.py -q -s``
(``KUBEDRA_GRPC_FUZZ_SEED`` picks another seed); the test prints the counts.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import message_factory

from conftest import DRA, build_claim
from kubedra.driver.store_dir import ClusterDirectory

CALLS = int(os.environ.get("KUBEDRA_GRPC_FUZZ_CALLS", "300"))
SEED = int(os.environ.get("KUBEDRA_GRPC_FUZZ_SEED", "20261201"))
CLAIMS = 24
HOSTILE = [
    "",
    ".",
    "..",
    "../..",
    "../../../../etc",
    "/etc",
    "/tmp/x",
    "a/b",
    "default/../../x",
    "\x00",
    "uid\x00x",
    "x" * 300,
    "y" * 20000,
    "Default",
    "ünï-cødé",
    "a\nb",
    " ",
    "-lead",
    "trail-",
    "c:\\windows",
    "%2e%2e",
    "😀",
]


@dataclass
class Tally:
    calls: Counter[str] = field(default_factory=Counter)
    claim_errors: int = 0
    claims_prepared: int = 0
    grpc_errors: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)


def _seed_cluster(cluster: ClusterDirectory) -> list[tuple[str, str, str]]:
    refs = []
    for index in range(CLAIMS):
        name, uid = f"c{index}", f"uid-{index}"
        devices = [("gpu", f"gpu-{index % 4}")]
        if index % 5 == 0:
            devices.append(("gpu", f"gpu-{(index + 1) % 4}"))
        config = None
        if index % 7 == 0:
            config = [
                {
                    "source": "FromClaim",
                    "requests": [],
                    "opaque": {
                        "driver": "gpu.example.com",
                        "parameters": {"apiVersion": "gpu.resource.example.com/v1alpha1"}
                        if index % 2
                        else {"kind": "Wrong"},
                    },
                }
            ]
        claim = build_claim(name, uid, devices, config=config)
        if index % 6 == 0:
            claim["status"]["allocation"]["devices"]["results"][0]["shareID"] = f"share-{index}"
        if index % 11 == 0:
            claim["status"]["allocation"]["devices"]["results"][0]["device"] = "gpu-99"
        cluster.put(claim)
        refs.append(("default", name, uid))
    return refs


def _mutate(text: str, rng: random.Random) -> str:
    choice = rng.randrange(4)
    if choice == 0 or not text:
        return text + rng.choice(["/..", "\x00", "/", ".", "A", "-"])
    position = rng.randrange(len(text))
    if choice == 1:
        return text[:position] + text[position + 1 :]
    if choice == 2:
        return text[:position] + rng.choice(HOSTILE) + text[position:]
    return text[:position] + chr(rng.randrange(1, 0x800)) + text[position + 1 :]


def _claim(refs: list[tuple[str, str, str]], rng: random.Random) -> tuple[str, str, str]:
    namespace, name, uid = rng.choice(refs)
    roll = rng.random()
    if roll < 0.45:
        return namespace, name, uid
    parts = [namespace, name, uid]
    slot = rng.randrange(3)
    parts[slot] = rng.choice(HOSTILE) if roll < 0.75 else _mutate(parts[slot], rng)
    return parts[0], parts[1], parts[2]


class FuzzClient:
    """One channel to the DRA socket, messages from the independently compiled protos."""

    def __init__(self, pool: Any, socket: Path) -> None:
        self.pool = pool
        self.channel = grpc.insecure_channel(f"unix:{socket}")

    def cls(self, name: str) -> Any:
        return message_factory.GetMessageClass(self.pool.FindMessageTypeByName(name))

    def call(self, version: str, method: str, payload: bytes) -> Any:
        package = f"k8s.io.kubelet.pkg.apis.dra.{version}"
        kind = "Prepare" if method == "NodePrepareResources" else "Unprepare"
        response_cls = self.cls(f"{package}.Node{kind}ResourcesResponse")
        call = self.channel.unary_unary(
            DRA[version] + method,
            request_serializer=lambda raw: raw,
            response_deserializer=response_cls.FromString,
        )
        return call(payload, timeout=30)

    def request(self, version: str, method: str, claims: list[tuple[str, str, str]]) -> bytes:
        package = f"k8s.io.kubelet.pkg.apis.dra.{version}"
        kind = "Prepare" if method == "NodePrepareResources" else "Unprepare"
        claim_cls = self.cls(f"{package}.Claim")
        request = self.cls(f"{package}.Node{kind}ResourcesRequest")(
            claims=[claim_cls(namespace=ns, name=name, uid=uid) for ns, name, uid in claims]
        )
        data: bytes = request.SerializeToString()
        return data


def _flip(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return bytes([rng.randrange(256)])
    raw = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        raw[rng.randrange(len(raw))] = rng.randrange(256)
    return bytes(raw)


def run_fuzz(client: FuzzClient, refs: list[tuple[str, str, str]], calls: int, seed: int) -> Tally:
    rng = random.Random(seed)
    tally = Tally()
    for _ in range(calls):
        version = rng.choice(["v1", "v1", "v1beta1"])
        method = rng.choice(["NodePrepareResources", "NodeUnprepareResources"])
        claims = [_claim(refs, rng) for _ in range(rng.choice([0, 1, 1, 2, 3, 5, 8]))]
        payload = client.request(version, method, claims)
        mutated = rng.random() < 0.1
        if mutated:
            payload = _flip(payload, rng)
        tally.calls[f"{method}/{version}{' (mutated bytes)' if mutated else ''}"] += 1
        try:
            response = client.call(version, method, payload)
        except grpc.RpcError as error:
            code = error.code()
            tally.grpc_errors[str(code)] += 1
            if not mutated or code in (grpc.StatusCode.UNKNOWN, grpc.StatusCode.UNAVAILABLE):
                tally.problems.append(f"{method} {claims!r}: {code} {error.details()}")
            continue
        if mutated:
            continue  # a mutated request may still parse into other claims
        asked = {uid for _, _, uid in claims}
        answered = set(response.claims.keys())
        if asked != answered:
            tally.problems.append(f"{method} {claims!r}: answered {sorted(answered)}")
        for entry in response.claims.values():
            if entry.error:
                tally.claim_errors += 1
            elif method == "NodePrepareResources":
                tally.claims_prepared += 1
    return tally


def test_grpc_fuzz_never_crashes_and_answers_per_claim(
    drivers, driver_dirs, proto_pool, kubelet_client
):
    refs = _seed_cluster(ClusterDirectory(driver_dirs.cluster))
    process = drivers.start()
    client = FuzzClient(proto_pool, driver_dirs.dra_socket)
    try:
        tally = run_fuzz(client, refs, CALLS, SEED)
    finally:
        client.channel.close()
    assert process.poll() is None, "the driver died"
    assert kubelet_client.get_info(driver_dirs.registration_socket).name == "gpu.example.com"
    log = (driver_dirs.root / "driver-0.log").read_text()
    tracebacks = log.count("Traceback")
    print(
        f"\ngRPC fuzz: {sum(tally.calls.values())} calls (seed {SEED}) {dict(tally.calls)}; "
        f"claims prepared {tally.claims_prepared}, per-claim errors {tally.claim_errors}, "
        f"gRPC errors {dict(tally.grpc_errors)}, tracebacks {tracebacks}, "
        f"problems {len(tally.problems)}"
    )
    assert tally.problems == []
    assert tracebacks == 0, log
    assert tally.claims_prepared > 0 and tally.claim_errors > 0
    # Nothing was written outside the driver's directories.
    assert {p.name for p in driver_dirs.root.iterdir()} <= {
        "reg",
        "plugins",
        "cdi",
        "cluster",
        "driver-0.log",
    }
    for spec in driver_dirs.cdi.iterdir():
        assert spec.name.startswith("k8s.gpu.example.com-gpu_uid-"), spec.name


def test_the_fuzz_harness_reaches_the_hostile_inputs():
    """The generator really produces traversal, NUL and huge inputs (not only valid claims)."""
    rng = random.Random(SEED)
    refs = [("default", "c0", "uid-0")]
    drawn = [_claim(refs, rng) for _ in range(400)]
    flat = [part for claim in drawn for part in claim]
    assert any(".." in part for part in flat)
    assert any("\x00" in part for part in flat)
    assert any(len(part) > 10000 for part in flat)
    assert sum(claim == refs[0] for claim in drawn) > 100
