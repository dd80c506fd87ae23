"""The repository's own gates run with the tests: the linter and the type checker must be clean."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def test_ruff_is_clean() -> None:
    p = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr


def test_mypy_is_clean() -> None:
    # the [tool.mypy] settings in pyproject.toml say what is checked; no cache is written into the tree
    p = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir=/dev/null"], cwd=ROOT, capture_output=True,
                       text=True, timeout=900)
    assert p.returncode == 0, p.stdout + p.stderr
