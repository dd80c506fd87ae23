"""The index of a JSON snapshot that validated, cached by the file's content.

Validating a big snapshot costs far more than reading it (a 352 MiB ``kubectl get -o json`` of 5,000 nodes: 5 s
only to decode it), and a user asks many questions of one unchanged file. The first read of a file validates
every object, as always, and leaves an index in ``$XDG_CACHE_HOME/dractl/snapshots/<sha256 of the file>.json``:
every item's kind, apiVersion, byte range, namespace and name, and what scoped reads choose by (a slice's
driver, pool and node, the pools a claim's allocation names, a pod's node), with the warning that read gave.
A later read of the same bytes (same sha256, same dractl, same validation code) skips validation and decodes
only the items it needs, each from its own bytes. Another file, or one changed by a byte, has another sha256: it
is validated again. The sha256 is remembered by the file's stat (``<checksums of its path>.digest`` beside the
indexes, see :func:`file_digest`), so that a later read of the same file need not hash it. A cache that cannot be
written is no cache; nothing else changes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterable
from dataclasses import replace
from io import BufferedIOBase
from typing import Any, overload

from dractl.paths import save_cache
from dractl.sources.jsonstream import LazyRaw, Reread

#: Bump when the index's layout or what it records changes.
FORMAT = 2
#: Smaller files are read faster than their index: none is written for them.
MIN_BYTES = 256 * 1024
#: The newest indexes kept (by last use).
KEEP = 8
_WINDOW = 4 << 20  # bytes hashed at a time

#: An entry: one item of the file, where it lies and what reads choose it by, as a list (an index holds tens of
#: thousands; lists are what JSON gives back, at no further cost): ``[kind, apiVersion, start byte, end byte,
#: listed (1: its kind and apiVersion are its list's), namespace, name, ...]``, then for a ResourceSlice
#: ``nodeName, driver, pool, generation, resourceSliceCount, flags``, for a Pod its ``nodeName``, for a
#: ResourceClaim the pools (``driver/pool``) of its allocation's results and of its status.devices.
Entry = list[Any]
KIND, API_VERSION, START, END, LISTED, NAMESPACE, NAME = range(7)
NODE = 7  # a slice's spec.nodeName; a pod's
DRIVER, POOL, GENERATION, COUNT, FLAGS = range(8, 13)  # a slice's
POOLS = 7  # a claim's
# a slice's flags
ALL_NODES, NODE_SELECTOR, PER_DEVICE = 1, 2, 4


def entry_of(obj: dict[str, Any], start: int, end: int, listed: bool) -> Entry:
    """The entry of an item (``obj``: the item with its list's kind and apiVersion) that parsed."""
    md = _d(obj.get("metadata"))
    kind = obj["kind"]
    e = [kind, obj["apiVersion"], start, end, int(listed), _s(md.get("namespace")), _s(md.get("name"))]
    spec = _d(obj.get("spec"))
    if kind == "ResourceSlice":  # the same fields in every version of resource.k8s.io
        pool = _d(spec.get("pool"))
        flags = ((ALL_NODES if spec.get("allNodes") else 0) | (NODE_SELECTOR if spec.get("nodeSelector") else 0)
                 | (PER_DEVICE if spec.get("perDeviceNodeSelection") else 0))
        e += [_s(spec.get("nodeName")), _s(spec.get("driver")), _s(pool.get("name")), _i(pool.get("generation")),
              _i(pool.get("resourceSliceCount")), flags]
    elif kind == "ResourceClaim":
        status = _d(obj.get("status"))
        results = _d(_d(status.get("allocation")).get("devices")).get("results")
        pools: dict[str, None] = {}
        for r in [*_l(results), *_l(status.get("devices"))]:
            r = _d(r)
            pools[pool_key(_s(r.get("driver")), _s(r.get("pool")))] = None
        e.append(list(pools))
    elif kind == "Pod":
        e.append(_s(spec.get("nodeName")))
    return e


def duplicate(keys: Iterable[tuple[str, str, str]]) -> str | None:
    """``Kind ns/name`` of the first (kind, namespace, name) of ``keys`` seen twice; None if there is none.

    No cluster holds two such objects: a snapshot with one twice is bad input. Events are let be (``kubectl get
    events,events.events.k8s.io`` lists each twice), and so are objects without a name.
    """
    seen: set[tuple[str, str, str]] = set()
    for key in keys:
        kind, ns, name = key
        if not name or kind == "Event":
            continue
        if key in seen:
            from dractl.model.parse import kind_label

            return kind_label(kind, ns, name)
        seen.add(key)
    return None


def pool_key(driver: str, pool: str) -> str:
    """``driver/pool``: a pool in one string (a driver's name has no slash)."""
    return f"{driver}/{pool}"


def _d(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _s(v: Any) -> str:
    return v if isinstance(v, str) else ""


def _i(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


class Indexed:
    """The items of a JSON document that validated, each read from its own bytes when it is asked for."""

    def __init__(self, reread: Reread, entries: list[Entry], extra: dict[str, Any] | None,
                 skipped: list[tuple[str, str, str]]) -> None:
        self.reread = reread
        self.entries = entries
        self.extra = extra  # the kind and apiVersion of an item that took them from its list
        #: (label, kind, why) of every item of a kind dractl does not use (the read's warning)
        self.skipped = skipped
        #: the first object the file holds twice (``duplicate``), once worked out (a cached index has it)
        self._duplicate: tuple[str | None] | None = None
        #: the sha256 and size of the file (None: not one whose index is cached, e.g. stdin or a small file)
        self.sha: str | None = None
        self.size = 0
        #: whether its slices were taken from its slice cache (dractl.sources.modelcache); None: not tried
        self.slices_cached: bool | None = None
        self._of_kind: dict[str, list[int]] = {}

    def duplicate(self) -> str | None:
        """``Kind ns/name`` of the first object the file holds twice, or None."""
        if self._duplicate is None:
            self._duplicate = (duplicate((e[KIND], e[NAMESPACE], e[NAME]) for e in self.entries),)
        return self._duplicate[0]

    def of_kind(self, kind: str) -> list[int]:
        """The entries of ``kind``, in the file's order."""
        got = self._of_kind.get(kind)
        if got is None:
            got = self._of_kind[kind] = [i for i, e in enumerate(self.entries) if e[KIND] == kind]
        return got

    def objects(self, picks: Iterable[int], lazy: frozenset[str], have: dict[int, Any] | None = None) -> list[Any]:
        """The model objects of the entries ``picks`` (in that order), unvalidated; ``have``: those made already.

        Objects of the ``lazy`` kinds keep their bytes' place, not their dictionary (LazyRaw).
        """
        from dractl.model.convert import V1
        from dractl.model.parse import parse_object

        out = []
        entries, reread, extra = self.entries, self.reread, self.extra
        for i in picks:
            if have is not None and i in have:
                out.append(have[i])
                continue
            e = entries[i]
            doc = json.loads(reread.read(e[START], e[END]))
            x = extra if e[LISTED] else None
            o = parse_object({**x, **doc} if x else doc, validate=False)
            if e[KIND] in lazy and e[API_VERSION] == V1:
                o = replace(o, raw=LazyRaw(reread, e[START], e[END], x))
            out.append(o)
        return out


def digest(f: BufferedIOBase, mapped_only: bool = False) -> str | None:
    """The sha256 of the file ``f`` (left at its start).

    ``mapped_only``: None if it does not map (``f``'s position is then never used: a forked child hashes the file
    its parent reads).
    """
    import mmap

    h = hashlib.sha256()
    try:  # mapped a window at a time: no copy of the bytes, and no more of them in memory
        size = os.fstat(f.fileno()).st_size
        for at in range(0, size, _WINDOW):
            with mmap.mmap(f.fileno(), min(_WINDOW, size - at), offset=at, access=mmap.ACCESS_READ) as m:
                h.update(m)
    except (OSError, ValueError):  # not a file that maps
        if mapped_only:
            return None
        f.seek(0)
        h = hashlib.file_digest(f, "sha256")
        f.seek(0)
    return h.hexdigest()


#: A file modified this close to its hashing (or later) may change again unseen where timestamps are coarse (FAT
#: keeps 2 s): its digest is not remembered by its stat (git's "racy clean" entries, for the same reason).
RACY_NS = 3_000_000_000
#: The digests remembered by file (by last use).
KEEP_DIGESTS = 32


def known_digest(f: BufferedIOBase, path: str) -> str | None:
    """The digest of the file ``f`` at ``path`` remembered by its stat (see :func:`file_digest`); None if none is."""
    st = os.fstat(f.fileno())
    stamp = _stamp(st)
    where = os.path.join(_dir(), _digest_name(path))
    try:
        with open(where, "rb") as g:
            doc = json.loads(g.read())
        if (type(doc) is dict and doc.get("format") == FORMAT and doc.get("path") == os.path.abspath(path)
                and doc.get("stamp") == stamp and isinstance(doc.get("sha256"), str)
                and type(doc.get("hashed_at")) is int and st.st_mtime_ns < doc["hashed_at"] - RACY_NS):
            with contextlib.suppress(OSError):
                os.utime(where)  # the last use: what pruning keeps
            return doc["sha256"]
    except (OSError, ValueError):
        pass
    return None


@overload
def file_digest(f: BufferedIOBase, path: str) -> str: ...
@overload
def file_digest(f: BufferedIOBase, path: str, mapped_only: bool) -> str | None: ...
def file_digest(f: BufferedIOBase, path: str, mapped_only: bool = False) -> str | None:
    """:func:`digest` of the file ``f`` at ``path``, remembered by its stat so that a later read need not hash it.

    A later read of the same file (same device, inode, size, modification and change times: any write changes
    them, and a file renamed over it has another inode) takes the digest remembered (:func:`known_digest`),
    unless the file was modified less than RACY_NS before it was hashed. Hashing 352 MiB costs about 0.26 s, half
    of a later ``devices --node N`` of such a file. ``mapped_only``: see :func:`digest`.
    """
    known = known_digest(f, path)
    if known is not None:
        return known
    import time

    st = os.fstat(f.fileno())
    hashed_at = time.time_ns()
    sha = digest(f, mapped_only)
    if sha is not None and st.st_mtime_ns < hashed_at - RACY_NS:
        doc = {"format": FORMAT, "path": os.path.abspath(path), "stamp": _stamp(st), "sha256": sha,
               "hashed_at": hashed_at}
        save_cache(_dir(), _digest_name(path), [json.dumps(doc).encode()], KEEP_DIGESTS)
    return sha


def _stamp(st: os.stat_result) -> list[int]:
    """What a remembered digest is kept under: the file's device, inode, size, modification and change times."""
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def _digest_name(path: str) -> str:
    import zlib  # hashlib's import is paid already; a clash of two paths only costs a hash (the file holds its path)

    b = os.path.abspath(path).encode("utf-8", "surrogateescape")
    return f"{zlib.crc32(b):08x}{zlib.adler32(b):08x}.digest"


def load(sha: str, size: int, reread: Reread) -> Indexed | None:
    """The cached index of the file whose bytes have ``sha``; None if there is none this dractl can use."""
    path = os.path.join(_dir(), sha + ".json")
    try:
        with open(path, "rb") as f:
            doc = json.load(f)
        if not (isinstance(doc, dict) and doc.get("format") == FORMAT and doc.get("key") == _key()
                and doc.get("sha256") == sha and doc.get("size") == size):
            return None
        entries = doc["entries"]
        extra = doc["extra"]
        if not (isinstance(entries, list) and all(isinstance(e, list) and len(e) > NAME for e in entries)):
            return None
        skipped = [(str(a), str(b), str(c)) for a, b, c in doc["skipped"]]
        twice = doc["duplicate"]
        if not (twice is None or isinstance(twice, str)):
            return None
    except (OSError, ValueError, TypeError, KeyError, IndexError):
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # the last use: what pruning keeps
    ix = Indexed(reread, entries, extra if isinstance(extra, dict) else None, skipped)
    ix._duplicate = (twice,)
    ix.sha, ix.size = sha, size
    return ix


def save(sha: str, size: int, ix: Indexed) -> None:
    """Write the index of the file whose bytes have ``sha``, atomically; silently nothing where that fails."""
    doc = {"format": FORMAT, "key": _key(), "sha256": sha, "size": size, "extra": ix.extra,
           "skipped": [list(s) for s in ix.skipped], "duplicate": ix.duplicate(), "entries": ix.entries}
    # json.dump encodes in Python: 4x slower; the C encoder's text is ASCII (ensure_ascii)
    save_cache(_dir(), sha + ".json", [json.dumps(doc, separators=(",", ":")).encode("ascii")], KEEP)


def _dir() -> str:
    from dractl.paths import cache_dir

    return os.path.join(cache_dir(), "snapshots")


_CODE_KEY: str | None = None


def _key() -> str:
    """What a file's verdict depends on besides its bytes: dractl's version, and its reading and validation code.

    The code's files are fingerprinted by size and modification time, so that a checkout of dractl (an editable
    install whose version does not change) never trusts what an older validation said.
    """
    global _CODE_KEY
    if _CODE_KEY is None:
        import dractl

        root = os.path.dirname(os.path.abspath(dractl.__file__))
        files = [os.path.join(root, f) for f in ("quantity.py", "semver.py", "errors.py")]
        files += [os.path.join(root, "sources", f) for f in ("loader.py", "jsonstream.py", "snapindex.py",
                                                              "modelcache.py", "statecache.py", "statemodel.py")]
        for sub in ("model", os.path.join("model", "validate")):
            with contextlib.suppress(OSError):
                files += [de.path for de in os.scandir(os.path.join(root, sub)) if de.name.endswith(".py")]
        h = hashlib.sha256(dractl.__version__.encode())
        for p in sorted(files):
            with contextlib.suppress(OSError):
                st = os.stat(p)
                h.update(f"\0{os.path.relpath(p, root)}\0{st.st_size}\0{st.st_mtime_ns}".encode())
        _CODE_KEY = f"{dractl.__version__}/{h.hexdigest()[:16]}"
    return _CODE_KEY
