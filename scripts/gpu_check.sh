#!/usr/bin/env bash
# Print the NVIDIA GPUs of this machine as ResourceSlice YAML (kubedra.drivers.nvidia), then
# check the normalised versions with a short Python assertion. Run from the repository root.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
nvidia-smi --query-gpu=name,uuid,driver_version,compute_cap,pci.bus_id,memory.total --format=csv || true
PYTHONPATH=src "$PY" -m kubedra.drivers.nvidia --node-name "${NODE_NAME:-$(hostname)}"
PYTHONPATH=src "$PY" - <<'PYEOF'
from kubedra.drivers.nvidia import discover
found = discover()
print("problems:", found.problems)
for gpu in found.gpus:
    device = gpu.to_device()
    print(device["name"], {k: next(iter(v.values())) for k, v in device["attributes"].items()})
PYEOF
