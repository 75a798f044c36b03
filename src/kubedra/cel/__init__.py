"""CEL for DRA device selectors: parser, type checker, compiler to closures, Kubernetes libraries."""
