"""Driver kit: write DRA drivers (kubelet plugin, ResourceSlice publishing, CDI) in Python."""
