"""Web page that shows the simulation as it happens."""
