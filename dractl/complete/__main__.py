"""Regenerate the completion table and scripts from the Typer app.

``python -m dractl.complete --regenerate`` (``python -m dractl.cli.completers --regenerate``
runs this): rewrites dractl/complete/table.py and completions/* when the app changed.
"""

from __future__ import annotations

import sys

from dractl.cli.app import app
from dractl.cli.completers import regenerate


def main(argv: list[str]) -> int:
    if argv != ["--regenerate"]:
        print("usage: python -m dractl.cli.completers --regenerate", file=sys.stderr)
        return 2
    for p in regenerate(app):
        print(f"wrote {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
