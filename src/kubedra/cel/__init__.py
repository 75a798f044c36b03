"""CEL for DRA device selectors: parser, type checker, compiler to closures, K8s libraries."""
