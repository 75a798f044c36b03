"""Cluster state, controllers, scheduler and simulation."""
