"""``python -m dractl.complete --regenerate``: rewrite dractl/complete/table.py and completions/* from the app."""

from __future__ import annotations

import sys

from dractl.cli.app import app
from dractl.complete.generate import regenerate


def main(argv: list[str]) -> int:
    """Regenerate the completion table and scripts; print each file written."""
    if argv != ["--regenerate"]:
        print("usage: python -m dractl.complete --regenerate", file=sys.stderr)
        return 2
    for p in regenerate(app):
        print(f"wrote {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
