"""The fake cluster's decoded state, cached in marshal's format: the same items, read back in two thirds the time.

Every command on the fake cluster decodes its whole state file (``cluster.json``): 13 MB for 1,000 nodes and
5,000 pods, about 0.09 s of ``json.loads``. marshal reads the same lists, dictionaries and strings back in about
0.06 s. The first read of a state of at least MIN_BYTES leaves ``$XDG_CACHE_HOME/dractl/state/<checksums of its
path>.marshal``; a later read uses it while the state file is the same one: same device, inode, size,
modification and change times (every write of the fake cluster renames a new file over the old one, and an edit
in place changes the times). The cache holds exactly what ``json.loads`` gave, so the model made from it is the
same. One written by another Python (marshal's format may change) is not used; a cache that cannot be read or
written is no cache, and nothing else changes.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
from typing import Any

from dractl.paths import save_cache

#: Bump when what a cache file holds changes.
FORMAT = 1
#: Smaller states decode in a few milliseconds: none is cached for them.
MIN_BYTES = 1 << 20
#: The newest caches kept (by last use).
KEEP = 4
_LEN = 4  # bytes of the header's length
_SUFFIX = ".marshal"


def stamp(st: os.stat_result) -> tuple[int, ...]:
    """What says a state file is the one a cache was made from."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def load(path: str, st: os.stat_result) -> list[Any] | None:
    """The items cached for the state file at ``path`` (``st``: its stat now), or None."""
    if st.st_size < MIN_BYTES:
        return None
    try:
        got = read_framed(path, _SUFFIX, _header(path, st))
        if got is None:
            return None
        cache, body = got
        items = marshal.loads(body)
    except (OSError, ValueError, EOFError, TypeError):
        return None
    if not isinstance(items, list):
        return None
    with contextlib.suppress(OSError):
        os.utime(cache)  # the last use: what pruning keeps
    return items


def save(path: str, st: os.stat_result, items: list[Any]) -> None:
    """Cache ``items``, decoded from the state file at ``path`` whose stat was ``st``; nothing where that fails."""
    if st.st_size < MIN_BYTES:
        return
    try:
        payload = marshal.dumps(items)
    except ValueError:  # an object marshal cannot write (none that JSON gives)
        return
    write_framed(path, _SUFFIX, _header(path, st), [payload], KEEP)


def read_framed(path: str, suffix: str, header: tuple[Any, ...]) -> tuple[str, memoryview] | None:
    """(its path, its body) of the cache file named ``suffix`` kept for the state at ``path``, or None.

    None where its header is not ``header``; a file that cannot be read raises (OSError, ValueError, EOFError,
    TypeError).
    """
    cache = os.path.join(_dir(), _name(path, suffix))
    with open(cache, "rb") as f:
        data = f.read()
    n = int.from_bytes(data[:_LEN], "big")
    if marshal.loads(data[_LEN:_LEN + n]) != header:
        return None
    return cache, memoryview(data)[_LEN + n:]


def write_framed(path: str, suffix: str, header: tuple[Any, ...], body: list[bytes], keep: int) -> None:
    """Write the cache file named ``suffix`` for the state at ``path``: ``header`` (marshal), then ``body``.

    The ``keep`` such files used last are kept; nothing is written where that fails.
    """
    head = marshal.dumps(header)
    save_cache(_dir(), _name(path, suffix), [len(head).to_bytes(_LEN, "big"), head, *body], keep)


def _header(path: str, st: os.stat_result) -> tuple[Any, ...]:
    return (FORMAT, sys.hexversion, marshal.version, os.path.abspath(path), stamp(st))


def _name(path: str, suffix: str) -> str:
    import zlib  # hashlib's import costs 2 ms; a clash of two paths only costs a cache (the header holds the path)

    b = os.path.abspath(path).encode("utf-8", "surrogateescape")
    return f"{zlib.crc32(b):08x}{zlib.adler32(b):08x}{suffix}"


def _dir() -> str:
    from dractl.paths import cache_dir

    return os.path.join(cache_dir(), "state")
