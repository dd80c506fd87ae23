"""The command line: thin Typer commands that read options, call the core and hand results to the printers."""
