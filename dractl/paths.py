"""Where dractl keeps files: the XDG base directories, and the writing of its caches (no heavy imports)."""

from __future__ import annotations

import os
from collections.abc import Iterable


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


def save_cache(d: str, name: str, parts: Iterable[bytes], keep: int) -> None:
    """Write ``parts`` as the file ``name`` of the cache folder ``d``, atomically; silently nothing where that fails.

    Then only the ``keep`` files of ``d`` with ``name``'s suffix used last are kept, and what writes that died
    left behind (``.tmp``) is removed.
    """
    import contextlib
    import tempfile

    tmp = None
    try:
        os.makedirs(d, mode=0o700, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            for part in parts:
                f.write(part)
        os.replace(tmp, os.path.join(d, name))
        tmp = None
        _prune(d, os.path.splitext(name)[1], keep)
    except OSError:
        pass
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _prune(d: str, suffix: str, keep: int) -> None:
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
