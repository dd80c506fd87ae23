"""Where dractl keeps files: the XDG base directories, and the pruning of its caches (no heavy imports)."""

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


#: seconds after which a cache's unfinished write (of a process that died) is litter
STALE_TMP = 3600


def prune_cache(d: str, suffix: str, keep: int) -> None:
    """Keep the ``keep`` files of folder ``d`` ending in ``suffix`` used last; remove writes that died (``.tmp``)."""
    import contextlib
    import time

    kept: list[tuple[float, str]] = []
    now = time.time()
    for de in os.scandir(d):
        with contextlib.suppress(OSError):
            mtime = de.stat().st_mtime
            if de.name.endswith(suffix):
                kept.append((mtime, de.path))
            elif de.name.endswith(".tmp") and now - mtime > STALE_TMP:
                os.unlink(de.path)
    kept.sort(reverse=True)
    for _, path in kept[keep:]:
        with contextlib.suppress(OSError):
            os.unlink(path)
