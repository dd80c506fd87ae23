"""Shared test helpers: run dractl in-process or as a real process, with a private fake-cluster state."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).parent.parent
CLUSTER = Path(__file__).parent / "cluster"
# Captured before any test swaps HOME: the control plane's binaries are cached outside the repo.
CLUSTER_CACHE = os.environ.get("DRACTL_CLUSTER_CACHE") or str(
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dractl-test-cluster"
)

# A suite started as a background job of a non-interactive shell inherits SIGINT ignored, and so would every
# dractl it starts: the tests that press Ctrl-C would then wait forever. Python's handler is reset to the
# default at exec, so the children get the disposition a terminal gives them.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


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


def blog_demo_docs() -> list[dict]:
    """The blog post's three demos as dractl ships them (copied verbatim from the post), without a namespace."""
    import yaml

    from dractl.demo.catalog import BLOG

    docs = [d for demo in BLOG for d in yaml.safe_load_all(demo.manifest()) if d]
    for d in docs:
        d["metadata"].pop("namespace", None)
    return docs


def fixture_path(*parts: str) -> str:
    return str(FIXTURES.joinpath(*parts))


@dataclass
class ControlPlane:
    """A real kube-apiserver, kube-controller-manager, kube-scheduler and KWOK nodes (tests/cluster)."""

    dir: Path
    kubeconfig: Path
    server: str
    nodes: list[str]
    api: object  # tests/cluster/kube.py API: server-side apply and reads as a kubectl user would

    def env(self) -> dict[str, str]:
        return {"KUBECONFIG": str(self.kubeconfig)}


def start_control_plane(d: Path, *args: str) -> ControlPlane:
    """Run tests/cluster/control-plane up D (building on a cache miss) and describe what it started."""
    env = dict(os.environ, DRACTL_CLUSTER_CACHE=CLUSTER_CACHE)
    p = subprocess.run([sys.executable, str(CLUSTER / "control-plane"), "up", str(d), *args],
                       env=env, capture_output=True, text=True, timeout=3600)
    if p.returncode != 0:
        logs = "".join(f"\n--- {f.name}\n" + f.read_text()[-3000:] for f in sorted((d / "logs").glob("*.log")))
        raise RuntimeError(f"control-plane up failed ({p.returncode}):\n{p.stderr[-5000:]}{logs}")
    sys.path.insert(0, str(CLUSTER))
    from kube import API  # type: ignore[import-not-found]

    info = json.loads((d / "env").read_text())
    return ControlPlane(d, d / "kubeconfig", info["server"], info["nodes"], API(info["server"], d / "pki"))


def stop_control_plane(d: Path) -> None:
    subprocess.run([sys.executable, str(CLUSTER / "control-plane"), "down", str(d)], timeout=300, check=False)


@pytest.fixture(scope="session")
def control_plane(tmp_path_factory):
    """One real v1.37.2 control plane shared by the session: two kind-like KWOK workers (dra-demo-worker,
    dra-demo-worker2), each with the dra-example-driver's eight GPUs published (DeviceClass gpu.example.com),
    as on the blog's kind cluster. Tests work in their own namespaces and leave cluster-wide objects as they
    found them.
    """
    d = tmp_path_factory.mktemp("control-plane")
    cp = start_control_plane(d, "--nodes", "2", "--devices-per-node", "8")
    try:
        yield cp
    finally:
        stop_control_plane(d)


@pytest.fixture(scope="session")
def bare_control_plane(tmp_path_factory):
    """A second real control plane with two KWOK workers and no DRA driver: for tests that publish devices."""
    d = tmp_path_factory.mktemp("bare-control-plane")
    cp = start_control_plane(d, "--nodes", "2")
    try:
        yield cp
    finally:
        stop_control_plane(d)
