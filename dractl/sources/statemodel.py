"""The fake cluster's state kept as dractl's model, so that a later command need not parse it again.

Every command on the fake cluster decodes its state file and parses each object into the model: for 1,000
nodes, 10,000 devices and 5,000 pods (12,007 objects) about 0.08 s to decode (from the marshal cache of
:mod:`dractl.sources.statecache`) and 0.12 s to parse, half of a ``claims --explain``. A command that parsed every
object of a state of at least ``statecache.MIN_BYTES`` leaves, as it ends (in a child forked for it, as
:mod:`dractl.sources.modelcache` does for a big snapshot's slices), ``$XDG_CACHE_HOME/dractl/state/<checksums of
its path>.model``: the model objects pickled, about 0.06-0.09 s to load. A later command on the same state file
(same device, inode, size, modification and change times; the same dractl, reading code and Python) loads that
instead. The raw API dictionaries of ResourceSlices and ResourceClaims are not kept in it: each such object's
``raw`` is read again, on first use, from the state as it was when loaded (:class:`StateRaw`); those of the other
kinds (pods and nodes feed the scheduler's filters) are. Only the kinds of ``dractl.model.objects`` and
quantities are read back (the restricted unpickler of :mod:`dractl.sources.modelcache`). A cache that cannot
be written or read is no cache; nothing else changes.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from typing import IO, Any

from dractl.sources import statecache
from dractl.sources.jsonstream import ReadAgain

#: Bump when what a cache file holds changes.
FORMAT = 1
#: The newest caches kept (by last use).
KEEP = 4
_SUFFIX = ".model"
#: the kinds whose raw dictionaries are read again when used, not kept in the cache (the biggest, and the
#: scheduler reads them from the model)
_LAZY_RAW = frozenset({"ResourceSlice", "ResourceClaim"})

#: the write asked for by this process, done by :func:`write_pending` at its end
_pending: list[tuple[str, os.stat_result, list[Any], list[int], list[tuple[str, str, str]]]] = []


class _Items:
    """The decoded items of one state file as it was when its model was loaded, decoded on first use.

    The file is read through the file object opened before its stat was taken, so a state written since (a
    rename over its path) changes nothing.
    """

    def __init__(self, path: str, st: os.stat_result, f: IO[bytes]) -> None:
        self._path = path
        self._st = st
        self._f = f
        self._items: list[Any] | None = None

    def get(self) -> list[Any]:
        if self._items is None:
            items = statecache.load(self._path, self._st)
            if items is None:
                items = self._read()
            self._items = items
        return self._items

    def _read(self) -> list[Any]:
        from dractl.errors import InputError

        try:  # an edit in place (the same inode) since it was loaded: its items may not be the model's (a rename
            # over its path changes only its change time: the unlink)
            if statecache.stamp(os.fstat(self._f.fileno()))[:4] == statecache.stamp(self._st)[:4]:
                self._f.seek(0)
                items = json.loads(self._f.read())["items"]
                if isinstance(items, list):
                    return items
        except (OSError, ValueError, TypeError, KeyError):
            pass
        raise InputError(f"{self._path}: the fake cluster's state changed while this command read it; run it again")


class StateRaw(ReadAgain):
    """An object's API dictionary, the item it was parsed from, taken from its state when first used."""

    __slots__ = ("_items", "_i")

    def __init__(self, items: _Items, i: int) -> None:
        self._items = items
        self._i = i

    def _get(self) -> dict[str, Any]:
        doc: dict[str, Any] = self._items.get()[self._i]
        return doc

    def __repr__(self) -> str:
        return f"StateRaw(item {self._i})"


def load(path: str, st: os.stat_result, f: IO[bytes]) -> tuple[list[Any], list[tuple[str, str, str]]] | None:
    """Every model object of the state file at ``path``, and the items its read skipped; None: no model.

    ``st`` is the file's stat now, ``f`` the file, open (the raw dictionaries not in the model are read through
    it, :class:`StateRaw`). The skipped items are what ``_state_objects`` notes (kinds dractl does not use).
    None where there is no model this dractl can use.
    """
    if st.st_size < statecache.MIN_BYTES:
        return None
    import io

    from dractl.sources.modelcache import _unpickler

    try:
        got = statecache.read_framed(path, _SUFFIX, _header(path, st))
        if got is None:
            return None
        cache, body = got
        order, objs, skipped = _unpickler()(io.BytesIO(body)).load()
        if not (isinstance(order, list) and isinstance(objs, list) and len(order) == len(objs)
                and isinstance(skipped, list)):
            return None
        items = _Items(path, st, f)
        for i, o in zip(order, objs, strict=True):
            if type(o).__name__ in _LAZY_RAW and getattr(o, "raw", ()) is None:
                o.raw = StateRaw(items, i)
        skipped = [(str(a), str(b), str(c)) for a, b, c in skipped]
    except Exception:  # noqa: BLE001 - a cache file that cannot be read is no cache
        return None
    with contextlib.suppress(OSError):
        os.utime(cache)  # the last use: what pruning keeps
    return objs, skipped


def offer(path: str, st: os.stat_result, items: list[Any], objs: list[Any], order: list[int],
          skipped: list[tuple[str, str, str]]) -> None:
    """Ask for the model of the state file at ``path`` to be written at the end of this command.

    ``objs``: every object of the state's ``items``, parsed, ``order``: the index of each one's item. Written
    only if the command ends well and the file is still the one read (:func:`write_pending`); not at all if
    an object whose raw dictionary is read again has another than its item (one converted from an older
    apiVersion).
    """
    if st.st_size < statecache.MIN_BYTES or _pending:
        return
    for o, i in zip(objs, order, strict=True):
        if type(o).__name__ in _LAZY_RAW and o.raw is not items[i]:
            return
    _pending.append((path, st, objs, order, skipped))


def write_pending(beside: bool = True) -> None:
    """Write the model asked for; ``beside``: in a child forked for it, this process going on at once."""
    if not _pending:
        return
    work = list(_pending)
    _pending.clear()
    from dractl.forking import run_detached

    def write() -> None:
        for args in work:
            with contextlib.suppress(Exception):  # a cache that cannot be written is no cache
                save(*args)

    run_detached(write, beside=beside)


def discard() -> None:
    """Forget the model asked for (the command did not end well)."""
    _pending.clear()


def save(path: str, st: os.stat_result, objs: list[Any], order: list[int],
         skipped: list[tuple[str, str, str]]) -> None:
    """Write the model of the state file at ``path`` whose stat was ``st``, if that file is still there."""
    from dractl.sources.modelcache import pickled

    try:
        if statecache.stamp(os.stat(path)) != statecache.stamp(st):
            return  # written since (this command wrote it, or another): that model is of no later read
    except OSError:
        return
    body = pickled((order, objs, [list(s) for s in skipped]), _LAZY_RAW)
    statecache.write_framed(path, _SUFFIX, _header(path, st), [body], KEEP)


def _header(path: str, st: os.stat_result) -> tuple[Any, ...]:
    from dractl.sources.snapindex import _key

    return (FORMAT, sys.hexversion, _key(), os.path.abspath(path), statecache.stamp(st))
