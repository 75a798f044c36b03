"""Drivers built on the driver kit (:mod:`kubedra.driver`): applications, not part of the kit."""
