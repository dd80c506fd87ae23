"""Speed of a TAB: dractl's claim-name completion side by side with an empty Typer app.

Goal (issue 5): completing claim names from the fake cluster takes at most 1.3x a TAB in
an empty Typer app (two commands, one completion callback) on the same Typer and machine.
Both are started the same way (``python SCRIPT`` with the completion variable set), runs
are interleaved so load on the machine hits both alike, and the median is reported.

    python benchmarks/bench_completion.py [--runs 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))

from builders import claim, docs_to_yaml, from_claim, namespace, pod

EMPTY_APP = """
import typer
app = typer.Typer()
def names(incomplete: str):
    return [n for n in ("alpha", "beta", "gamma") if n.startswith(incomplete)]
@app.command()
def one(name: str = typer.Option("", "--name", autocompletion=names)): pass
@app.command()
def two(): pass
app(prog_name="emptyapp")
"""

DRACTL = """
import sys
from dractl.cli.main import main
sys.exit(main())
"""

# Until a command completes claim names, this stands in for one: the real fast path, with a
# `claim NAME` command added to the table (the names come from cluster.claims like any other).
DRACTL_WITH_CLAIM = """
import sys
from dractl.complete.table import TABLE
TABLE["commands"]["claim"] = {
    "help": "", "options": [], "args": [{"name": "name", "nargs": 1, "kind": "claims"}], "commands": {}
}
from dractl.cli.main import main
sys.exit(main())
"""


def claims_yaml(namespaces: tuple[str, ...] = ("default", "team-a"), per_namespace: int = 10) -> str:
    docs = []
    for ns in namespaces:
        if ns != "default":
            docs.append(namespace(ns))
        docs += [claim(f"claim-{i}", ns) for i in range(per_namespace)]
        docs += [pod(f"pod-{i}", ns, [from_claim(f"claim-{i}")]) for i in range(3)]
    return docs_to_yaml(*docs)


def find_kind(node: dict, kind: str, path: tuple[str, ...] = ()) -> list[str] | None:
    """Words that put the cursor on a value of ``kind``: [*command path, option] or the path alone (argument)."""
    for o in node["options"]:
        if o.get("kind") == kind and o["value"]:
            return [*path, o["names"][0]]
    if node["args"] and node["args"][0].get("kind") == kind:
        return list(path)
    for name, sub in node["commands"].items():
        found = find_kind(sub, kind, (*path, name))
        if found is not None:
            return found
    return None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    a = ap.parse_args()
    from compiled import compile_dractl

    compile_dractl()  # as an installed dractl: no command compiles a module anew
    py = sys.executable
    from dractl.complete.table import TABLE

    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, DRACTL_STATE=os.path.join(tmp, "state"), HOME=tmp)
        env.pop("KUBECONFIG", None)  # no kubeconfig: the fake cluster (a named missing file is an error)
        empty = os.path.join(tmp, "emptyapp.py")
        dractl = os.path.join(tmp, "dractl")
        open(empty, "w").write(EMPTY_APP)
        open(dractl, "w").write(DRACTL)
        manifest = os.path.join(tmp, "claims.yaml")
        open(manifest, "w").write(claims_yaml())
        for cmd in (["fake", "reset", "--nodes", "3"], ["fake", "apply", "-f", manifest]):
            subprocess.run([py, dractl, *cmd], env=env, check=True, stdout=subprocess.DEVNULL)

        words = find_kind(TABLE, "claims")
        script = dractl
        if words is None:  # no command completes claims yet: use a stand-in `claim NAME` command
            script = os.path.join(tmp, "dractl-with-claim")
            open(script, "w").write(DRACTL_WITH_CLAIM)
            words = ["claim"]
        dractl_cmd = [py, script, "-n", "team-a", *words, ""]
        dractl_env = dict(env, _DRACTL_COMPLETE="zsh")
        empty_cmd = [py, empty]
        empty_env = dict(env, _EMPTYAPP_COMPLETE="complete_bash", COMP_WORDS="emptyapp one --name ", COMP_CWORD="3")

        out = subprocess.run(dractl_cmd, env=dractl_env, capture_output=True, text=True).stdout
        got = [line.split("\t")[0] for line in out.splitlines()[:-1]]
        check = subprocess.run(empty_cmd, env=empty_env, capture_output=True, text=True).stdout.split()
        assert check == ["alpha", "beta", "gamma"], check
        assert got == [f"claim-{i}" for i in range(10)], out

        t_empty: list[float] = []
        t_dractl: list[float] = []
        for _ in range(a.runs):
            for cmd, e, samples in ((empty_cmd, empty_env, t_empty), (dractl_cmd, dractl_env, t_dractl)):
                t = time.perf_counter()
                subprocess.run(cmd, env=e, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
                samples.append(time.perf_counter() - t)
        me, md = statistics.median(t_empty), statistics.median(t_dractl)
        print(f"TAB, median of {a.runs}: empty Typer app {me * 1000:.0f} ms, dractl claim names {md * 1000:.0f} ms "
              f"({' '.join(words)} <TAB>: {len(got)} candidates), ratio {md / me:.2f} (goal <= 1.30)")


if __name__ == "__main__":
    main()
