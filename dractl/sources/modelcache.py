"""A big snapshot's ResourceSlices kept as dractl's model, so that a later read need not decode and parse them.

A later read of a big JSON snapshot (its index cached, :mod:`dractl.sources.snapindex`) still decoded and parsed
every ResourceSlice it needed: on a 352 MiB file of 320,832 devices about 4.5 of the 9-11 s of a later `devices`.
Once a read of such a file has parsed all of its slices and the file was found valid, a child forked at the
command's end (after its output, its streams closed, at a lower priority: the command does not wait for it) writes
them to ``$XDG_CACHE_HOME/dractl/snapshots/<sha256 of the file>.slices``; a later read that needs every slice
takes them from there (about 0.7 s for those 320,832 devices). Only the kinds of ``dractl.model.objects`` and
quantities are read back from such a file (a restricted unpickler: nothing else is imported or called), and only
under the key of the index (same bytes, same dractl, same reading and validation code) and the same Python.
A cache that cannot be written or read is no cache; nothing else changes.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dractl.sources.snapindex import Indexed

#: Smaller files are decoded and parsed faster than a child is worth: none is written for them.
MIN_BYTES = 16 << 20
#: The newest slice files kept (by last use): each is about a quarter of its snapshot's size.
KEEP = 2
_MAGIC = b"dractl-slices\n"
_SUFFIX = ".slices"

#: the write asked for by this process, done by :func:`write_pending` at its end
_pending: list[tuple[str, int, list[int], list[Any]]] = []


def _proxy(d: dict[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(d)


def _empty() -> Mapping[str, Any]:
    from dractl.model.objects import EMPTY

    return EMPTY


def _header(sha: str, size: int) -> bytes:
    from dractl.sources.snapindex import _key

    return _MAGIC + f"{_key()}\0py{sys.version_info[0]}.{sys.version_info[1]}\0{sha}\0{size}\n".encode()


def _path(sha: str) -> str:
    from dractl.sources.snapindex import _dir

    return os.path.join(_dir(), sha + _SUFFIX)


def _eligible(ix: Indexed) -> bool:
    return ix.sha is not None and ix.size >= MIN_BYTES


def slices(ix: Indexed, new: list[int]) -> dict[int, Any]:
    """The slices of the entries ``new`` from the file's slice cache, if ``new`` holds every slice; else {}."""
    if not _eligible(ix):
        return {}
    every = ix.of_kind("ResourceSlice")
    if not every or len(new) < len(every) or not set(every) <= set(new):
        return {}
    assert ix.sha is not None
    got = _load(ix, ix.sha, ix.size, every)
    ix.slices_cached = got is not None  # False: none, or none this dractl can read (written again)
    return got or {}


def _load(ix: Indexed, sha: str, size: int, every: list[int]) -> dict[int, Any] | None:
    from dractl.model.convert import V1
    from dractl.sources.jsonstream import LazyRaw
    from dractl.sources.snapindex import API_VERSION, END, LISTED, START

    path = _path(sha)
    head = _header(sha, size)
    try:
        with open(path, "rb") as f:
            if f.read(len(head)) != head:
                return None
            order, objs = _unpickler()(f).load()
    except Exception:  # noqa: BLE001 - a cache file that cannot be read is no cache
        return None
    if order != every or len(objs) != len(every):
        return None
    from dractl.model.objects import ResourceSlice

    entries, extra, reread = ix.entries, ix.extra, ix.reread
    out = {}
    for i, o in zip(order, objs, strict=True):
        e = entries[i]
        if type(o) is not ResourceSlice or e[API_VERSION] != V1:
            return None
        o.raw = LazyRaw(reread, e[START], e[END], extra if e[LISTED] else None)
        out[i] = o
    with contextlib.suppress(OSError):
        os.utime(path)  # the last use: what pruning keeps
    return out


def offer(ix: Indexed, made: Mapping[int, Any]) -> None:
    """Ask for the slice cache of ``ix``'s file to be written at the end of this command, if it is worth one.

    Only when every slice of the file is in ``made``, each read from a v1 item, none was taken from the cache, and
    the file has no slice cache this dractl can read. Written only if the command ends well (:func:`write_pending`).
    """
    if not _eligible(ix) or ix.slices_cached or any(p[0] == ix.sha for p in _pending):
        return
    every = ix.of_kind("ResourceSlice")
    if not every or any(i not in made for i in every):
        return
    from dractl.model.convert import V1
    from dractl.sources.snapindex import API_VERSION

    if any(ix.entries[i][API_VERSION] != V1 for i in every):
        return
    assert ix.sha is not None
    if ix.slices_cached is None and _readable(ix.sha, ix.size):  # not tried: a first read of a file cached before
        return
    _pending.append((ix.sha, ix.size, every, [made[i] for i in every]))


def _readable(sha: str, size: int) -> bool:
    """Whether the file's slice cache is there and of this dractl (its header; its body is judged when read)."""
    head = _header(sha, size)
    try:
        with open(_path(sha), "rb") as f:
            return f.read(len(head)) == head
    except OSError:
        return False


def write_pending(beside: bool = True) -> None:
    """Write the slice caches asked for; ``beside``: in a child forked for it, this process going on at once.

    Called at the end of a command that ended well, after every verdict on the files read (a bad file is never
    cached): in a process of its own (``beside``) by a child, so that the command does not wait; called in
    process (a test, a program that runs dractl's main), here and now.
    """
    if not _pending:
        return
    work = list(_pending)
    _pending.clear()
    from dractl.forking import run_detached

    def write() -> None:
        for sha, size, every, objs in work:
            with contextlib.suppress(Exception):  # a cache that cannot be written is no cache
                save(sha, size, every, objs)

    run_detached(write, beside=beside)


def discard() -> None:
    """Forget the slice caches asked for (the command did not end well)."""
    _pending.clear()


def save(sha: str, size: int, every: list[int], objs: list[Any]) -> None:
    """Write the slice cache of the file whose bytes have ``sha`` (``objs``: its slices, entries ``every``)."""
    from dractl.paths import save_cache
    from dractl.sources.snapindex import _dir

    save_cache(_dir(), sha + _SUFFIX, [_header(sha, size), pickled((every, objs))], KEEP)


# ------------------------------------------------------------------ the pickle of model objects


def pickled(obj: Any, drop_raw: frozenset[str] | None = None) -> bytes:
    """``obj`` (model objects in lists and tuples) pickled with :func:`_reducers` (``drop_raw``: see there)."""
    import io
    import pickle

    buf = io.BytesIO()
    pickler = pickle.Pickler(buf, protocol=5)
    pickler.dispatch_table = _reducers(drop_raw)  # type: ignore[misc]
    pickler.dump(obj)
    return buf.getvalue()


def _reducers(drop_raw: frozenset[str] | None = None) -> dict[type, Any]:
    """How each dataclass of the model is pickled: made again by its constructor, from its fields in order.

    That loads much faster than pickle's default for slotted classes (an object made bare, then each slot set),
    and makes the same object. The raw dictionary of an API object of a kind in ``drop_raw`` (None: every kind)
    is not kept: it is read again from its file.
    """
    import dataclasses

    from dractl.model import objects as m
    from dractl.model.objects import EMPTY
    from dractl.quantity import Quantity

    table: dict[type, Any] = {}
    for cls in [*vars(m).values(), Quantity]:
        if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
            continue
        fs = dataclasses.fields(cls)
        if any(not f.init for f in fs):
            continue
        names = tuple(f.name for f in fs)
        if "raw" in names and (drop_raw is None or cls.__name__ in drop_raw):  # read again from the file
            def reduce(o: Any, cls: type = cls, names: tuple[str, ...] = names) -> Any:
                return cls, tuple(None if n == "raw" else getattr(o, n) for n in names)
        else:
            def reduce(o: Any, cls: type = cls, names: tuple[str, ...] = names) -> Any:
                return cls, tuple(getattr(o, n) for n in names)
        table[cls] = reduce

    def proxy(o: Any) -> Any:
        return (_empty, ()) if o is EMPTY else (_proxy, (dict(o),))

    table[MappingProxyType] = proxy
    return table


#: what a slice cache may name: the model's classes, quantities, and this module's two helpers
_ALLOWED_MODULES = frozenset({"dractl.model.objects", "dractl.quantity"})
_UNPICKLER: Any = None


def _unpickler() -> Any:
    """The Unpickler of pickle, finding only the classes a slice cache may name (nothing else is imported or called)."""
    global _UNPICKLER
    if _UNPICKLER is None:
        import pickle

        class Unpickler(pickle.Unpickler):
            def find_class(self, module: str, name: str) -> Any:
                if module in _ALLOWED_MODULES and not name.startswith("_"):
                    import importlib

                    return getattr(importlib.import_module(module), name)
                if module == __name__ and name in ("_proxy", "_empty"):
                    return globals()[name]
                if (module, name) == ("fractions", "Fraction"):
                    from fractions import Fraction

                    return Fraction
                raise pickle.UnpicklingError(f"{module}.{name} is not of dractl's model")

        _UNPICKLER = Unpickler
    return _UNPICKLER
