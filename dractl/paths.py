"""Where dractl keeps files: the XDG base directories (no heavy imports)."""

from __future__ import annotations

import os


def _xdg(var: str, *default: str) -> str:
    return os.environ.get(var) or os.path.join(os.path.expanduser("~"), *default)


def cache_dir() -> str:
    """``$XDG_CACHE_HOME/dractl`` (``~/.cache/dractl``): things dractl can rebuild."""
    return os.path.join(_xdg("XDG_CACHE_HOME", ".cache"), "dractl")


def state_dir() -> str:
    """``$XDG_STATE_HOME/dractl`` (``~/.local/state/dractl``): the fake cluster's default home."""
    return os.path.join(_xdg("XDG_STATE_HOME", ".local", "state"), "dractl")
