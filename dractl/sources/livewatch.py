"""``-w`` on a live cluster: list each needed kind, then follow the API server's watch of it.

One thread per kind reads its watch stream (``?watch=1&resourceVersion=...``, newline-delimited JSON events)
and hands the events to the caller's thread through a queue; the caller keeps the objects of each kind,
re-parses only the kinds that changed and yields a new Cluster. A watch the server ends (its timeout) is
re-opened from the last resourceVersion, with fresh credentials (an exec plugin's token may have expired
meanwhile); 410 Gone, as the answer or as an ERROR event (the version is too old), relists the kind; any other
failure (a refused connection, a stream cut short, a read timeout, another ERROR event, an event that is not
JSON) ends the watch with one SourceError.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from dractl.errors import SourceError

if TYPE_CHECKING:
    from dractl.model.cluster import Cluster


class LiveAPI(Protocol):
    """What a watch needs of a live source (``dractl.sources.live.LiveSource``, which starts the watch)."""

    _warn: Callable[[str], None]

    @property
    def description(self) -> str:
        """The source as messages name it."""

    @property
    def server(self) -> str:
        """The API server's URL."""

    def list_docs(self, needs: Iterable[str]) -> list[Any]:
        """The API lists of the needed kinds."""

    def list_raw(self, kind: str, *, field_selector: str | None = None) -> dict[str, Any]:
        """One kind's API list, cluster-wide."""

    def stream(self, path: str, query: dict[str, str], read_timeout: float) -> Any:
        """Open a GET whose body arrives over time (a watch)."""

    def _collection(self, kind: str, namespace: str | None = None) -> str: ...

    def _http_error(self, status: int, data: bytes, verb: str, kind: str) -> SourceError: ...

#: The server closes each watch after this many seconds (it is then re-opened from where it was).
WATCH_SECONDS = 300
#: A read waits this much longer than the server's timeout before the server is deemed gone.
READ_GRACE = 30
#: After a change, wait this long for more before yielding (a scheduler's pass changes several objects).
SETTLE = 0.1

Key = tuple[str, str]


def _key(obj: dict[str, Any]) -> Key:
    md = obj.get("metadata") or {}
    return (str(md.get("namespace") or ""), str(md.get("name") or ""))


def _rv(doc: dict[str, Any]) -> str:
    return str((doc.get("metadata") or {}).get("resourceVersion") or "")


class _Kind:
    """The objects of one kind as last seen, and their parsed form (None when they changed since)."""

    def __init__(self, kind: str, doc: dict[str, Any]) -> None:
        self.kind = kind
        self.api_version = str(doc.get("apiVersion") or "")
        self.items: dict[Key, dict[str, Any]] = {_key(i): i for i in doc.get("items") or []}
        self.parsed: list[Any] | None = None

    def relisted(self, doc: dict[str, Any]) -> None:
        self.items = {_key(i): i for i in doc.get("items") or []}
        self.parsed = None

    def event(self, kind: str, obj: dict[str, Any]) -> None:
        if kind == "DELETED":
            self.items.pop(_key(obj), None)
        else:
            self.items[_key(obj)] = obj
        self.parsed = None


def watch(source: LiveAPI, kinds: frozenset[str]) -> Iterator[Cluster]:
    """Yield the kinds' objects now, then after each batch of changes, until the caller stops."""
    from dractl.model.cluster import cluster_from
    from dractl.sources.apikinds import EVENT_SELECTOR, KINDS
    from dractl.sources.loader import objects_from_docs

    order = [k for k in KINDS if k in kinds]
    docs = source.list_docs(order)
    state = {k: _Kind(k, d) for k, d in zip(order, docs, strict=True)}
    events: queue.Queue[tuple[str, str, Any]] = queue.Queue()
    stop = threading.Event()
    for kind, doc in zip(order, docs, strict=True):
        rv = _rv(doc)
        if not rv:  # an optional kind the server lacks, or Events we may not list: nothing to follow
            continue
        selector = EVENT_SELECTOR if kind == "Event" else None
        t = threading.Thread(target=_follow, args=(source, kind, selector, rv, events, stop),
                             name=f"dractl-watch-{kind}", daemon=True)
        t.start()

    def cluster() -> Cluster:
        for k in state.values():
            if k.parsed is None:
                doc = {"apiVersion": k.api_version, "kind": k.kind + "List", "items": list(k.items.values())}
                k.parsed = objects_from_docs([doc], source.description, warn=source._warn, validate=False,
                                             allow_empty=True) if k.items else []
        return cluster_from(o for k in order for o in state[k].parsed or ())

    try:
        yield cluster()
        while True:
            batch = [_next(events)]
            while True:  # what else arrives while the first change settles
                try:
                    batch.append(events.get(timeout=SETTLE))
                except queue.Empty:
                    break
            for kind, what, payload in batch:
                if what == "FAILED":
                    raise SourceError(payload)
                if what == "LIST":
                    state[kind].relisted(payload)
                else:
                    state[kind].event(what, payload)
            yield cluster()
    finally:
        stop.set()


def _next(events: queue.Queue[tuple[str, str, Any]]) -> tuple[str, str, Any]:
    # A short timeout keeps the wait interruptible (Ctrl-C) everywhere.
    while True:
        try:
            return events.get(timeout=0.5)
        except queue.Empty:
            continue


def _follow(source: LiveAPI, kind: str, selector: str | None, rv: str,
            events: queue.Queue[tuple[str, str, Any]], stop: threading.Event) -> None:
    """Runs in its own thread: put the watch events of ``kind`` on ``events`` until ``stop``."""
    try:
        while not stop.is_set():
            rv = _watch_once(source, kind, selector, rv, events, stop)
    except SourceError as e:
        events.put((kind, "FAILED", str(e)))
    except Exception as e:  # never a silent thread death: the caller ends with one line
        events.put((kind, "FAILED", f"watching {kind} on {source.server}: {type(e).__name__}: {e}"))


def _watch_once(source: LiveAPI, kind: str, selector: str | None, rv: str,
                events: queue.Queue[tuple[str, str, Any]], stop: threading.Event) -> str:
    """One watch request, read to its end; returns the resourceVersion to go on from."""
    from dractl.sources.apikinds import KINDS
    from dractl.sources.transport import TransportError

    plural = KINDS[kind].plural
    query = {"watch": "1", "resourceVersion": rv, "allowWatchBookmarks": "true",
             "timeoutSeconds": str(WATCH_SECONDS)}
    if selector:
        query["fieldSelector"] = selector
    try:
        resp = source.stream(source._collection(kind), query, WATCH_SECONDS + READ_GRACE)
    except SourceError as e:
        kind_ = getattr(e, "transport_kind", "")
        # The listing worked, so a refused (re)connection means the server went away mid-watch: word it
        # as the lost watch it is, whichever thread notices first.
        if kind_ in _LOST and not stop.is_set():
            raise SourceError(f"lost the watch of {plural} on {source.server}: {_LOST[kind_]}") from None
        raise
    try:
        if resp.status == 410:
            return _relist(source, kind, selector, events)
        if resp.status != 200:
            raise source._http_error(resp.status, resp.data, "watch", kind)
        for line in resp.lines():
            if stop.is_set():
                return rv
            if not line.strip():
                continue
            try:
                ev = json.loads(line)
                what, obj = ev["type"], ev["object"]
            except (ValueError, KeyError, TypeError):
                shown = line.decode("utf-8", "replace").strip()[:60]
                raise SourceError(f"lost the watch of {plural} on {source.server}: an event is not JSON "
                                  f'("{shown}")') from None
            if what == "ERROR":
                if isinstance(obj, dict) and obj.get("code") == 410:  # too old a version: start afresh
                    return _relist(source, kind, selector, events)
                raise SourceError(f"the watch of {plural} on {source.server} ended with an error: {_status(obj)}")
            rv = _rv(obj) or rv
            if what in ("ADDED", "MODIFIED", "DELETED"):
                events.put((kind, what, obj))
        return rv  # the server ended this watch (its timeout): go on from where it was
    except TransportError as e:
        if stop.is_set():
            return rv
        raise SourceError(f"lost the watch of {plural} on {source.server}: {_LOST.get(e.kind, e.reason)}") from None
    finally:
        resp.close()


_LOST = {"closed": "the connection was cut", "timeout": "no answer within the read timeout",
         "refused": "the connection was refused"}


def _status(obj: Any) -> str:
    """An ERROR event's Status as one phrase: ``500 InternalError: the message``."""
    if not isinstance(obj, dict):
        return "an error without a Status"
    code, reason, msg = obj.get("code"), obj.get("reason"), obj.get("message")
    head = " ".join(str(x) for x in (code, reason) if x)
    return f"{head}: {msg}" if head and msg else str(msg or head or "error")


def _relist(source: LiveAPI, kind: str, selector: str | None,
            events: queue.Queue[tuple[str, str, Any]]) -> str:
    doc = source.list_raw(kind, field_selector=selector)
    events.put((kind, "LIST", doc))
    return _rv(doc)
