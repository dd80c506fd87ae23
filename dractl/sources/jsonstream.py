"""Read a big JSON List one item at a time, so that no more than one item's dictionaries exist at once.

``kubectl get -o json`` of a big cluster is hundreds of MiB, and Python's dictionaries of it about ten
times that. :func:`stream_items` reads the file in chunks and hands out the objects of a JSON document of
the usual shape (one top-level object; a ``*List`` with its ``items``, or a single object) one by one, with
where each item lies in the file so a source can read it again later (:class:`LazyRaw`) instead of keeping
it. Anything else (a top-level array, several documents, YAML, a syntax error) raises :class:`NotStreamable`
and the caller reads the file whole, as before, so every message stays the same.
"""

from __future__ import annotations

import codecs
import io
import json
import threading
from collections.abc import Iterator, Mapping
from typing import IO, Any

CHUNK = 1 << 20
_WS = " \t\n\r"
_DECODE = json.JSONDecoder().raw_decode

#: (object, start byte, end byte, kind and apiVersion taken from the list or None)
Item = tuple[Any, int, int, "dict[str, Any] | None"]


class NotStreamable(Exception):
    """The text is not one JSON object that can be read item by item: read it whole instead."""


class Reread:
    """Reads byte ranges of a file, or of bytes held in memory (stdin), again.

    A file is read through an open file object, so a rename over its path changes nothing.
    """

    def __init__(self, f: IO[bytes] | None = None, data: bytes | None = None) -> None:
        self._f = f
        self._data = data
        self._lock = threading.Lock()

    def read(self, start: int, end: int) -> bytes:
        """The bytes from ``start`` to ``end``."""
        if self._data is not None:
            return self._data[start:end]
        assert self._f is not None
        with self._lock:
            self._f.seek(start)
            return self._f.read(end - start)


class ReadAgain(Mapping[str, Any]):
    """An object's API dictionary that is not kept in memory: :meth:`_get` reads it again when it is used."""

    __slots__ = ()

    def _get(self) -> Mapping[str, Any]:
        raise NotImplementedError

    def __getitem__(self, key: str) -> Any:
        return self._get()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())


class LazyRaw(ReadAgain):
    """An object's API dictionary, read again from its file when first used (then kept)."""

    __slots__ = ("_reread", "_start", "_end", "_extra", "_doc", "_md_defaults")

    def __init__(self, reread: Reread, start: int, end: int, extra: dict[str, Any] | None = None) -> None:
        self._reread = reread
        self._start = start
        self._end = end
        self._extra = extra  # kind and apiVersion an API list's item takes from its list
        self._doc: dict[str, Any] | None = None
        self._md_defaults: dict[str, Any] | None = None

    def _get(self) -> dict[str, Any]:
        if self._doc is None:
            doc = json.loads(self._reread.read(self._start, self._end))
            doc = {**self._extra, **doc} if self._extra else doc
            if self._md_defaults:
                md = doc.get("metadata")
                md = dict(md) if isinstance(md, dict) else {}
                for k, v in self._md_defaults.items():
                    md.setdefault(k, v)
                doc = {**doc, "metadata": md}
            self._doc = doc
        return self._doc

    def with_metadata_defaults(self, defaults: dict[str, Any]) -> Mapping[str, Any]:
        """The object with ``defaults`` set in its metadata where it has no such key.

        The fake control plane stamps a uid and creationTimestamp so. An object not read yet stays unread: stamping
        every slice of a big file does not read them all again.
        """
        if self._doc is not None:
            md = self._doc.get("metadata")
            md = dict(md) if isinstance(md, dict) else {}
            for k, v in defaults.items():
                md.setdefault(k, v)
            return {**self._doc, "metadata": md}
        out = LazyRaw(self._reread, self._start, self._end, self._extra)
        out._md_defaults = {**(self._md_defaults or {}), **defaults}
        return out

    def __repr__(self) -> str:
        return f"LazyRaw(bytes {self._start}-{self._end})"


class _Text:
    """The decoded text of a byte stream, read a chunk at a time; positions are absolute characters."""

    def __init__(self, f: IO[bytes], chunk: int) -> None:
        self._f = f
        self._chunk = chunk
        self._dec = codecs.getincrementaldecoder("utf-8")()
        self.buf = ""
        self.base = 0  # absolute character offset of buf[0]
        self.eof = False
        self.ascii = True  # every character so far is one byte, and there is no byte-order mark
        self._cursor = (0, 0)  # (character, byte) of a known position in buf, for byte offsets
        self._started = False

    def more(self) -> bool:
        """Append the next chunk; False at the end."""
        if self.eof:
            return False
        data = self._f.read(self._chunk if self._started else max(self._chunk, 3))
        if not self._started:
            self._started = True
            if data.startswith(codecs.BOM_UTF8):
                data = data[3:]
                self.ascii = False
                self._cursor = (0, 3)
                if not data:
                    return True  # only the mark so far: the text comes with the next read
        if not data:
            self.eof = True
            try:
                self.buf += self._dec.decode(b"", final=True)
            except UnicodeDecodeError:
                raise NotStreamable from None
            return False
        try:
            text = self._dec.decode(data)
        except UnicodeDecodeError:
            raise NotStreamable from None
        if "\x00" in text:
            raise NotStreamable
        if self.ascii and not text.isascii():
            self.ascii = False
        self.buf = self.buf + text if self.buf else text
        return True

    def drop(self, pos: int) -> None:
        """The text before absolute position ``pos`` is no longer needed (dropped once it is most of it)."""
        cut = pos - self.base
        if cut < (1 << 16) or cut * 2 < len(self.buf):
            return
        if not self.ascii:
            self.byte_offset(pos)  # moves the cursor to pos
        self.buf = self.buf[cut:]
        self.base = pos

    def byte_offset(self, pos: int) -> int:
        if self.ascii:
            return pos
        c, b = self._cursor
        if pos < c:  # not reached: positions only grow
            raise NotStreamable
        b += len(self.buf[c - self.base : pos - self.base].encode())
        self._cursor = (pos, b)
        return b

    def skip_ws(self, pos: int) -> int:
        while True:
            i = pos - self.base
            buf = self.buf
            n = len(buf)
            while i < n and buf[i] in _WS:
                i += 1
            if i < n or not self.more():
                return i + self.base

    def char(self, pos: int) -> str:
        """The character at ``pos`` ("" at the end)."""
        while pos - self.base >= len(self.buf):
            if not self.more():
                return ""
        return self.buf[pos - self.base]

    def value(self, pos: int) -> tuple[Any, int]:
        """Decode the JSON value at ``pos``; reads on while it is cut off by the end of the buffer."""
        while True:
            try:
                v, end = _DECODE(self.buf, pos - self.base)
            except json.JSONDecodeError:
                if self.more():
                    continue
                raise NotStreamable from None
            except (RecursionError, ValueError):  # a number past int()'s digits: the whole reader says where
                raise NotStreamable from None
            if end == len(self.buf) and self.more():
                continue  # a number may go on in the next chunk
            return v, end + self.base


def stream_items(f: IO[bytes], *, chunk: int = CHUNK, list_kind: bool = True) -> Iterator[Item]:
    """The objects of one JSON document, read as a stream.

    Each is ``(object, start byte, end byte, extra)`` (``extra``: the kind and apiVersion an item took from its
    list, else None; the bytes are 0, 0 for a document that is no list).

    A ``*List`` document yields its items (an item without kind and apiVersion gets its list's, as
    ``dractl.sources.loader.iter_objects`` does); any other object is yielded whole. ``list_kind=False``: the
    ``items`` of a document of any kind (dractl's fake cluster state) are its objects. Raises NotStreamable
    for what only the whole-document reader can judge; items already yielded are then to be discarded.
    """
    t = _Text(f, chunk)
    pos = t.skip_ws(0)
    if t.char(pos) != "{":
        raise NotStreamable
    pos += 1
    head: dict[str, Any] = {}
    pending: list[tuple[dict[str, Any], int, int]] = []  # items that wait for their list's kind
    streamed = False
    first = True
    while True:
        pos = t.skip_ws(pos)
        c = t.char(pos)
        if c == "}":
            pos += 1
            break
        if not first:
            if c != ",":
                raise NotStreamable
            pos = t.skip_ws(pos + 1)
        first = False
        key, pos = t.value(pos)
        if not isinstance(key, str):
            raise NotStreamable
        pos = t.skip_ws(pos)
        if t.char(pos) != ":":
            raise NotStreamable
        pos = t.skip_ws(pos + 1)
        kind = head.get("kind")
        if key == "items" and t.char(pos) == "[" and (kind is None or _is_list(kind) or not list_kind):
            streamed = True
            pos = t.skip_ws(pos + 1)
            if t.char(pos) == "]":
                pos += 1
                continue
            while True:
                t.drop(pos)
                item, end = t.value(pos)
                start_b, end_b = t.byte_offset(pos), t.byte_offset(end)
                if list_kind and isinstance(item, dict) and "kind" not in item and "apiVersion" not in item:
                    if kind is None:
                        pending.append((item, start_b, end_b))
                    else:
                        yield _with_list_kind(item, head, start_b, end_b)
                else:
                    yield item, start_b, end_b, None
                pos = t.skip_ws(end)
                c = t.char(pos)
                if c == "]":
                    pos += 1
                    break
                if c != ",":
                    raise NotStreamable
                pos = t.skip_ws(pos + 1)
            continue
        if key in head:
            raise NotStreamable  # a repeated key: json.loads keeps the last one
        value, pos = t.value(pos)
        head[key] = value
        t.drop(pos)
    pos = t.skip_ws(pos)
    if t.char(pos) != "":
        raise NotStreamable  # more than one document
    if streamed:
        if list_kind and not _is_list(head.get("kind")):
            raise NotStreamable
        for item, s, e in pending:
            yield _with_list_kind(item, head, s, e)
        return
    if _is_list(head.get("kind")) and "items" in head:
        raise NotStreamable  # items that are not a list, or null: the whole-document reader says what
    yield head, 0, 0, None


def _is_list(kind: Any) -> bool:
    return isinstance(kind, str) and kind.endswith("List")


def _with_list_kind(item: dict[str, Any], head: dict[str, Any], start: int, end: int) -> Item:
    item_kind = head["kind"][: -len("List")]
    if not item_kind:
        return item, start, end, None
    extra = {"apiVersion": head.get("apiVersion"), "kind": item_kind}
    return {**extra, **item}, start, end, extra


def list_head(data: bytes) -> dict[str, Any]:
    """The members of a JSON object before its ``items``, without decoding the items.

    For an API list they are its kind, apiVersion and metadata, with the continue token; it is the whole
    object when its metadata comes after its items. Raises ValueError for what is not a JSON object.
    """
    t = _Text(io.BytesIO(data), max(len(data), 3))
    pos = t.skip_ws(0)
    if t.char(pos) != "{":
        raise ValueError("not a JSON object")
    pos += 1
    head: dict[str, Any] = {}
    first = True
    while True:
        pos = t.skip_ws(pos)
        c = t.char(pos)
        if c == "}":
            return head
        if not first:
            if c != ",":
                raise ValueError("not a JSON object")
            pos = t.skip_ws(pos + 1)
        first = False
        try:
            key, pos = t.value(pos)
            pos = t.skip_ws(pos)
            if t.char(pos) != ":":
                raise ValueError("not a JSON object")
            pos = t.skip_ws(pos + 1)
            if key == "items":
                if "metadata" in head:
                    return head
                return dict(json.loads(data))  # the list's metadata comes after its items: read it whole
            head[key], pos = t.value(pos)
        except NotStreamable:
            raise ValueError("not JSON") from None
