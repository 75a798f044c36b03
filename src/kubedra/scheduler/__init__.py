"""The kube-scheduler's default profile over a simulated cluster (see ``scheduler.py``)."""

from kubedra.scheduler.scheduler import Decision, Scheduler, SchedulerConfig

__all__ = ["Decision", "Scheduler", "SchedulerConfig"]
