"""gRPC bindings of the kubelet plugin APIs (registration, DRA v1/v1beta1, device health
v1alpha1 and v1).

The ``.proto`` files here are kubedra's own, with upstream's package names, services, messages
and field numbers, so that the method paths on the wire equal the kubelet's (for example
``/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodePrepareResources``). Upstream names every file
``api.proto``; ours have unique names so that all five can live in one descriptor pool.

The generated ``*_pb2.py``, ``*_pb2.pyi`` and ``*_pb2_grpc.py`` are committed rather than produced
at import time: generating needs ``grpcio-tools`` (a build tool of ~10 MB that a driver image
should not need) and a writable package directory. Regenerate with
``python scripts/generate_protos.py``; the ``protobuf`` and ``grpcio`` lower bounds in
pyproject.toml follow the versions the generator stamps into the files.
"""
