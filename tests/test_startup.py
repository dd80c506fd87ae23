"""The start-up path stays light: help and fake/snapshot listings never import kubernetes or celpy."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import ROOT, fixture_path

PROBE = """
import sys
from dractl.cli.main import main
code = main({args!r})
heavy = sorted(m for m in ('celpy', 'kubernetes', 'lark', 'pendulum') if m in sys.modules)
print('HEAVY=' + ','.join(heavy), file=sys.stderr)
"""


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["devices", "--help"],
        ["--fake", "devices"],
        ["--from", fixture_path("dra-example-driver", "derived", "resourceslice-gpu-default.yaml"), "devices", "-o",
         "json"],
        ["--fake", "slices"],
        ["version"],
    ],
)
def test_no_heavy_imports(args, tmp_path):
    env = {"DRACTL_STATE": str(tmp_path), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"}
    p = subprocess.run([sys.executable, "-c", PROBE.format(args=args)], capture_output=True, text=True, env=env,
                       cwd=ROOT)
    heavy = [line for line in p.stderr.splitlines() if line.startswith("HEAVY=")]
    assert heavy == ["HEAVY="], p.stderr
