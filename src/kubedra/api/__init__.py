"""Typed resource.k8s.io/v1 and core/v1 objects: I/O, defaulting, conversion, validation."""
