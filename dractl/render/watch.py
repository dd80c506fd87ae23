"""What a listing command draws for one state of the cluster, and how ``-w`` draws each new state.

``-w`` (as ``kubectl get -w``) follows a stream of listings, one per change of the cluster:

* on a terminal (``-o table|wide``, not TERM=dumb) the table is redrawn in place (rich's Live: the cursor
  is hidden while watching and shown again at the end);
* otherwise, table and wide print the first table whole, then only the rows that changed or appeared, as
  new lines aligned under it, and rows that went away once more followed by ``(deleted)``. The AGE column
  does not count as a change. When the columns themselves change, a fresh table follows a blank line;
* ``-o name`` prints the names, then the name of every object added, changed or deleted (as kubectl does);
* ``-o json|yaml`` print the whole document again after each change (YAML documents separated by ``---``):
  each document stands alone, and deletions show as absences.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from dractl.render.printers import Result, Table, print_result, to_json, to_yaml, use_bar

#: Columns that change with the clock alone: a row is not new because its AGE moved on.
VOLATILE = frozenset({"AGE"})
DELETED = "(deleted)"


@dataclass
class Listing:
    """One state of a listing: the result for ``-o``, and text printed after a table (``--explain``).

    ``keys`` names the columns that identify a row's object when ``-w`` reprints changed rows (the table
    rows of one object that share them are told apart by their order); none means the whole row.
    """

    result: Result
    epilogue: Callable[[TextIO], None] | None = None
    keys: tuple[str, ...] = ()

    def print(self, fmt: str, *, no_headers: bool, out: TextIO, err: TextIO) -> None:
        """Print the listing in format ``fmt``, with the text after a table."""
        print_result(self.result, fmt, no_headers=no_headers, out=out, err=err)
        if self.epilogue is not None and fmt in ("table", "wide"):
            self.epilogue(out)

    def epilogue_text(self, fmt: str) -> str:
        """The text printed after a table, for ``fmt``."""
        if self.epilogue is None or fmt not in ("table", "wide"):
            return ""
        buf = io.StringIO()
        self.epilogue(buf)
        return buf.getvalue()


def watch(listings: Iterable[Listing], fmt: str, *, no_headers: bool, out: TextIO, err: TextIO) -> None:
    """Draw each listing as it comes (until the iterable ends or Ctrl-C), in the way ``fmt`` and ``out`` call for."""
    if fmt in ("json", "yaml"):
        _documents(listings, fmt, out)
    elif fmt == "name":
        _names(listings, out)
    elif use_bar(out):
        _in_place(listings, fmt, no_headers, out)
    else:
        _lines(listings, fmt, no_headers, out, err)


# ---------------------------------------------------------------- terminal


class _Screen(io.StringIO):
    """Collects one frame as the terminal would get it (colours, the terminal's width)."""

    def __init__(self, terminal: TextIO) -> None:
        super().__init__()
        self._terminal = terminal

    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._terminal.fileno()


def _frame(listing: Listing, fmt: str, no_headers: bool, out: TextIO) -> str:
    screen = _Screen(out)
    listing.print(fmt, no_headers=no_headers, out=screen, err=screen)
    return screen.getvalue().rstrip("\n")


def _in_place(listings: Iterable[Listing], fmt: str, no_headers: bool, out: TextIO) -> None:
    from rich.console import Console
    from rich.live import Live
    from rich.text import Text

    console = Console(file=out, highlight=False)
    # Taller than the terminal: cut with an ellipsis while watching (the final state is printed whole).
    with Live(console=console, auto_refresh=False, redirect_stdout=False, redirect_stderr=False,
              vertical_overflow="ellipsis") as live:
        last = None
        for listing in listings:
            frame = _frame(listing, fmt, no_headers, out)
            if frame != last:
                last = frame
                live.update(Text.from_ansi(frame, no_wrap=True, overflow="crop"), refresh=True)


# ---------------------------------------------------------------- piped tables


Key = tuple[tuple[str, ...], int]


def keyed_rows(full: Table, visible: Table, keys: Sequence[str]) -> dict[Key, list[str]]:
    """The visible rows by the identity ``keys`` give them in the full table (its n-th row with those values)."""
    idx = [full.columns.index(c) for c in keys if c in full.columns]
    seen: Counter[tuple[str, ...]] = Counter()
    out: dict[Key, list[str]] = {}
    for row, shown in zip(full.rows, visible.rows, strict=True):
        k = tuple(row[i] for i in idx) if idx else tuple(row)
        out[(k, seen[k])] = shown
        seen[k] += 1
    return out


def _same(a: list[str], b: list[str], volatile: list[int]) -> bool:
    if a == b:
        return True
    return len(a) == len(b) and all(x == y or i in volatile for i, (x, y) in enumerate(zip(a, b, strict=True)))


def _line(cells: Sequence[str], widths: list[int]) -> str:
    for i, c in enumerate(cells):
        widths[i] = max(widths[i], len(c))
    return "   ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()


def _lines(listings: Iterable[Listing], fmt: str, no_headers: bool, out: TextIO, err: TextIO) -> None:
    columns: list[str] | None = None
    rows: dict[Key, list[str]] = {}
    widths: list[int] = []
    headed = False
    epilogue = ""
    for listing in listings:
        table_of = listing.result.table
        if table_of is None:  # not a table: print each state whole
            listing.print(fmt, no_headers=no_headers, out=out, err=err)
            out.flush()
            continue
        full = table_of()
        table = full.visible(fmt == "wide")
        now = keyed_rows(full, table, listing.keys)
        if columns is None or table.columns != columns:
            if columns is not None:
                out.write("\n")
            listing.print(fmt, no_headers=no_headers, out=out, err=err)
            columns, rows, epilogue = table.columns, now, listing.epilogue_text(fmt)
            headed = bool(table.rows) and not no_headers
            widths = [max([len(c)] + [len(r[i]) for r in table.rows]) for i, c in enumerate(columns)]
            out.flush()
            continue
        volatile = [i for i, c in enumerate(columns) if c in VOLATILE]
        lines = [_line(r, widths) for k, r in now.items() if k not in rows or not _same(rows[k], r, volatile)]
        lines += [_line(r, widths) + "   " + DELETED for k, r in rows.items() if k not in now]
        rows = now
        if lines and not headed and not no_headers:
            lines.insert(0, _line(columns, widths))
            headed = True
        text = listing.epilogue_text(fmt)
        if text != epilogue:
            epilogue = text
            lines.append(text.rstrip("\n"))
        if lines:
            out.write("\n".join(lines) + "\n")
            out.flush()


# ---------------------------------------------------------------- names and documents


def _name_states(result: Result) -> dict[str, str]:
    """Each name with its object's document (to tell a changed object), or "" when they cannot be paired."""
    names = result.names() if result.names is not None else []
    doc = result.document()
    items = doc.get("items") if isinstance(doc, dict) else None
    if isinstance(items, list) and len(items) == len(names):
        return {n: json.dumps(i, sort_keys=True, default=str) for n, i in zip(names, items, strict=True)}
    if len(names) == 1:
        return {names[0]: json.dumps(doc, sort_keys=True, default=str)}
    return dict.fromkeys(names, "")


def _names(listings: Iterable[Listing], out: TextIO) -> None:
    last: dict[str, str] | None = None
    for listing in listings:
        now = _name_states(listing.result)
        changed = list(now) if last is None else [n for n, s in now.items() if last.get(n) != s]
        changed += [n for n in (last or {}) if n not in now]
        last = now
        if changed:
            out.write("".join(n + "\n" for n in changed))
            out.flush()


def _documents(listings: Iterable[Listing], fmt: str, out: TextIO) -> None:
    last: Any = None
    first = True
    for listing in listings:
        doc = listing.result.document()
        if not first and doc == last:
            continue
        if fmt == "json":
            out.write(to_json(doc))
        else:
            out.write(("" if first else "---\n") + to_yaml(doc))
        first, last = False, doc
        out.flush()
