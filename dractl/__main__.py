"""Run the dractl CLI: ``python -m dractl``."""

from dractl.cli.main import main

main()
