"""Request rate of the simulated cluster's Kubernetes API (``kubedra serve-api``).

Run as ``python benchmarks/bench_serve_api.py [--pods N] [--nodes M]``. Serves M nodes (one
by default; the first has room for 110 pods) in-process on a free port and, over one
keep-alive HTTP connection, times GET ``/version``, POST of N pods (each answered after the
scheduler and kubelet ran) and a list of them; prints requests per second. Every request but
``/version`` first lets the nodes' kubelets report and renew their Leases when due: with
``--nodes 5000`` the rates show that this costs nothing between due times.
"""

from __future__ import annotations

import argparse
import http.client
import json
import time

from kubedra.apiserver import ApiServer
from kubedra.scheduler import new_simulation

NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "node-1"},
    "status": {"allocatable": {"cpu": "64", "memory": "256Gi", "pods": "110"}},
}


def pod(index: int) -> str:
    spec = {"containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10"}]}
    return json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{index}"},
                       "spec": spec})  # fmt: skip


def rate(conn: http.client.HTTPConnection, requests: list[tuple[str, str, str | None]]) -> float:
    start = time.perf_counter()
    for method, path, body in requests:
        headers = {"Content-Type": "application/json"} if body else {}
        conn.request(method, path, body, headers)
        response = conn.getresponse()
        response.read()
        assert response.status < 300, (method, path, response.status)
    return len(requests) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pods", type=int, default=100)
    parser.add_argument("--nodes", type=int, default=1)
    args = parser.parse_args()
    simulation = new_simulation()
    others = [
        {**NODE, "metadata": {"name": f"node-{i}"}, "status": {"allocatable": {"pods": "0"}}}
        for i in range(2, args.nodes + 1)
    ]  # full already: the pods go to node-1 whatever the count
    simulation.load([NODE, *others])
    with ApiServer(simulation) as server:
        conn = http.client.HTTPConnection("127.0.0.1", server.port)
        print(f"GET /version     {rate(conn, [('GET', '/version', None)] * 200):8.0f} req/s")
        pods = "/api/v1/namespaces/default/pods"
        creates = [("POST", pods, pod(i)) for i in range(args.pods)]
        print(f"POST pod         {rate(conn, creates):8.0f} req/s (scheduled when answered)")
        print(f"GET pods ({args.pods:>4})  {rate(conn, [('GET', pods, None)] * 20):8.0f} req/s")
        conn.close()


if __name__ == "__main__":
    main()
