"""-w/--watch (as kubectl get -w): new lines when piped, an in-place redraw on a terminal, Ctrl-C ends it (130)."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time

from conftest import ROOT
from watchproc import Watch

from dractl.render.printers import Result, Table
from dractl.render.watch import Listing, watch

CLAIM = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c1, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com}
"""

POD = """apiVersion: v1
kind: Pod
metadata: {name: p1, namespace: default}
spec:
  containers: [{name: c, image: x}]
  resourceClaims:
  - {name: gpu, resourceClaimName: c1}
"""


def write(tmp_path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_piped_devices_watch_prints_the_changed_row_then_ctrl_c_ends_it(dractl, tmp_path):
    assert dractl("fake", "reset").code == 0
    w = Watch("devices", "-w")
    first = w.wait_for("gpu-7")
    assert first.splitlines()[0].startswith("NODE") and "allocated" not in first
    r = dractl("fake", "apply", "-f", write(tmp_path, "c.yaml", CLAIM + "---\n" + POD))
    assert r.code == 0, r.err
    out = w.wait_for("allocated")
    code, err = w.interrupt()
    assert (code, err) == (130, ""), err
    new = out[len(first):].splitlines()
    # one new line: the device the pod got, aligned under the first table's header
    assert len(new) == 1 and new[0].split()[3] == "gpu-0" and "allocated: default/c1" in new[0], out
    assert new[0].index("allocated") == first.splitlines()[0].index("STATUS")


def test_piped_claims_watch_marks_deleted_rows_and_follows_a_named_claim_away(dractl, tmp_path):
    assert dractl("fake", "reset").code == 0
    claim = write(tmp_path, "c.yaml", CLAIM)
    all_claims = Watch("claims", "-A", "--watch")
    all_claims.listed()  # the first (empty) listing: kubectl's notice on stderr, nothing on stdout
    assert dractl("fake", "apply", "-f", claim).code == 0
    out = all_claims.wait_for("c1")
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["NAMESPACE", "CLAIM", "STATE"]  # the header comes with the first row
    assert lines[1].split()[:3] == ["default", "c1", "pending"]
    named = Watch("claims", "c1", "-w")
    named.wait_for("c1")
    assert dractl("fake", "delete", "-f", claim).code == 0
    out = all_claims.wait_for("(deleted)")
    assert out.splitlines()[-1].split()[:3] == ["default", "c1", "pending"] and out.endswith("(deleted)\n")
    # a named claim that goes away is shown so, and the watch goes on (as kubectl get NAME -w)
    gone = named.wait_for("(deleted)")
    assert named.p.poll() is None
    code, err = named.interrupt()
    assert code == 130 and "Traceback" not in err, err
    assert gone.count("c1") == 2
    code, err = all_claims.interrupt()
    assert code == 130 and err == "No resources found.\n", err


def test_json_watch_prints_a_document_per_change_and_name_watch_a_name(dractl, tmp_path):
    assert dractl("fake", "reset").code == 0
    docs = Watch("pods", "-o", "json", "-w")
    names = Watch("pods", "-o", "name", "-w")
    docs.wait_for("}")  # its first listing (no pods); -o name prints nothing for none, whenever it starts
    assert dractl("fake", "apply", "-f", write(tmp_path, "p.yaml", CLAIM + "---\n" + POD)).code == 0
    docs.wait_for('"p1"')
    names.wait_for("pod/p1")
    assert names.interrupt()[0] == 130 and docs.interrupt()[0] == 130
    dec, text, seen = json.JSONDecoder(), docs.out, []
    i = 0
    while i < len(text.rstrip()):
        doc, i = dec.raw_decode(text, i)
        seen.append(doc)
        while i < len(text) and text[i].isspace():
            i += 1
    assert seen[0]["items"] == [] and seen[-1]["items"][0]["name"] == "p1"
    assert names.out == "pod/p1\n"


def test_watching_a_snapshot_is_refused_and_a_missing_name_is_not_found(dractl, tmp_path):
    snap = dractl("--fake", "snapshot")
    assert snap.code == 0
    r = dractl("--from", write(tmp_path, "dump.yaml", snap.out), "devices", "-w")
    assert r.code == 2 and r.out == "" and len(r.err.splitlines()) == 1
    assert "-w/--watch" in r.err and "dump.yaml does not change" in r.err
    r = dractl("claims", "nosuch", "-w")
    assert r.code == 1 and 'resourceclaims.resource.k8s.io "nosuch" not found' in r.err


def test_a_piped_watch_starts_a_fresh_table_when_the_columns_change():
    def listing(columns: list[str], rows: list[list[str]]) -> Listing:
        return Listing(Result(table=lambda: Table(columns, rows), document=dict), keys=("NAME",))

    states = [
        listing(["NAME", "STATE"], [["a", "free"], ["b", "free"]]),
        listing(["NAME", "STATE"], [["a", "free"], ["b", "taken"]]),
        listing(["NAME", "STATE", "HEALTH"], [["a", "free", "Healthy"], ["b", "taken", "Healthy"]]),
    ]
    out, err = io.StringIO(), io.StringIO()
    watch(states, "table", no_headers=False, out=out, err=err)
    assert out.getvalue() == (
        "NAME   STATE\na      free\nb      free\n"
        "b      taken\n"
        "\nNAME   STATE   HEALTH\na      free    Healthy\nb      taken   Healthy\n"
    )


# ---------------------------------------------------------------- terminal


class Terminal:
    """dractl ARGS on a pseudo-terminal that is its controlling terminal (so ^C is SIGINT)."""

    def __init__(self, *args: str, columns: int = 200, rows: int = 40) -> None:
        import fcntl
        import pty
        import struct
        import termios

        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        e = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "LINES")}
        e.update(TERM="xterm", PYTHONPATH=str(ROOT), DRACTL_FAKE_NOTICE="0")

        def controlling_terminal() -> None:
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.p = subprocess.Popen([sys.executable, "-m", "dractl", *args], stdin=slave, stdout=slave,
                                  stderr=slave, env=e, cwd=ROOT, preexec_fn=controlling_terminal)
        os.close(slave)
        self.data = b""

    def read_until(self, text: str, timeout: float = 15) -> str:
        import select

        deadline = time.monotonic() + timeout
        while text not in self.screen:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{text!r} not seen; terminal got:\n{self.data!r}")
            ready, _, _ = select.select([self.master], [], [], min(left, 0.1))
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:  # the child is gone
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"{text!r} not seen before the end; terminal got:\n{self.data!r}")
                self.data += chunk
        return self.screen

    @property
    def screen(self) -> str:
        return self.data.decode(errors="replace")

    def ctrl_c(self) -> int:
        return self.end(lambda: os.write(self.master, b"\x03"))

    def end(self, how, timeout: float = 15) -> int:
        import select

        how()
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:  # what it writes until it exits (a dractl that hangs fails below)
                ready, _, _ = select.select([self.master], [], [], 0.1)
                if not ready:
                    continue
                chunk = os.read(self.master, 65536)
                if not chunk:
                    break
                self.data += chunk
        except OSError:
            pass
        try:
            return self.p.wait(timeout=max(deadline - time.monotonic(), 1))
        finally:
            if self.p.poll() is None:
                self.p.kill()
            os.close(self.master)


def test_on_a_terminal_the_table_is_redrawn_in_place_and_ctrl_c_shows_the_cursor(dractl, tmp_path):
    assert dractl("fake", "reset").code == 0
    assert dractl("fake", "apply", "-f", write(tmp_path, "c.yaml", CLAIM)).code == 0
    t = Terminal("claims", "-w")
    t.read_until("pending")
    before = len(t.data)
    assert dractl("fake", "apply", "-f", write(tmp_path, "p.yaml", POD)).code == 0
    t.read_until("reserved")
    redraw = t.data[before:].decode()
    # the old frame is erased line by line (cursor up, erase line) and the new one drawn where it was
    assert "\x1b[1A\x1b[2K" in redraw and "reserved" in redraw and "\n" not in redraw.split("\x1b[2K")[0]
    assert "\x1b[?25l" in t.screen  # the cursor is hidden while watching
    code = t.ctrl_c()
    assert code == 130
    tail = t.screen.rsplit("^C", 1)[-1]
    assert tail.endswith("\x1b[?25h") and "Traceback" not in t.screen and "Interrupted" not in t.screen
    # killed (SIGTERM) rather than interrupted: the cursor is shown again all the same
    t = Terminal("devices", "-w")
    t.read_until("gpu-7")
    assert t.end(lambda: t.p.send_signal(signal.SIGTERM)) == 128 + signal.SIGTERM
    assert t.screen.endswith("\x1b[?25h") and "Traceback" not in t.screen


# ---------------------------------------------------------------- live


def test_live_claims_watch_sees_a_claim_created_through_the_api(control_plane, tmp_path):
    api, ns = control_plane.api, "watch-live"
    api.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    try:
        w = Watch("claims", "-A", "-w", "--kubeconfig", str(control_plane.kubeconfig))
        w.listed()  # the first listing is read; what follows comes through the API's watch
        api.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                    "metadata": {"name": "watched", "namespace": ns},
                    "spec": {"devices": {"requests": [{"name": "gpu",
                                                       "exactly": {"deviceClassName": "gpu.example.com"}}]}}})
        out = w.wait_for("watched")
        row = next(line for line in out.splitlines() if "watched" in line)
        assert row.split()[:4] == [ns, "watched", "pending", "gpu"]
        api.delete("ResourceClaim", "watched", ns)
        w.wait_for("(deleted)")
        code, err = w.interrupt()
        assert code == 130 and "Traceback" not in err, err
    finally:
        api.delete("Namespace", ns)
