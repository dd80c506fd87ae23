"""Go programs the tests judge dractl with (tests/oracle: upstream's CEL, allocator and sigs.k8s.io/yaml).

Each is built once per source into a cache outside the repo (modules come from the Go module proxy) and fed one
JSON document on stdin.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

# Captured when the tests are collected, before any test swaps HOME: Go's module and build caches live there.
GO_ENV = dict(os.environ)
CACHE = Path(os.environ.get("DRACTL_ORACLE_CACHE") or Path(
    os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dractl-oracle")


def source_hash(root: Path) -> str:
    """A digest of the Go sources and module files below ``root``."""
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file() and (p.suffix == ".go" or p.name in ("go.mod", "go.sum")):
            h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def build(root: Path, package: str, name: str) -> Path:
    """``go build`` the ``package`` of the module at ``root`` (once per source) into the cache: its binary."""
    go = shutil.which("go", path=GO_ENV.get("PATH"))
    assert go, "the oracles need Go (https://go.dev/dl/) on PATH"
    binary = CACHE / source_hash(root) / name
    if not binary.exists():
        binary.parent.mkdir(parents=True, exist_ok=True)
        tmp = binary.parent / f".{name}.{os.getpid()}"
        p = subprocess.run([go, "build", "-o", str(tmp), package], cwd=root, env=GO_ENV,
                           capture_output=True, text=True, timeout=1800)
        assert p.returncode == 0, f"go build {package} in {root} failed:\n{p.stderr}"
        tmp.replace(binary)
    return binary


def run(binary: Path, doc: Any, timeout: float = 600) -> Any:
    """What ``binary`` answers to the JSON document ``doc``."""
    p = subprocess.run([str(binary)], input=json.dumps(doc), capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)
