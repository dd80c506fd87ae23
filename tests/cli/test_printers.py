"""Printers: tables fitted to a terminal (never folded), plain kubectl-style text otherwise."""

from __future__ import annotations

import io
import json
import re

import pytest

from dractl.render.printers import Result, Table, print_result, terminal_table, to_json


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _table() -> Table:
    rows = [["dra-demo-worker", "gpu-" + str(i),
             "allocated: dra-demo/pod-a-gpu-x7k2q" if i else "free"] for i in range(3)]
    return Table(["NODE", "DEVICE", "STATUS"], rows)


def _visible(text: str) -> list[str]:
    return re.sub(r"\x1b\[[0-9;]*m", "", text).splitlines()


def test_terminal_table_is_coloured_fitted_and_never_folded(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("COLUMNS", "40")  # honoured, as rich and shutil do
    out = _Tty()
    print_result(Result(table=_table, document=dict), "table", out=out, err=io.StringIO())
    text = out.getvalue()
    assert "\x1b[" in text  # styled
    lines = _visible(text)
    assert len(lines) == 5 and all(len(line) <= 40 for line in lines), lines
    assert lines[3] == "dra-demo-worker  gpu-1   allocated: dra…"  # STATUS cut, names whole
    monkeypatch.setenv("COLUMNS", "20")  # not even the names fit: they stay whole, the line runs on
    out = _Tty()
    print_result(Result(table=_table, document=dict), "table", out=out, err=io.StringIO())
    assert _visible(out.getvalue())[3] == "dra-demo-worker  gpu-1   allocated: …"
    out = _Tty()
    print_result(Result(table=_table, document=dict), "wide", out=out, err=io.StringIO())  # -o wide is never fitted
    lines = _visible(out.getvalue())
    assert lines[3] == "dra-demo-worker   gpu-1    allocated: dra-demo/pod-a-gpu-x7k2q"
    assert lines[1] == "─" * len(lines[3])


def _wide_table() -> Table:
    cols = ["NAMESPACE", "CLAIM", "STATE", "REQUEST", "DEVICE", "CONSUMERS", "NODE", "AGE"]
    rows = [["team-a", "claim-with-a-long-name", "reserved", "gpu", "gpu.example.com/node-1/gpu-0",
             "pod-one,pod-two,pod-three", "node-1", "5m"]]
    return Table(cols, rows, drop=["REQUEST", "AGE", "CONSUMERS", "NODE"])


def test_free_text_is_cut_before_columns_are_dropped_least_important_first():
    def at(width: int) -> list[str]:
        return terminal_table(_wide_table(), width=width, styled=False)[:-1].split("\n")

    full = at(200)
    assert full[1].split() == _wide_table().rows[0] and "   " in full[1]  # kubectl's three spaces when it fits
    natural = len(full[1])
    # a little narrower: the gap closes to two spaces, then CONSUMERS (free text) is cut; nothing dropped
    head, row = at(natural - 12)
    assert head.split() == _wide_table().columns and len(row) <= natural - 12
    assert "  pod-one,pod-two,po…  " in row
    # narrower still: REQUEST goes first, then AGE, ...; the names are never cut
    head, row = at(96)
    assert head.split() == ["NAMESPACE", "CLAIM", "STATE", "DEVICE", "CONSUMERS", "NODE"] and len(row) <= 96
    assert "  pod-one,pod-…  " in row
    head, row = at(60)
    assert head.split() == ["NAMESPACE", "CLAIM", "STATE", "DEVICE"]
    assert row.split() == ["team-a", "claim-with-a-long-name", "reserved", "gpu.example.com/node-1/gpu-0"]
    assert len(row) > 60  # the essential columns stay whole: the line runs on


def test_a_narrow_dropped_column_comes_back_when_all_fits_uncut():
    head, row = terminal_table(_wide_table(), width=86, styled=False)[:-1].split("\n")
    # REQUEST, AGE and CONSUMERS had to go for the rest to fit; then AGE (narrow) fits again
    assert head.split() == ["NAMESPACE", "CLAIM", "STATE", "DEVICE", "NODE", "AGE"] and len(row) <= 86


def test_no_color_gives_plain_text(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    out = _Tty()
    print_result(Result(table=_table, document=dict), "table", out=out, err=io.StringIO(), no_headers=True)
    assert "\x1b[" not in out.getvalue()
    assert out.getvalue().splitlines()[0].split() == ["dra-demo-worker", "gpu-0", "free"]


def test_long_lists_print_one_item_per_line_and_stay_json():
    doc = {"kind": "DeviceList", "items": [{"device": f"gpu-{i}", "n": i} for i in range(500)]}
    text = to_json(doc)
    assert json.loads(text) == doc
    assert text.splitlines()[3] == '    {"device": "gpu-0", "n": 0},'
    small = to_json({"items": [{"a": 1}]})
    assert json.loads(small) == {"items": [{"a": 1}]} and '\n      "a": 1' in small


def test_droppable_columns_give_way_to_a_whole_column_which_is_cut_only_when_nothing_is_left_to_drop():
    rows = [["dra-demo-worker", "gpu.example.com", "gpu-1", "LATEST-GPU-MODEL", "allocated: dra-demo/pod-a-gpu-x7k2q"]]
    columns = ["NODE", "DRIVER", "DEVICE", "MODEL", "STATUS"]

    def at(width: int, **kw) -> str:
        return terminal_table(Table(columns, rows, drop=["MODEL", "DRIVER"], **kw), width=width,
                              styled=False).splitlines()[1]

    assert at(80) == "dra-demo-worker  gpu.example.com  gpu-1   LATEST-GPU-MODEL  allocated: dra-demo…"  # cut first
    assert at(80, whole={"STATUS"}) == "dra-demo-worker  gpu.example.com  gpu-1   allocated: dra-demo/pod-a-gpu-x7k2q"
    assert at(40, whole={"STATUS"}) == "dra-demo-worker  gpu-1   allocated: dra…"  # all dropped: then cut


def _devices_json(dractl):
    r = dractl("devices", "-o", "json")
    assert r.code == 0
    return r.out


@pytest.mark.parametrize("nodes", [60, 30])  # 300 devices: half of them is fewer than the 201 made first
def test_a_long_json_list_made_by_two_processes_is_the_same_text(dractl, monkeypatch, nodes):
    # devices -o json of a long list: its second half is made by a forked child (printers._Elsewhere); the text
    # must be what one process makes, and the child must really have made it.
    import threading

    from dractl.render import printers

    assert dractl("fake", "reset", "--nodes", str(nodes), "--devices-per-node", "10").code == 0
    one = _devices_json(dractl)
    assert len(json.loads(one)["items"]) == nodes * 10
    made = []
    start = printers._Elsewhere.start

    def spy(write, *codec):
        e = start(write, *codec)
        made.append(e)
        return e

    monkeypatch.setattr(printers._Elsewhere, "start", staticmethod(spy))
    monkeypatch.setattr(printers, "PARALLEL_ITEMS", 250)
    assert threading.active_count() == 1  # else no fork: this test would not see the child
    assert _devices_json(dractl) == one
    assert len(made) == 1 and made[0] is not None and made[0]._status == 0


def test_a_child_that_fails_leaves_its_items_to_the_parent(dractl, monkeypatch):
    import os

    from dractl.render import printers

    assert dractl("fake", "reset", "--nodes", "60", "--devices-per-node", "10").code == 0
    one = _devices_json(dractl)
    parent = os.getpid()
    start = printers._Elsewhere.start

    def failing(write, *codec):
        def write_or_fail(put):
            if os.getpid() != parent:
                raise RuntimeError("the child fails")
            write(put)

        return start(write_or_fail, *codec)

    monkeypatch.setattr(printers._Elsewhere, "start", staticmethod(failing))
    monkeypatch.setattr(printers, "PARALLEL_ITEMS", 300)
    assert _devices_json(dractl) == one


@pytest.mark.parametrize("args", [["devices"], ["devices", "-o", "wide"], ["devices", "--no-headers"],
                                  ["-A", "devices", "--no-headers", "-o", "wide"]])
def test_a_long_plain_table_made_by_two_processes_is_the_same_text(dractl, monkeypatch, args):
    # devices of a long listing (printers.LazyRows): a forked child makes the rows of the second part and says
    # their widths, this process the first part's; the text must be what one process makes, and the child must
    # really have made its part.
    import threading

    from dractl.render import printers

    assert dractl("fake", "reset", "--nodes", "60", "--devices-per-node", "10").code == 0
    one = dractl(*args)
    assert one.code == 0 and len(one.out.splitlines()) >= 600
    forked: list[int | None] = []
    fork = printers.fork_beside

    def spy():
        pid = fork()
        if pid != 0:
            forked.append(pid)
        return pid

    monkeypatch.setattr(printers, "fork_beside", spy)
    monkeypatch.setattr(printers, "PARALLEL_ITEMS", 250)
    assert threading.active_count() == 1  # else no fork: this test would not see the child
    two = dractl(*args)
    assert (two.code, two.out, two.err) == (one.code, one.out, one.err)
    assert len(forked) == 1 and forked[0]


def test_a_table_child_that_fails_leaves_its_rows_to_the_parent(dractl, monkeypatch):
    import os

    from dractl.render import devicelist, printers

    assert dractl("fake", "reset", "--nodes", "60", "--devices-per-node", "10").code == 0
    one = dractl("devices").out
    parent = os.getpid()
    row = devicelist.DeviceRows.row

    def row_or_fail(self, v):
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        return row(self, v)

    monkeypatch.setattr(devicelist.DeviceRows, "row", row_or_fail)
    monkeypatch.setattr(printers, "PARALLEL_ITEMS", 300)
    assert dractl("devices").out == one


@pytest.mark.parametrize("odd", [None, 10, 590])  # no odd row, one in the parent's part, one in the child's
def test_lazy_rows_write_the_table_one_process_writes(monkeypatch, odd):
    # rows of other lengths (their first n cells count, as in write_plain_table) and text the stream must
    # encode: the same text as the rows made first and written by one process.
    import threading

    from dractl.render import printers

    monkeypatch.setattr(printers, "PARALLEL_ITEMS", 250)
    assert threading.active_count() == 1

    def row(i):
        cells = [f"node-{i % 7}", "é\u2603" * (i % 5), str(i) * (1 + i % 3)]
        return [*cells, "extra"] if i == odd else cells

    items = list(range(600))
    for no_headers in (False, True):
        want, got = io.StringIO(), io.StringIO()
        printers.write_plain_table(want, Table(["A", "B", "C"], [row(i) for i in items]), no_headers)
        lazy = printers.LazyRows(items, row)
        printers.write_plain_table(got, Table(["A", "B", "C"], lazy), no_headers)
        assert got.getvalue() == want.getvalue()
        assert len(lazy) == 600 and list(lazy)[odd or 0] == row(odd or 0)  # any other use makes every row


@pytest.mark.parametrize("errors", ["strict", "surrogateescape"])
def test_two_processes_write_what_one_stream_would(errors, monkeypatch):
    # The child encodes as the stream does: to a stream with a byte buffer its bytes are copied; to one without
    # (a StringIO) they are decoded again. A text the stream cannot encode fails the child, and this process
    # says so as it would alone.
    import threading

    from dractl.render import printers

    monkeypatch.setattr(printers, "PARALLEL_ITEMS", 250)
    assert threading.active_count() == 1
    items = [{"n": i, "s": "é\u2603"} for i in range(400)] + [{"bad": "\udcff"}]
    docs = printers.Documents(items, lambda d: d, printers._item_encoder())

    def one_process(out):
        monkeypatch.setattr(printers, "PARALLEL_ITEMS", 10**9)
        try:
            printers.write_json(out, {"kind": "List"}, docs)
        finally:
            monkeypatch.setattr(printers, "PARALLEL_ITEMS", 250)

    def both(make):
        outs = []
        for f in (one_process, lambda out: printers.write_json(out, {"kind": "List"}, docs)):
            out = make()
            try:
                f(out)
                out.flush()
                outs.append(("ok", out))
            except UnicodeEncodeError as e:
                outs.append(("error", str(e)))
        return outs

    def text_stream():
        return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors=errors)

    (a, one), (b, two) = both(text_stream)
    assert a == b
    if a == "ok":
        assert one.buffer.getvalue() == two.buffer.getvalue()
        assert json.loads(one.buffer.getvalue().decode("utf-8", errors))["items"][1] == {"n": 1, "s": "é\u2603"}
    else:
        assert errors == "strict" and one == two
    (a, one), (b, two) = both(io.StringIO)
    assert (a, b) == ("ok", "ok") and one.getvalue() == two.getvalue()
