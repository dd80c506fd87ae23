"""How a dractl process ends: its output whole, its atexit work done, a full disk or a closed pipe one answer.

dractl leaves without the interpreter's teardown (``main._leave``: freeing millions of objects after a big
snapshot took most of a second); these run real processes to show that nothing a user sees is lost by it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import ROOT


def _env(tmp_path) -> dict[str, str]:
    return dict(os.environ, DRACTL_STATE=str(tmp_path / "state"), HOME=str(tmp_path), NO_COLOR="1",
                XDG_CACHE_HOME=str(tmp_path / "cache"))


def test_output_through_a_pipe_is_whole(dractl, tmp_path):
    subprocess.run([sys.executable, "-m", "dractl", "fake", "reset", "--nodes", "300"], env=_env(tmp_path),
                   cwd=ROOT, check=True, capture_output=True)
    p = subprocess.run([sys.executable, "-m", "dractl", "devices", "-o", "json"], env=_env(tmp_path), cwd=ROOT,
                       capture_output=True)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)  # a document cut short would not parse
    assert len(doc["items"]) == 300 * 8
    assert p.stdout.endswith(b"}\n")


def test_atexit_functions_still_run(tmp_path):
    mark = tmp_path / "atexit-ran"
    probe = ("import atexit, sys\n"
             f"atexit.register(lambda: open({str(mark)!r}, 'w').write('yes'))\n"
             "sys.argv = ['dractl', 'version']\n"
             "from dractl.cli.main import main\n"
             "main()\n")
    p = subprocess.run([sys.executable, "-c", probe], env=_env(tmp_path), cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("dractl ")
    assert mark.read_text() == "yes"


def test_a_full_disk_is_one_line_and_exit_1(tmp_path):
    with open("/dev/full", "wb") as full:
        p = subprocess.run([sys.executable, "-m", "dractl", "devices", "-o", "json"], env=_env(tmp_path), cwd=ROOT,
                           stdout=full, stderr=subprocess.PIPE, text=True)
    assert p.returncode == 1
    assert p.stderr == "error: cannot write the output: No space left on device\n"


def test_a_reader_that_goes_away_is_no_error(tmp_path):
    subprocess.run([sys.executable, "-m", "dractl", "fake", "reset", "--nodes", "300"], env=_env(tmp_path),
                   cwd=ROOT, check=True, capture_output=True)
    p = subprocess.Popen([sys.executable, "-m", "dractl", "devices", "-o", "json"], env=_env(tmp_path), cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stdout is not None and p.stderr is not None
    assert p.stdout.read(100).startswith(b"{")
    p.stdout.close()  # as `| head -c 100` does
    err = p.stderr.read()
    assert p.wait(timeout=60) == 0
    assert err == b""
