"""Regenerate the committed gRPC bindings of the kubelet APIs from kubedra's own .proto files.

Run from the repository root with the dev tools installed:
``python scripts/generate_protos.py``. The generated ``*_pb2.py`` / ``*_pb2_grpc.py`` files land
next to the ``.proto`` files in ``src/kubedra/driver/proto``. Afterwards check that the
``protobuf`` lower bound in pyproject.toml is not below the gencode version printed here.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
PROTO_DIR = SRC / "kubedra" / "driver" / "proto"


def main() -> int:
    protos = sorted(PROTO_DIR.glob("*.proto"))
    include = Path(protoc.__file__).parent / "_proto"
    for proto in protos:
        args = [
            "protoc",
            f"-I{SRC}",
            f"-I{include}",
            f"--python_out={SRC}",
            f"--pyi_out={SRC}",
            f"--grpc_python_out={SRC}",
            str(proto.relative_to(SRC)),
        ]
        if protoc.main(args) != 0:
            print(f"protoc failed on {proto}", file=sys.stderr)
            return 1
    versions = set()
    for generated in PROTO_DIR.glob("*_pb2.py"):
        match = re.search(r"Protobuf Python Version: (\S+)", generated.read_text())
        if match:
            versions.add(match.group(1))
    print(f"generated {len(protos)} protos; protobuf gencode version: {', '.join(sorted(versions))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
