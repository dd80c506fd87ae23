"""Printers chosen by ``-o``: table, wide, json, yaml, name.

Commands turn their results into a neutral ``Table`` (for table/wide) and a plain
document (for json/yaml) and a list of names (for name); ``print_result`` picks the
printer. Tables are drawn with rich on a terminal and as kubectl-style aligned
plain text when piped or with NO_COLOR; rich is only imported for the former.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from dractl.errors import UsageError

FORMATS = ("table", "wide", "json", "yaml", "name")


@dataclass
class Table:
    """Columns and rows of strings; ``wide`` columns only appear with ``-o wide``."""

    columns: list[str]
    rows: list[list[str]] = field(default_factory=list)
    wide: set[str] = field(default_factory=set)

    def visible(self, wide: bool) -> Table:
        if wide or not self.wide:
            return self
        keep = [i for i, c in enumerate(self.columns) if c not in self.wide]
        return Table([self.columns[i] for i in keep], [[r[i] for i in keep] for r in self.rows])


@dataclass
class Result:
    """What a command produces; each printer uses the part it needs.

    ``text`` replaces the table, wide and name forms for a command that answers with a
    sentence (``dractl version``); ``footer`` is a line printed after the table (a summary),
    in place of ``empty_message`` when there are no rows.
    """

    table: Callable[[], Table] | None
    document: Callable[[], Any]
    names: Callable[[], list[str]] = lambda: []
    empty_message: str = "No resources found."
    text: Callable[[], str] | None = None
    footer: Callable[[], str] | None = None


def check_format(fmt: str) -> str:
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
    if os.environ.get("NO_COLOR"):
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def print_result(result: Result, fmt: str, *, no_headers: bool = False, out: TextIO | None = None,
                 err: TextIO | None = None) -> None:
    """Print ``result`` in the ``-o`` format on ``out``; the empty-listing notice goes to ``err``."""
    out = out or sys.stdout
    err = err or sys.stderr
    fmt = check_format(fmt)
    if fmt == "json":
        out.write(to_json(result.document()))
    elif fmt == "yaml":
        out.write(to_yaml(result.document()))
    elif result.text is not None:
        out.write(result.text() + "\n")
    elif fmt == "name":
        for n in result.names():
            out.write(n + "\n")
    elif result.table is not None:
        table = result.table().visible(fmt == "wide")
        if table.rows:
            print_table(table, no_headers=no_headers, out=out)
        elif result.footer is None:
            err.write(result.empty_message + "\n")
        if result.footer is not None:
            out.write(result.footer() + "\n")


_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "))
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


def to_yaml(doc: Any) -> str:
    import yaml

    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return yaml.dump(doc, Dumper=dumper, sort_keys=False, default_flow_style=False, allow_unicode=True)


def print_table(table: Table, *, no_headers: bool = False, out: TextIO) -> None:
    if use_color(out):
        _rich_table(table, no_headers, out)
    else:
        out.write(plain_table(table, no_headers))


def plain_table(table: Table, no_headers: bool = False) -> str:
    """kubectl's layout: upper-case headers, columns separated by three spaces."""
    rows: Sequence[Sequence[str]] = table.rows if no_headers else [table.columns, *table.rows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(table.columns))]
    lines = []
    for r in rows:
        cells = [c.ljust(w) for c, w in zip(r, widths, strict=True)]
        lines.append("   ".join(cells).rstrip())
    return "\n".join(lines) + "\n"


def _rich_table(table: Table, no_headers: bool, out: TextIO) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table as RichTable

    t = RichTable(box=box.SIMPLE_HEAD, show_header=not no_headers, pad_edge=False, header_style="bold")
    for c in table.columns:
        t.add_column(c, no_wrap=True, overflow="ignore")
    for r in table.rows:
        t.add_row(*r, style=_row_style(r, table.columns))
    # Like kubectl, never fold cells: lines wider than the terminal simply run on.
    needed = max(len(line) for line in plain_table(table, no_headers).splitlines()) + 2
    console = Console(file=out, highlight=False, soft_wrap=False)
    if console.width < needed:
        console = Console(file=out, highlight=False, soft_wrap=False, width=needed)
    console.print(t)


def _row_style(row: Sequence[str], columns: Sequence[str]) -> str | None:
    for name in ("STATUS", "STATE", "RESULT"):
        if name in columns:
            v = row[columns.index(name)]
            if v in ("free", "true", "allocated", "reserved"):
                return None
            if v.startswith(("pending", "false", "error", "incomplete", "tainted")):
                return "yellow" if not v.startswith("error") else "red"
    return None
