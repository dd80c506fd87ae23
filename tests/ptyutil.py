"""Run dractl on a real pseudo-terminal, as a user at a terminal of a given width sees it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def run_in_pty(args: list[str], env: dict[str, str], columns: int = 80) -> str:
    """Run dractl on a real pseudo-terminal of ``columns`` columns; what the terminal shows."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    e = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "LINES")}
    e.update(env, TERM="xterm", PYTHONPATH=str(ROOT))
    p = subprocess.Popen([sys.executable, "-m", "dractl", *args], stdin=slave, stdout=slave, stderr=slave,
                         env=e, cwd=ROOT, close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    p.wait(timeout=60)
    os.close(master)
    return b"".join(chunks).decode(errors="replace")


def visible_lines(text: str) -> list[str]:
    """The lines a terminal shows, without colour escapes (a pty turns \\n into \\r\\n)."""
    return _ANSI.sub("", text).replace("\r\n", "\n").split("\n")[:-1] if text else []
