"""kubedra: Kubernetes Dynamic Resource Allocation (DRA) reproduced in Python."""

__version__ = "0.1.0"
