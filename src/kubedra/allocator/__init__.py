"""The structured allocator: picks devices for claims exactly as the kube-scheduler does."""
