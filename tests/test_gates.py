"""The repository's own gates run with the tests: the linter must be clean on the whole tree."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def test_ruff_is_clean() -> None:
    p = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
