"""Kubernetes' CEL libraries and cel-go's ext libraries; each module registers its functions."""
