"""The start-up path stays light: help and fake/snapshot listings never import kubernetes or celpy, and no
command imports pydantic (Typer's way of coercing values, about 90 ms of every start)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import ROOT, fixture_path

PROBE = """
import sys
from dractl.cli.main import main
code = main({args!r})
heavy = sorted(m for m in ('celpy', 'kubernetes', 'lark', 'pendulum', 'pydantic') if m in sys.modules)
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
        ["--fake", "fake", "reset", "--nodes", "2"],
        ["--fake", "claims", "-A", "-o", "wide"],
        ["version"],
    ],
)
def test_no_heavy_imports(args, tmp_path):
    env = {"DRACTL_STATE": str(tmp_path), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"}
    p = subprocess.run([sys.executable, "-c", PROBE.format(args=args)], capture_output=True, text=True, env=env,
                       cwd=ROOT)
    heavy = [line for line in p.stderr.splitlines() if line.startswith("HEAVY=")]
    assert heavy == ["HEAVY="], p.stderr


def test_a_repeated_file_option_keeps_pydantic_out(tmp_path):
    """`-f a -f b` is a list[str] option: dractl coerces it itself, so pydantic stays out there too."""
    f = tmp_path / "ns.yaml"
    f.write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a}\n")
    args = ["--fake", "fake", "delete", "--ignore-not-found", "-f", str(f), "-f", str(f)]
    env = {"DRACTL_STATE": str(tmp_path), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"}
    p = subprocess.run([sys.executable, "-c", PROBE.format(args=args)], capture_output=True, text=True, env=env,
                       cwd=ROOT)
    heavy = [line for line in p.stderr.splitlines() if line.startswith("HEAVY=")]
    assert len(heavy) == 1 and "pydantic" not in heavy[0], p.stderr


def test_every_parameter_is_a_plain_str_int_or_bool():
    """What keeps pydantic out: a parameter of another type would get Typer's pydantic coercion back."""
    import typer.main

    from dractl.cli.app import app
    from dractl.cli.helpfmt import PLAIN_TYPES

    def params(command, path):
        for p in command.params:
            yield path, p
        for name, sub in getattr(command, "commands", {}).items():
            yield from params(sub, f"{path} {name}")

    odd = [(path, p.name, p.type_descriptor.annotation) for path, p in params(typer.main.get_command(app), "dractl")
           if p.type_descriptor.annotation not in PLAIN_TYPES]
    assert odd == []


@pytest.mark.parametrize("args,code,err", [
    (["fake", "reset", "--nodes", "abc"], 2, "Invalid value for '--nodes': Input should be a valid integer"),
    (["fake", "reset", "--nodes", "3"], 0, ""),
])
def test_plain_values_are_still_checked(dractl, args, code, err):
    r = dractl(*args)
    assert r.code == code and err in r.err, r.err


LOADED = """
import sys
from dractl.cli.main import main
main({args!r})
from dractl.cli.app import COMMANDS
# cli.completers holds the global flags' completers, which the root needs
mods = {{m for m, _ in COMMANDS.values() if m in sys.modules}} - {{'dractl.cli.completers'}}
print('LOADED=' + ','.join(sorted(mods)), file=sys.stderr)
"""


@pytest.mark.parametrize("args,loaded", [
    (["--help"], ""),  # the root help lists every command from the generated table
    (["--fake", "devices"], "dractl.cli.commands.devices"),
    (["--fake", "claims", "--help"], "dractl.cli.commands.claims"),
])
def test_a_command_imports_only_its_own_module(args, loaded, tmp_path):
    env = {"DRACTL_STATE": str(tmp_path), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"}
    p = subprocess.run([sys.executable, "-c", LOADED.format(args=args)], capture_output=True, text=True, env=env,
                       cwd=ROOT)
    assert [line for line in p.stderr.splitlines() if line.startswith("LOADED=")] == [f"LOADED={loaded}"], p.stderr
