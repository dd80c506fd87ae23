"""Shared test helpers: run dractl in-process or as a real process, with a private fake-cluster state."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).parent.parent


@dataclass
class Run:
    code: int
    out: str
    err: str

    def json(self):
        return json.loads(self.out)


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path, monkeypatch):
    """No test sees the developer's kubeconfig or fake cluster."""
    monkeypatch.setenv("DRACTL_STATE", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.setenv("NO_COLOR", "1")
    yield


@pytest.fixture
def dractl(capsys):
    """Run dractl in this process: dractl("devices", "-o", "json") -> Run."""
    from dractl.cli.main import main

    def run(*args: str) -> Run:
        capsys.readouterr()
        code = main(list(args))
        cap = capsys.readouterr()
        return Run(code, cap.out, cap.err)

    return run


@pytest.fixture
def dractl_proc():
    """Run dractl as a real process (for start-up, stdin and import checks)."""

    def run(*args: str, input: bytes | None = None, env: dict | None = None, timeout: float = 60) -> Run:
        e = dict(os.environ)
        if env:
            e.update(env)
        p = subprocess.run(
            [sys.executable, "-m", "dractl", *args], input=input, capture_output=True, env=e, timeout=timeout, cwd=ROOT
        )
        return Run(p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"))

    return run


def fixture_path(*parts: str) -> str:
    return str(FIXTURES.joinpath(*parts))
