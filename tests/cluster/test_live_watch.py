"""-w on a live cluster when the API server ends a watch, or sends what a watch should not carry.

The watch that the server ends (timeoutSeconds) is re-opened on the real apiserver (the control_plane
fixture). An event that is not JSON is something a real kube-apiserver never sends, so that one case is
served by a small fake HTTP server on 127.0.0.1 written here. A connection lost mid-watch and an ERROR event
need a control plane of their own: they are in test_live_outages.py.
"""

from __future__ import annotations

import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from livekit import Follow, device_class, kubeconfig
from watchproc import Watch, wait_until


def test_a_watch_the_server_ends_is_reopened_from_where_it_was(control_plane, tmp_path, monkeypatch):
    """The server ends each watch after a second (timeoutSeconds=1): dractl opens it again from the last
    resourceVersion, without listing again, and changes made between and after arrive."""
    import dractl.sources.livewatch as livewatch
    from dractl.sources.base import SourceOptions, open_source

    api = control_plane.api
    monkeypatch.setattr(livewatch, "WATCH_SECONDS", 1)
    source = open_source(SourceOptions(kubeconfig=str(control_plane.kubeconfig)), lambda m: None)
    opened: list[str] = []
    lists: list[str] = []
    stream, list_raw = source.stream, source.list_raw

    def counting_stream(path: str, query: dict, read_timeout: float) -> Any:
        opened.append(query["resourceVersion"])
        return stream(path, query, read_timeout)

    def counting_list(kind: str, **kw: Any) -> Any:
        lists.append(kind)
        return list_raw(kind, **kw)

    monkeypatch.setattr(source, "stream", counting_stream)
    monkeypatch.setattr(source, "list_raw", counting_list)
    w = Follow(source.watch(frozenset({"DeviceClass"})))
    made: list[str] = []
    try:
        wait_until("the first listing", w.started)
        for name in ("reopened-a", "reopened-b"):
            n = len(opened)
            wait_until("the server to end the watch and dractl to open it again",
                       lambda n=n: len(opened) >= n + 2 and w.started())
            api.create(device_class(name))
            made.append(name)
            wait_until(f"{name} through the watch", lambda name=name: w.has(name))
        assert lists == ["DeviceClass"]  # one list; every re-opened watch went on from a resourceVersion
        assert all(rv for rv in opened) and int(opened[-1]) > int(opened[0])
    finally:
        w.stop(lambda: api.create(device_class("watch-poke")))
        for name in [*made, "watch-poke"]:
            api.delete("DeviceClass", name)


class FakeServer:
    """A plain-HTTP stand-in for kube-apiserver: resource.k8s.io/v1 discovery, empty lists, and watches that
    send one line that is not JSON; or, with ``then_refuse``, watches held until every listed kind's watch is
    open, then the server stops listening and ends them cleanly, so that their re-opening is refused."""

    def __init__(self, watch_line: bytes, then_refuse: bool = False) -> None:
        line = watch_line
        lists: list[str] = []
        watches: list[str] = []
        opened = threading.Condition()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                url = urllib.parse.urlsplit(self.path)
                q = urllib.parse.parse_qs(url.query)
                if url.path == "/apis/resource.k8s.io":
                    self._json({"kind": "APIGroup", "name": "resource.k8s.io", "versions": [{"version": "v1"}]})
                elif q.get("watch"):
                    if then_refuse:
                        with opened:  # once every listed kind's watch is here, stop listening
                            watches.append(url.path)
                            opened.notify_all()
                            if not opened.wait_for(lambda: len(watches) >= len(lists), timeout=60):
                                raise AssertionError(f"watches {watches} for lists {lists}")
                            if self.server.socket.fileno() >= 0:
                                # Stop the serving loop first: closing a socket that its poll() still holds
                                # keeps it listening, and a connection queued there is reset (read as "cut").
                                self.server.shutdown()
                                self.server.socket.close()  # from now on, connecting is refused
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    # then_refuse: the watch's clean end (dractl opens it again); else one line, then the cut
                    self.wfile.write(b"0\r\n\r\n" if then_refuse else b"%x\r\n%s\r\n" % (len(line), line))
                    self.wfile.flush()
                    self.close_connection = True
                else:
                    lists.append(url.path)
                    kind = {"resourceslices": "ResourceSliceList", "resourceclaims": "ResourceClaimList",
                            "devicetaintrules": "DeviceTaintRuleList", "pods": "PodList"}.get(
                        url.path.rsplit("/", 1)[-1], "List")
                    self._json({"kind": kind, "apiVersion": "v1", "metadata": {"resourceVersion": "7"}, "items": []})

            def _json(self, doc: dict[str, Any]) -> None:
                body = json.dumps(doc).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def fake_server():
    made: list[FakeServer] = []

    def make(line: bytes, then_refuse: bool = False) -> FakeServer:
        made.append(FakeServer(line, then_refuse))
        return made[-1]

    yield make
    for s in made:
        s.close()


def test_an_event_that_is_not_json_ends_the_watch_with_one_line(control_plane, fake_server, tmp_path):
    """A real apiserver cannot be made to send this: the fake server above does."""
    server = fake_server(b"<html>502 Bad Gateway</html>\n")
    kc = kubeconfig(control_plane, tmp_path / "kc", user={}, cluster={"server": server.url,
                                                                       "certificate-authority-data": None})
    w = Watch("devices", "-w", env={"KUBECONFIG": str(kc)})
    assert w.finish() == 1
    lines = w.err.splitlines()
    assert len(lines) == 2 and lines[0] == "No devices found.", w.err  # the first listing, then the failure
    assert lines[1].startswith("error: lost the watch of ") and lines[1].endswith(
        f' on {server.url}: an event is not JSON ("<html>502 Bad Gateway</html>")'), lines[1]


def test_a_watch_refused_after_the_listing_is_one_lost_watch_line(control_plane, fake_server, tmp_path):
    """The server went away between the listing and a watch's (re)opening: the same lost-watch line as a cut
    stream, naming the refusal. A real apiserver's death cannot be timed to fall there: the fake server stops
    listening once every kind's watch is open and ends them cleanly."""
    server = fake_server(b"", then_refuse=True)
    kc = kubeconfig(control_plane, tmp_path / "kc", user={}, cluster={"server": server.url,
                                                                       "certificate-authority-data": None})
    w = Watch("devices", "-w", env={"KUBECONFIG": str(kc)})
    assert w.finish() == 1
    lines = w.err.splitlines()
    assert len(lines) == 2 and lines[0] == "No devices found.", w.err
    assert lines[1].startswith("error: lost the watch of ") and lines[1].endswith(
        f" on {server.url}: the connection was refused"), lines[1]
