"""Printers chosen by ``-o``: table, wide, json, yaml, name.

Commands turn their results into a neutral ``Table`` (for table/wide) and a plain
document (for json/yaml) and a list of names (for name); ``print_result`` picks the
printer. Tables are kubectl-style aligned plain text when piped. On a terminal the
default table fits its width (``fit_columns``): free-text columns are cut with an
ellipsis, then the least important columns dropped, NAME-like columns never cut; the
header is bold with a rule under it unless NO_COLOR. ``-o wide`` is never fitted: its
lines run on, as kubectl's do.

Documents have one of three shapes (``kube_list``, ``dractl_list``, ``dractl_object``):
Kubernetes objects exactly as the API server has them, listed in a ``v1`` ``List`` as
kubectl lists them; what dractl computes in its own kinds (``apiVersion: dractl/v1``),
listings as ``<Kind>List`` with ``items``; a named get prints the one object.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from dractl import DRACTL_API
from dractl.errors import UsageError
from dractl.forking import Child, fork_beside

FORMATS = ("table", "wide", "json", "yaml", "name")


def kube_list(items: list[Any]) -> dict[str, Any]:
    """Kubernetes objects as ``kubectl get -o json`` lists them (each item as the API server has it)."""
    return {"apiVersion": "v1", "kind": "List", "items": items}


def dractl_list(kind: str, items: list[Any], **extra: Any) -> dict[str, Any]:
    """A listing of what dractl computes: ``{apiVersion: dractl/v1, kind, ...extra, items}``.

    ``items`` comes last, as ``to_json`` prints it for long lists.
    """
    return {"apiVersion": DRACTL_API, "kind": kind, **extra, "items": items}


def nothing_found(namespace: str | None) -> str:
    """The line kubectl get prints for an empty listing of one namespace (``None``: of all of them)."""
    return "No resources found." if namespace is None else f"No resources found in {namespace} namespace."


def dractl_object(kind: str, fields: dict[str, Any]) -> dict[str, Any]:
    """One object dractl computes (a report, or a listing's item): ``{apiVersion: dractl/v1, kind, ...}``."""
    return {"apiVersion": DRACTL_API, "kind": kind, **fields}

#: columns that name an object: never cut with an ellipsis to fit a terminal (they may be dropped
#: when a command lists them in ``Table.drop``)
NAME_LIKE = frozenset({"NAME", "NAMESPACE", "NODE", "DEVICE", "DEVICES", "CLAIM", "POD", "DRIVER", "POOL",
                       "TEMPLATE", "CLASS", "ID"})
#: free-text columns that may be cut with an ellipsis to fit a terminal, before any column is dropped
FREE_TEXT = frozenset({"ATTRIBUTES", "CAPACITY", "COUNTERS", "COUNTERS LEFT", "STATUS", "POOL STATUS", "MESSAGE",
                       "REASON", "SCHEDULED", "SELECTOR", "SELECTORS", "SHARED", "CONSUMERS", "TAINT", "TAINTS",
                       "MATCHES", "DRIVER-STATUS", "OUTCOME", "EXTENDED RESOURCE", "CHECKS", "FEATURE", "GATES",
                       "SHOWS", "HELM VALUES"})
_MIN_CUT = 12  # a cut column keeps at least this many cells (or its header's width)


@dataclass
class Table:
    """Columns and rows of strings; ``wide`` columns only appear with ``-o wide``.

    To fit a terminal, the default table first cuts the ``cut`` columns (free text) with an
    ellipsis, then drops the ``drop`` columns, least important first, until it fits; the
    other columns are kept whole, and when even they do not fit the line runs on. The ``whole``
    columns are what the view is for: the ``drop`` columns give way to them, and they are cut
    only when every droppable column is gone.
    """

    columns: list[str]
    rows: Sequence[list[str]] = field(default_factory=list)
    wide: set[str] = field(default_factory=set)
    drop: Sequence[str] = ()
    cut: Collection[str] = FREE_TEXT
    whole: Collection[str] = ()

    def visible(self, wide: bool) -> Table:
        """The table without its wide-only columns, unless ``wide``."""
        if wide or not self.wide:
            return self
        keep = [i for i, c in enumerate(self.columns) if c not in self.wide]
        return Table([self.columns[i] for i in keep], [[r[i] for i in keep] for r in self.rows],
                     drop=self.drop, cut=self.cut, whole=self.whole)


@dataclass
class Result:
    """What a command produces; each printer uses the part it needs.

    ``text`` replaces the table and wide forms (and the name form, without ``names``) for a
    command that answers with sentences (``dractl version``, ``dractl fake apply``); ``footer``
    is printed after the table (a summary, or lines about what the table cannot show), in
    place of ``empty_message`` when there are no rows. Either may end in a newline or not;
    an empty one prints nothing.
    """

    table: Callable[[], Table] | None
    document: Callable[[], Any]
    names: Callable[[], list[str]] | None = None
    empty_message: str = "No resources found."
    text: Callable[[], str] | None = None
    footer: Callable[[], str] | None = None
    #: the same document as ``document``, as (the document without its ``items``, the items), for -o json|yaml
    #: to write item by item: a long listing is never a whole document in memory
    stream: Callable[[], tuple[dict[str, Any], Iterable[Any]]] | None = None


def check_format(fmt: str) -> str:
    """The -o format, checked; a UsageError naming the formats when it is unknown."""
    if fmt not in FORMATS:
        raise UsageError(f"-o {fmt!r}: unknown output format (allowed: {', '.join(FORMATS)})")
    return fmt


def use_bar(stream: TextIO) -> bool:
    """Small bars in tables only on a terminal (plain text when piped)."""
    if os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def use_color(stream: TextIO) -> bool:
    """Whether to style output on ``stream``: on a terminal, unless NO_COLOR is set."""
    if os.environ.get("NO_COLOR"):
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def print_result(result: Result, fmt: str, *, out: TextIO, err: TextIO, no_headers: bool = False) -> None:
    """Print ``result`` in the ``-o`` format on ``out``; the empty-listing notice goes to ``err``.

    Commands call it through ``AppContext.print``, which passes the context's streams.
    """
    fmt = check_format(fmt)
    if fmt in ("json", "yaml") and result.stream is not None:
        head, items = result.stream()
        head = {k: v for k, v in head.items() if k != "items"}
        (write_json if fmt == "json" else write_yaml)(out, head, items)
    elif fmt == "json":
        out.write(to_json(result.document()))
    elif fmt == "yaml":
        out.write(to_yaml(result.document()))
    elif fmt == "name" and result.names is not None:
        for n in result.names():
            out.write(n + "\n")
    elif result.text is not None:
        _write_lines(out, result.text())
    elif result.table is not None and fmt != "name":
        table = result.table().visible(fmt == "wide")
        if table.rows:
            print_table(table, no_headers=no_headers, out=out, fit=fmt != "wide")
        elif result.footer is None:
            err.write(result.empty_message + "\n")
        if result.footer is not None:
            _write_lines(out, result.footer())


def _write_lines(out: TextIO, text: str) -> None:
    if text:
        out.write(text if text.endswith("\n") else text + "\n")


_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "))


def _item_encoder() -> Callable[[Any], str]:
    """``_COMPACT.encode`` without making a new C encoder for each item."""
    from json import encoder as _enc

    make = getattr(_enc, "c_make_encoder", None)
    if make is None:  # pragma: no cover - CPython has the C encoder
        return _COMPACT.encode
    c = make(None, _COMPACT.default, _enc.encode_basestring, None, ": ", ", ", False, False, True)

    def encode(o: Any) -> str:
        if isinstance(o, str):
            return _enc.encode_basestring(o)
        return "".join(c(o, 0))

    return encode
_PRETTY_ITEMS = 200  # above this many items, each list item is printed on one line


def to_json(doc: Any) -> str:
    """Indented JSON like kubectl's; long ``items`` lists get one item per line.

    json.dumps(indent=...) runs in pure Python (about 60 us per device); the C encoder
    without indent is ten times faster, so big lists print one compact item per line.
    """
    items = doc.get("items") if isinstance(doc, dict) else None
    if not isinstance(items, list) or len(items) <= _PRETTY_ITEMS:
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    head = {k: v for k, v in doc.items() if k != "items"}
    lines = ["{"]
    for k, v in head.items():
        lines.append(f"  {_COMPACT.encode(k)}: {_COMPACT.encode(v)},")
    lines.append('  "items": [')
    enc = _COMPACT.encode
    body = ",\n".join("    " + enc(i) for i in items)
    lines.append(body)
    lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


_BATCH = 512  # items encoded per write


class Documents:
    """The documents of a listing, made from ``source`` one at a time as they are written.

    Iterating gives each item's document (``doc``); ``-o json`` of a long listing writes each item's
    ``line`` instead, its document as compact JSON text (what ``_item_encoder`` makes of it), which a listing
    can make without encoding again the parts its items share.
    """

    def __init__(self, source: Iterable[Any], doc: Callable[[Any], Any], line: Callable[[Any], str]) -> None:
        self.source = source
        self.doc = doc
        self.line = line

    def __iter__(self) -> Iterator[Any]:
        return map(self.doc, self.source)


def write_json(out: TextIO, head: dict[str, Any], items: Iterable[Any]) -> None:
    """``to_json({**head, "items": [...items]})``, written as the items come.

    The second half of a list of at least PARALLEL_ITEMS documents is made by a forked child (:class:`_Elsewhere`)
    while this process makes the first: the same text, in about half the time on two CPUs.
    """
    from itertools import islice

    enc = _item_encoder()
    doc: Callable[[Any], Any] | None = None
    line = enc
    if isinstance(items, Documents):
        doc, line = items.doc, items.line
        items = items.source
    it = iter(items)
    first = list(islice(it, _PRETTY_ITEMS + 1))
    if len(first) <= _PRETTY_ITEMS:
        out.write(to_json({**head, "items": first if doc is None else [doc(i) for i in first]}))
        return
    rest: Sequence[Any] = ()
    elsewhere = None
    if doc is not None and isinstance(items, Sequence) and len(items) >= PARALLEL_ITEMS:
        cut = max(len(items) // 2, len(first))
        encoding = getattr(out, "encoding", None) or "utf-8"
        errors = getattr(out, "errors", None) or "strict"
        part = items[cut:]

        def write(put: Callable[[str], Any]) -> None:
            for i in range(0, len(part), _BATCH):
                put(",\n    " + ",\n    ".join(map(line, part[i:i + _BATCH])))

        elsewhere = _Elsewhere.start(write, encoding, errors)
        if elsewhere is not None:
            it, rest = iter(items[len(first):cut]), items[cut:]
    try:
        out.write("{\n" + "".join(f"  {enc(k)}: {enc(v)},\n" for k, v in head.items()) + '  "items": [\n    ')
        out.write(",\n    ".join(map(line, first)))
        while batch := list(islice(it, _BATCH)):
            out.write(",\n    " + ",\n    ".join(map(line, batch)))
        if elsewhere is not None:
            elsewhere.copy_to(out, lambda: (",\n    " + ",\n    ".join(map(line, rest[i:i + _BATCH]))
                                            for i in range(0, len(rest), _BATCH)))
        out.write("\n  ]\n}\n")
    finally:
        if elsewhere is not None:
            elsewhere.stop()


#: a JSON list of at least this many documents is made by two processes (on two CPUs or more)
PARALLEL_ITEMS = 50_000


class _Elsewhere(Child):
    """Text of a listing made by a forked child into a temporary file while this process goes on.

    The second half of a long JSON list, a part of a long plain table (:class:`LazyRows`). The child shares the
    model (fork copies a page only when one side writes it) and makes the text with the same functions, so the
    text is the text this process would make. It writes nothing else and leaves with ``os._exit``; if it fails,
    the parent makes that text itself.
    """

    def __init__(self, pid: int, file: Any, encoding: str, errors: str) -> None:
        super().__init__(pid)
        self.file = file
        self.encoding = encoding
        self.errors = errors

    @classmethod
    def start(cls, write: Callable[[Callable[[str], Any]], None], encoding: str = "utf-8",
              errors: str = "strict") -> _Elsewhere | None:
        """Fork a child that runs ``write(put)``, each text it puts encoded as the stream would encode it.

        None where that is not safe (this process then makes that text itself).
        """
        import tempfile

        try:
            file = tempfile.TemporaryFile()  # noqa: SIM115 - closed by stop()
        except OSError:
            return None
        pid = fork_beside()
        if pid is None:
            file.close()
            return None
        if pid:
            return cls(pid, file, encoding, errors)
        code = 1  # the child: never returns, never flushes what the parent has buffered
        try:
            with os.fdopen(os.dup(file.fileno()), "wb") as f:
                write(lambda text: f.write(text.encode(encoding, errors)))  # the bytes the parent would write
            code = 0
        except BaseException:  # noqa: BLE001, S110 - any failure: the parent makes this text
            pass
        finally:
            os._exit(code)

    def copy_to(self, out: TextIO, here: Callable[[], Iterable[str]]) -> None:
        """Write the child's text to ``out`` once it is done: its bytes, where ``out`` has a byte buffer.

        If the child failed (it could not make or encode the items), the chunks of ``here()``: this process makes
        them, and says what is wrong as it always has.
        """
        if self.status() != 0:
            for chunk in here():
                out.write(chunk)
            return
        import codecs

        f = self.file
        f.seek(0)
        buffer = getattr(out, "buffer", None)
        if buffer is not None:
            out.flush()
            while data := f.read(1 << 22):
                buffer.write(data)
            return
        decoder = codecs.getincrementaldecoder(self.encoding)(self.errors)
        while data := f.read(1 << 22):
            out.write(decoder.decode(data))
        out.write(decoder.decode(b"", final=True))

    def stop(self) -> None:
        """Stop the child if it still runs, and drop its file."""
        super().stop()
        self.file.close()


def write_yaml(out: TextIO, head: dict[str, Any], items: Iterable[Any]) -> None:
    """``to_yaml({**head, "items": [...items]})``, written a batch of items at a time."""
    from itertools import islice

    import yaml

    it = iter(items)
    batch = list(islice(it, _BATCH))
    if not batch:
        out.write(to_yaml({**head, "items": []}))
        return
    out.write(to_yaml(head) if head else "")
    out.write("items:\n")  # a block sequence in a mapping is not indented: the items' text is a list's text
    while batch:
        out.write(yaml.dump(batch, Dumper=_dumper(), sort_keys=False, default_flow_style=False, allow_unicode=True))
        batch = list(islice(it, _BATCH))


def to_yaml(doc: Any) -> str:
    """A document as YAML, written as kubectl writes it."""
    import yaml

    return yaml.dump(doc, Dumper=_dumper(), sort_keys=False, default_flow_style=False, allow_unicode=True)


_DUMPER: Any = None


def _dumper() -> Any:
    """The YAML dumper: libyaml's safe dumper, without anchors.

    A value shared by two items (one capacity map) is written out in each, as kubectl writes it. A string that
    kubectl would read as another value (``y``, ``1e1``) is quoted (:func:`dractl.sources.yamlcompat.dumper_class`).
    """
    global _DUMPER
    if _DUMPER is None:
        import yaml

        from dractl.sources.yamlcompat import dumper_class

        class Dumper(dumper_class(getattr(yaml, "CSafeDumper", yaml.SafeDumper))):  # type: ignore[misc]
            def ignore_aliases(self, data: Any) -> bool:
                return True

        _DUMPER = Dumper
    return _DUMPER


def print_table(table: Table, *, no_headers: bool = False, out: TextIO, fit: bool = True) -> None:
    """Print a table: kubectl's plain layout when piped.

    On a terminal the table is fitted to its width (unless ``fit`` is False, for ``-o wide``) and
    styled unless NO_COLOR.
    """
    if not _isatty(out):
        write_plain_table(out, table, no_headers)
        return
    width = terminal_width(out) if fit else None
    out.write(terminal_table(table, no_headers, width=width, styled=use_color(out) and os.environ.get("TERM") != "dumb",
                             unicode=(getattr(out, "encoding", None) or "utf-8").lower().replace("-", "") == "utf8"))


def write_plain_table(out: TextIO, table: Table, no_headers: bool = False) -> None:
    """A table in kubectl's layout (upper-case headers, columns separated by three spaces), a batch of lines a write.

    Each line is one ``str.format`` of a template that pads every cell but the last to its column's width
    (as ``ljust`` would), so a long listing costs one call per row.
    """
    lazy = table.rows
    if isinstance(lazy, LazyRows) and lazy.rows is None and len(lazy) >= PARALLEL_ITEMS and table.columns:
        if lazy.write_plain(out, table.columns, no_headers):
            return
    rows: Sequence[Sequence[str]] = table.rows if no_headers else [table.columns, *table.rows]
    n = len(table.columns)
    if not rows:
        return
    if n == 0:
        out.write("\n" * len(rows))
        return
    if set(map(len, rows)) != {n}:  # a row of other length: its first n cells
        rows = [r[:n] for r in rows]
    line = _plain_line([max(map(len, column)) for column in zip(*rows, strict=True)])
    for start in range(0, len(rows), _BATCH):
        out.write(_plain_text(line, rows[start:start + _BATCH]))


def _plain_line(widths: Sequence[int]) -> Callable[..., str]:
    """The template of a plain table's line: every cell but the last padded to its column's width."""
    return "   ".join([*(f"{{:<{w}}}" for w in widths[:-1]), "{}"]).format


def _plain_text(line: Callable[..., str], rows: Sequence[Sequence[str]]) -> str:
    return "".join([line(*r).rstrip() + "\n" for r in rows])


class LazyRows(Sequence[list[str]]):
    """A table's rows, each made by ``row`` from one of ``items`` when the rows are first used.

    A plain table of a long listing (:func:`write_plain_table`) is made by two processes instead: a forked child
    makes the rows of the second half and says their column widths, this process makes the first half's, sends
    back the widths of the whole table, and each writes its half's lines (the child's through a temporary file,
    as :class:`_Elsewhere`): the same text, in about half the time. Any other use makes every row here.
    """

    def __init__(self, items: Sequence[Any], row: Callable[[Any], list[str]]) -> None:
        self.items = items
        self.row = row
        self.rows: list[list[str]] | None = None

    def _all(self) -> list[list[str]]:
        if self.rows is None:
            self.rows = [self.row(i) for i in self.items]
        return self.rows

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i: Any) -> Any:
        return self._all()[i]

    def __iter__(self) -> Iterator[list[str]]:
        return iter(self._all())

    def write_plain(self, out: TextIO, columns: list[str], no_headers: bool) -> bool:
        """Write the plain table of these rows in two processes; False (nothing written) where that cannot be."""
        n = len(columns)
        cut = len(self.items) * 3 // 5  # the child's rows cost more (copy-on-write), and its text is copied once more
        try:
            up_r, up_w = os.pipe()  # the child's widths
            down_r, down_w = os.pipe()  # the whole table's
        except OSError:
            return False

        def write(put: Callable[[str], Any]) -> None:  # in the child
            os.close(up_r)
            os.close(down_w)
            part = [self.row(i) for i in self.items[cut:]]
            ok = all(len(r) == n for r in part)
            with os.fdopen(up_w, "w") as to_parent:
                to_parent.write(json.dumps([max(map(len, col)) for col in zip(*part, strict=True)] if ok else None))
            with os.fdopen(down_r) as from_parent:
                whole = json.loads(from_parent.read() or "null")
            if not (ok and whole):
                raise ValueError("no widths: the parent makes these rows")
            fmt = _plain_line(whole)
            for start in range(0, len(part), _BATCH):
                put(_plain_text(fmt, part[start:start + _BATCH]))

        child = _Elsewhere.start(write, getattr(out, "encoding", None) or "utf-8",
                                 getattr(out, "errors", None) or "strict")
        os.close(up_w)
        os.close(down_r)
        if child is None:
            os.close(up_r)
            os.close(down_w)
            return False
        down: Any = down_w  # the fd, then its file object (closed once the widths are written)
        try:
            first = [self.row(i) for i in self.items[:cut]]
            with os.fdopen(up_r) as up:
                try:
                    theirs = json.loads(up.read() or "null")
                except ValueError:
                    theirs = None
            mine = first if no_headers else [columns, *first]
            if any(len(r) != n for r in mine) or not (isinstance(theirs, list) and len(theirs) == n):
                self.rows = [*first, *(self.row(i) for i in self.items[cut:])]
                return False  # rows of other length, or a child that could not say: the usual way
            widths = [max(a, b) for a, b in zip([max(map(len, col)) for col in zip(*mine, strict=True)], theirs,
                                                strict=True)]
            down = os.fdopen(down_w, "w")
            with down:
                down.write(json.dumps(widths))
            line = _plain_line(widths)
            for start in range(0, len(mine), _BATCH):
                out.write(_plain_text(line, mine[start:start + _BATCH]))

            def here() -> Iterator[str]:  # the child failed: its part made here
                rest = [self.row(i) for i in self.items[cut:]]
                for start in range(0, len(rest), _BATCH):
                    yield _plain_text(line, rest[start:start + _BATCH])

            child.copy_to(out, here)
            return True
        finally:
            if isinstance(down, int):
                os.close(down)
            child.stop()


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def terminal_width(out: TextIO) -> int:
    """The terminal's width: $COLUMNS when set (as rich and shutil honour it), else the tty's size."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        width = os.get_terminal_size(out.fileno()).columns
    except (AttributeError, ValueError, OSError):
        width = 0
    return width if width > 0 else 80


@dataclass(frozen=True)
class Layout:
    """Which columns a fitted table shows (indices into ``Table.columns``), how wide, and the gap."""

    keep: list[int]
    widths: list[int]  # one per kept column
    gap: int


def fit_columns(table: Table, natural: Sequence[int], width: int | None) -> Layout:
    """Fit columns of ``natural`` widths into ``width`` cells (``None``: no limit).

    In order, until the table fits: the gap narrows from three spaces to two; free-text
    columns (``table.cut``, never NAME-like) are cut down to ``_MIN_CUT`` cells or their
    header, except the ``table.whole`` ones, which are cut only if dropping every ``table.drop``
    column is not enough; the ``table.drop`` columns go, least important first (one dropped before the
    last comes back if the table then fits uncut). The cut columns then share what room is left, the
    narrowest first. Columns that may neither be cut nor dropped stay whole, so a line
    may still run on.
    """
    n = len(table.columns)
    keep = list(range(n))
    if width is None or sum(natural) + 3 * (n - 1) <= width:
        return Layout(keep, list(natural), 3)
    gap = 2
    cut = {i for i, c in enumerate(table.columns) if c in table.cut and c not in NAME_LIKE}
    shortest = {i: min(natural[i], max(len(table.columns[i]), _MIN_CUT)) for i in cut}
    least = {i: shortest[i] if i in cut and table.columns[i] not in table.whole else natural[i] for i in keep}
    droppable = [table.columns.index(c) for c in table.drop if c in table.columns]

    def total(cols: list[int], w: dict[int, int]) -> int:
        return sum(w[i] for i in cols) + gap * (len(cols) - 1)

    dropped = []
    while total(keep, least) > width and droppable:
        dropped.append(droppable.pop(0))
        keep.remove(dropped[-1])
    if total(keep, least) > width:  # the whole columns do not fit even alone: they are cut like the others
        least.update({i: shortest[i] for i in keep if i in cut})
    full = dict(enumerate(natural))
    for i in reversed(dropped[:-1]):  # a narrower, less important column comes back if all fits uncut
        if total(sorted([*keep, i]), full) <= width:
            keep = sorted([*keep, i])
    widths = {i: least[i] for i in keep}
    room = width - total(keep, widths)
    growable = [i for i in keep if widths[i] < natural[i]]
    while room > 0 and growable:
        i = min(growable, key=lambda j: (widths[j], j))
        widths[i] += 1
        room -= 1
        if widths[i] >= natural[i]:
            growable.remove(i)
    return Layout(keep, [widths[i] for i in keep], gap)


def terminal_table(table: Table, no_headers: bool = False, *, width: int | None, styled: bool,
                   unicode: bool = True) -> str:
    """The table for a terminal of ``width`` columns (``None``: as wide as it needs, lines run on).

    One line per row, never folded; styled: a bold header, a rule under it, rows coloured
    by their status.
    """
    from rich.cells import cell_len, set_cell_size

    rows: Sequence[Sequence[str]] = table.rows if no_headers else [table.columns, *table.rows]
    natural = [max(cell_len(r[i]) for r in rows) for i in range(len(table.columns))]
    layout = fit_columns(table, natural, width)
    ellipsis = "…" if unicode else "~"
    sep = " " * layout.gap

    def line(r: Sequence[str]) -> str:
        cells = []
        for i, w in zip(layout.keep, layout.widths, strict=True):
            c = r[i]
            n = cell_len(c)
            if n > w:
                c, n = set_cell_size(c, w - 1) + ellipsis, w
            cells.append(c + " " * (w - n))
        return sep.join(cells).rstrip()

    out = []
    if not no_headers:
        head = line(table.columns)
        if styled:
            rule = ("─" if unicode else "-") * (sum(layout.widths) + layout.gap * (len(layout.widths) - 1))
            out += [f"\x1b[1m{head}\x1b[0m", rule]
        else:
            out.append(head)
    for r in table.rows:
        text = line(r)
        style = _row_style(r, table.columns) if styled else None
        out.append(f"{_SGR[style]}{text}\x1b[0m" if style else text)
    return "\n".join(out) + "\n"


_SGR = {"yellow": "\x1b[33m", "red": "\x1b[31m"}


def _row_style(row: Sequence[str], columns: Sequence[str]) -> str | None:
    for name in ("STATUS", "STATE", "RESULT"):
        if name in columns:
            v = row[columns.index(name)]
            if v in ("free", "true", "allocated", "reserved"):
                return None
            if v.startswith(("pending", "false", "error", "incomplete", "tainted")):
                return "yellow" if not v.startswith("error") else "red"
    return None
