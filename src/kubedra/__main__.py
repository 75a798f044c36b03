"""Allow ``python -m kubedra``."""

from kubedra.cli.main import main

main()
