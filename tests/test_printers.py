"""Printers: rich tables on a terminal (never folded), plain kubectl-style text otherwise."""

from __future__ import annotations

import io
import json

from dractl.render.printers import Result, Table, print_result, to_json


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _table() -> Table:
    rows = [["dra-demo-worker", "gpu-" + str(i),
             "allocated: dra-demo/pod-a-gpu-x7k2q" if i else "free"] for i in range(3)]
    return Table(["NODE", "DEVICE", "STATUS"], rows)


def test_terminal_table_is_coloured_and_never_folded(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("COLUMNS", "20")
    out = _Tty()
    print_result(Result(table=_table, document=dict), "table", out=out)
    text = out.getvalue()
    assert "\x1b[" in text  # styled
    rows = [line for line in text.splitlines() if "gpu-" in line]
    assert len(rows) == 3 and "pod-a-gpu-x7k2q" in rows[1]


def test_no_color_gives_plain_text(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    out = _Tty()
    print_result(Result(table=_table, document=dict), "table", out=out, no_headers=True)
    assert "\x1b[" not in out.getvalue()
    assert out.getvalue().splitlines()[0].split() == ["dra-demo-worker", "gpu-0", "free"]


def test_long_lists_print_one_item_per_line_and_stay_json():
    doc = {"kind": "DeviceList", "items": [{"device": f"gpu-{i}", "n": i} for i in range(500)]}
    text = to_json(doc)
    assert json.loads(text) == doc
    assert text.splitlines()[3] == '    {"device": "gpu-0", "n": 0},'
    small = to_json({"items": [{"a": 1}]})
    assert json.loads(small) == {"items": [{"a": 1}]} and '\n      "a": 1' in small
