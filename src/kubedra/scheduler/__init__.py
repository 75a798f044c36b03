"""The kube-scheduler's default profile over a simulated cluster (see ``scheduler.py``)."""

from kubedra.scheduler.factory import new_simulation, scheduler_factory
from kubedra.scheduler.scheduler import Decision, Scheduler, SchedulerConfig

__all__ = ["Decision", "Scheduler", "SchedulerConfig", "new_simulation", "scheduler_factory"]
