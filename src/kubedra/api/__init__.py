"""Typed resource.k8s.io/v1 and core/v1 objects, their I/O, defaulting, conversion and validation."""
