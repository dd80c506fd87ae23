"""`dractl demo`: the blog post's three demos in the fake cluster, and on kind through stand-in tools.

kind, docker and helm cannot run on the test machines: the kind tests put stand-in executables
first on PATH (tests/standin_tools.py) that record their calls and answer as the real tools do;
the stand-in kubectl is backed by dractl's fake cluster, whose control plane schedules the pods.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
import standin_tools
import yaml
from conftest import ROOT
from test_demos_fake import DEMO1, DEMO2, DEMO3


def test_list_and_show(dractl):
    r = dractl("demo", "list", "-o", "json")
    assert r.code == 0
    assert [(d["id"], d["name"], d["group"]) for d in r.json()["items"]][:3] == [
        ("1", "One GPU per pod", "blog"), ("2", "One GPU shared by two pods", "blog"),
        ("3", "Pick a GPU by its attributes", "blog")]
    # show prints the post's YAML (shipped inside the package) after the Namespace the post creates first
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "dra-demo"}}
    for n, text in (("1", DEMO1), ("2", DEMO2), ("3", DEMO3)):
        r = dractl("demo", "show", n)
        assert r.code == 0
        assert list(yaml.safe_load_all(r.out)) == [namespace, *yaml.safe_load_all(text)]


def test_show_applies_as_printed_on_an_empty_fake_cluster(dractl, tmp_path):
    for n in ("1", "2", "3"):
        f = tmp_path / f"demo{n}.yaml"
        f.write_text(dractl("demo", "show", n).out)
        r = dractl("--fake", "fake", "apply", "-f", str(f))
        assert r.code == 0, r.err
    r = dractl("--fake", "pods", "-n", "dra-demo", "-o", "name")
    assert sorted(r.out.split()) == sorted(f"pod/{p}" for p in ("pod-a", "pod-b", "shared-1", "shared-2",
                                                               "big-gpu", "huge-gpu")), r.out
    r = dractl("demo", "show", "4")
    assert r.code == 2 and r.err.count("\n") == 1 and "demo '4'" in r.err


def test_fake_run_all_shows_the_posts_outcome(dractl):
    r = dractl("--fake", "demo", "run")
    assert r.code == 0, r.out + r.err
    out = r.out
    for n, name in ((1, "One GPU per pod"), (2, "One GPU shared by two pods"), (3, "Pick a GPU by its attributes")):
        assert f"Demo {n}: {name}: PASS" in out
    assert "FAIL" not in out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.split()[:1] and
            line.split()[0] in ("pod-a", "pod-b", "shared-1", "shared-2", "big-gpu", "huge-gpu")}
    # POD PHASE NODE CLAIM DEVICE RESULT REASON
    assert rows["pod-a"][4] != rows["pod-b"][4]  # different GPUs
    assert rows["shared-1"][3:5] == rows["shared-2"][3:5] == ["shared-gpu", rows["shared-1"][4]]
    assert rows["huge-gpu"][:3] == ["huge-gpu", "Pending", "-"] and rows["huge-gpu"][4:6] == ["-", "pass"]
    assert " ".join(rows["huge-gpu"][6:]) == ("0/1 nodes are available: 1 cannot allocate all claims. preemption: "
                                              "0/1 nodes are available: 1 Preemption is not helpful for scheduling.")
    why = out[out.index("Why huge-gpu stays Pending"):]
    assert "100Gi" in why and "80Gi" in why and "memory is 80Gi, needs >= 100Gi" in why
    # the command in that line works when pasted
    command = why.split("(", 1)[1].split(")", 1)[0]
    assert command == "dractl --fake -n dra-demo pods huge-gpu --explain"
    pasted = dractl(*command.split()[1:])
    assert pasted.code == 0 and "memory is 80Gi, needs >= 100Gi" in pasted.out, pasted.err
    assert out.rstrip().endswith("3/3 demos show the post's outcome on the fake cluster.")

    # the objects stay, as in the post; a second run finds them and still passes
    claims = dractl("-n", "dra-demo", "claims", "-o", "json").json()["items"]
    assert len(claims) == 5
    again = dractl("--fake", "demo", "run", "-o", "json")
    assert again.code == 0 and again.json()["passed"] is True

    r = dractl("--fake", "demo", "cleanup")
    assert r.code == 0 and "namespace dra-demo deleted from the fake cluster" in r.out
    assert dractl("-n", "dra-demo", "claims", "-o", "json").json()["items"] == []
    assert {d["status"] for d in dractl("--fake", "devices", "-o", "json").json()["items"]} == {"free"}
    assert "nothing to clean up" in dractl("--fake", "demo", "cleanup").out


def test_json_contract(dractl):
    r = dractl("--fake", "demo", "run", "blog", "-o", "json")
    assert r.code == 0
    doc = r.json()
    assert doc["passed"] is True
    assert [d["id"] for d in doc["demos"]] == ["1", "2", "3"]
    for d in doc["demos"]:
        assert set(d) >= {"id", "name", "passed", "pods"} and d["passed"] is True
        for p in d["pods"]:
            assert set(p) == {"name", "phase", "claims", "devices", "reason"}
    pods = {p["name"]: p for d in doc["demos"] for p in d["pods"]}
    claims = {c["name"]: c for c in dractl("-n", "dra-demo", "claims", "-o", "json").json()["items"]}
    state = json.load(open(os.path.join(os.environ["DRACTL_STATE"], "cluster.json")))
    uid = {o["metadata"]["name"]: o["metadata"]["uid"] for o in state["items"] if o["kind"] == "ResourceClaim"}
    a, b = pods["pod-a"], pods["pod-b"]
    assert a["phase"] == b["phase"] == "Running" and a["reason"] is None
    assert len(a["claims"]) == len(b["claims"]) == 1 and a["claims"] != b["claims"] and a["devices"] != b["devices"]
    assert pods["shared-1"]["claims"] == pods["shared-2"]["claims"] == [uid["shared-gpu"]]
    assert pods["shared-1"]["devices"] == pods["shared-2"]["devices"] == [claims["shared-gpu"]["results"][0]["device"]]
    huge = pods["huge-gpu"]
    assert huge["phase"] == "Pending" and huge["devices"] == [] and "cannot allocate all claims" in huge["reason"]
    ex = doc["demos"][2]["explanation"]
    assert any("80Gi" in line and "100Gi" in line for line in ex["lines"])


def test_a_wrong_outcome_fails_with_the_reason(dractl):
    """One GPU on the node: demo 1's second pod cannot run, demo 2 still can't see its GPU taken."""
    assert dractl("fake", "reset", "--devices-per-node", "1").code == 0
    r = dractl("--fake", "demo", "run", "1")
    assert r.code == 1
    assert "Demo 1: One GPU per pod: FAIL" in r.out
    line = next(x for x in r.out.splitlines() if x.startswith("pod-b"))
    assert "fail" in line and "phase Pending, expected Running" in line and "cannot allocate all claims" in line
    assert "0/1 demo shows the post's outcome" in r.out
    j = dractl("--fake", "demo", "run", "1", "-o", "json").json()
    assert j["passed"] is False and j["demos"][0]["passed"] is False
    assert [p["name"] for p in j["demos"][0]["pods"] if p["reason"]] == ["pod-b"]


def test_no_nodes_in_the_fake_cluster(dractl, tmp_path):
    empty = tmp_path / "empty.yaml"
    empty.write_text("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n")
    assert dractl("fake", "load", str(empty)).code == 0
    r = dractl("--fake", "demo", "run", "1")
    assert r.code == 1
    assert "Demo 1: One GPU per pod: FAIL\n  cannot run: the fake cluster has no nodes; run 'dractl fake reset' first" \
        in r.out
    assert dractl("--fake", "demo", "run", "1", "-o", "json").json()["demos"][0]["error"].startswith(
        "the fake cluster has no nodes")


@pytest.mark.parametrize("args", [["demo", "--help"], ["demo", "list"], ["demo", "show", "3"],
                                  ["demo", "run", "--dry-run"], ["demo", "cleanup", "--all", "--dry-run"]])
def test_no_heavy_imports(args):
    """Listing, showing and planning the demos never load kubernetes or celpy."""
    probe = (f"import sys\nfrom dractl.cli.main import main\nmain({args!r})\n"
             "print(sorted(m for m in ('celpy', 'kubernetes') if m in sys.modules), file=sys.stderr)")
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert p.stderr.strip().splitlines()[-1] == "[]", p.stderr


def test_usage_errors(dractl):
    assert dractl("--fake", "demo", "run", "7").code == 2
    assert dractl("--fake", "demo", "run", "--timeout", "soon").code == 2
    assert dractl("--from", "x.yaml", "demo", "run").code == 2
    r = dractl("--fake", "demo", "cleanup", "--all")
    assert r.code == 2 and "--all" in r.err


# ---------------------------------------------------------------- kind, through stand-in tools


def test_dry_run_prints_the_posts_commands(dractl, tmp_path):
    r = dractl("demo", "run", "--dry-run")
    assert r.code == 0
    cache = os.path.join(os.environ["XDG_CACHE_HOME"], "dractl", "dra-example-driver-v0.5.0")
    lines = [line.split("   # ")[0] for line in r.out.splitlines()]
    assert lines[:6] == [
        "kind get clusters",
        "kind create cluster --name dra-demo --image kindest/node:v1.37.0",
        "kubectl --context kind-dra-demo api-versions",
        f"git clone --depth 1 -b v0.5.0 https://github.com/kubernetes-sigs/dra-example-driver.git {cache}",
        f"helm --kube-context kind-dra-demo upgrade -i dra-example-driver {cache}/deployments/helm/dra-example-driver"
        " --namespace dra-example-driver --create-namespace",
        "kubectl --context kind-dra-demo -n dra-example-driver rollout status ds/dra-example-driver-kubeletplugin"
        " --timeout=300s",
    ]
    assert lines[7:] == [f"dractl demo show {n} | kubectl --context kind-dra-demo apply -f -" for n in (1, 2, 3)]
    # the options change the plan; --context skips the bootstrap
    r = dractl("demo", "run", "2", "--dry-run", "--cluster-name", "x", "--node-image", "kindest/node:v1.36.1",
               "--driver-version", "v0.4.0", "-o", "json")
    cmds = [s["command"] for s in r.json()["items"]]
    assert ["kind", "create", "cluster", "--name", "x", "--image", "kindest/node:v1.36.1"] in cmds
    assert all(c[:3] == ["kubectl", "--context", "kind-x"] for c in cmds if c[0] == "kubectl")
    r = dractl("--context", "prod", "demo", "run", "3", "--dry-run")
    assert r.out.splitlines()[-1].startswith("dractl demo show 3 | kubectl --context prod apply -f -")
    assert not [line for line in r.out.splitlines() if line.startswith(("kind ", "helm ", "git "))]
    r = dractl("demo", "cleanup", "--all", "--dry-run")
    from dractl.demo.catalog import namespaces

    assert [line.split("   # ")[0] for line in r.out.splitlines()] == [
        f"kubectl --context kind-dra-demo delete namespace {' '.join(namespaces())} --ignore-not-found",
        "helm --kube-context kind-dra-demo -n dra-example-driver uninstall dra-example-driver",
        "kind delete cluster --name dra-demo",
    ]
    assert not os.path.exists(cache)


@pytest.fixture
def standins(tmp_path):
    """PATH with the stand-ins (and python) only; returns a runner of dractl as a real process."""
    bin_dir = tmp_path / "bin"
    standin_tools.install(str(bin_dir))
    log = tmp_path / "calls.log"
    env = dict(os.environ, PATH=str(bin_dir), STANDIN_LOG=str(log), STANDIN_DIR=str(tmp_path),
               STANDIN_CONTEXTS="kind-dra-demo", PYTHONPATH=str(ROOT))

    class S:
        def __init__(self):
            self.env = env
            self.log = str(log)
            self.bin = bin_dir

        def run(self, *args, timeout=120, **extra):
            p = subprocess.run([sys.executable, "-m", "dractl", *args], capture_output=True, text=True,
                               env={**self.env, **extra}, timeout=timeout, cwd=ROOT)
            return p

        def calls(self, tool=None):
            return [c for c in standin_tools.calls(self.log) if tool is None or c[0] == tool]

    return S()


def test_missing_tools_are_all_listed_with_hints(standins):
    os.unlink(standins.bin / "docker")
    os.unlink(standins.bin / "helm")
    p = standins.run("demo", "run", timeout=10, STANDIN_KIND_VERSION="kind v0.29.0 go1.24.2 linux/amd64")
    assert p.returncode == 1
    lines = p.stderr.splitlines()
    assert lines[0] == "error: dractl demo needs tools that are missing or too old:"
    assert lines[1].startswith("  - docker (or podman): not found; install Docker Engine (https://docs.docker.com")
    assert lines[2].startswith("  - kind v0.33.0 or newer: found v0.29.0; go install sigs.k8s.io/kind@v0.33.0")
    assert lines[3].startswith("  - helm v3: not found; https://helm.sh/docs/intro/install/")
    assert lines[4] == "Or run the demos in the embedded fake cluster, no tools needed: dractl demo run --fake"
    assert p.stdout == ""
    # nothing but the version probe ran
    assert standins.calls() == [["kind", "version"]]


def test_podman_instead_of_docker(standins):
    os.rename(standins.bin / "docker", standins.bin / "podman")
    p = standins.run("demo", "run", "1")
    assert p.returncode == 0, p.stderr
    assert ["kind", "create", "cluster", "--name", "dra-demo", "--image", "kindest/node:v1.37.0"] in standins.calls()
    p = standins.run("demo", "run", "--dry-run")
    assert "KIND_EXPERIMENTAL_PROVIDER=podman kind create cluster" in p.stdout


def test_kind_bootstrap_and_demos_through_standins(standins):
    p = standins.run("demo", "run", "-o", "json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["passed"] is True and doc["target"] == "context kind-dra-demo"
    assert [d["passed"] for d in doc["demos"]] == [True, True, True]
    huge = doc["demos"][2]["pods"][1]
    # the scheduler's FailedScheduling event, as kube-scheduler words it
    assert huge["reason"].startswith("0/1 nodes are available: 1 cannot allocate all claims. preemption:")
    calls = standins.calls()
    cache = os.path.join(os.environ["XDG_CACHE_HOME"], "dractl", "dra-example-driver-v0.5.0")
    assert calls[:8] == [
        ["kind", "version"],
        ["helm", "version", "--short"],
        ["kind", "get", "clusters"],
        ["kind", "create", "cluster", "--name", "dra-demo", "--image", "kindest/node:v1.37.0"],
        ["kubectl", "--context", "kind-dra-demo", "api-versions"],
        ["git", "clone", "--depth", "1", "-b", "v0.5.0", "https://github.com/kubernetes-sigs/dra-example-driver.git",
         cache],
        ["helm", "--kube-context", "kind-dra-demo", "upgrade", "-i", "dra-example-driver",
         f"{cache}/deployments/helm/dra-example-driver", "--namespace", "dra-example-driver", "--create-namespace"],
        ["kubectl", "--context", "kind-dra-demo", "-n", "dra-example-driver", "rollout", "status",
         "ds/dra-example-driver-kubeletplugin", "--timeout=300s"],
    ]
    # never a kubectl/helm call without the kind cluster's context; the pods' logs were read
    assert all(c[1:3] == ["--context", "kind-dra-demo"] for c in calls if c[0] == "kubectl")
    assert {c[c.index("logs") + 1] for c in calls if "logs" in c} == {"pod-a", "pod-b", "shared-1", "shared-2",
                                                                      "big-gpu"}

    # a second run reuses the cluster and the clone
    before = len(calls)
    p = standins.run("demo", "run", "3")
    assert p.returncode == 0, p.stderr
    again = standins.calls()[before:]
    assert not any(c[:2] == ["kind", "create"] or c[0] == "git" for c in again)
    assert "Demo 3: Pick a GPU by its attributes: PASS" in p.stdout and "memory is 80Gi, needs >= 100Gi" in p.stdout

    before = len(standins.calls())
    p = standins.run("demo", "cleanup", "--all")
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["deleted namespace dra-demo", "deleted helm release dra-example-driver",
                                     "deleted kind cluster dra-demo"]
    from dractl.demo.catalog import namespaces

    assert standins.calls()[before:] == [
        ["kind", "version"],
        ["helm", "version", "--short"],
        ["kind", "get", "clusters"],
        *(["kubectl", "--context", "kind-dra-demo", "delete", "namespace", ns, "--ignore-not-found"]
          for ns in namespaces()),
        ["helm", "--kube-context", "kind-dra-demo", "-n", "dra-example-driver", "uninstall", "dra-example-driver"],
        ["kind", "delete", "cluster", "--name", "dra-demo"],
    ]
    p = standins.run("demo", "cleanup")
    assert "nothing to clean up: no kind cluster dra-demo" in p.stdout


def test_context_runs_the_demos_on_a_real_control_plane(control_plane, dractl_proc):
    """--context through the live source (no kubectl on PATH): the real resourceclaim controller and
    kube-scheduler, KWOK nodes (no containers, so no logs to read), the example driver's GPUs on two nodes."""
    ctx = json.loads(control_plane.kubeconfig.read_text())["current-context"]
    env = {"KUBECONFIG": str(control_plane.kubeconfig), "PATH": "/nonexistent"}
    try:
        r = dractl_proc("--context", ctx, "demo", "run", "-o", "json", "--timeout", "120s", env=env, timeout=400)
        assert r.code == 0, r.err + r.out
        doc = r.json()
        assert doc["passed"] is True and [d["passed"] for d in doc["demos"]] == [True, True, True]
        pods = {p["name"]: p for d in doc["demos"] for p in d["pods"]}
        assert {pods[p]["phase"] for p in ("pod-a", "pod-b", "shared-1", "shared-2", "big-gpu")} == {"Running"}
        assert pods["shared-1"]["claims"] == pods["shared-2"]["claims"]
        # the real scheduler's FailedScheduling event
        assert pods["huge-gpu"]["reason"].startswith("0/2 nodes are available: 2 cannot allocate all claims.")
        lines = doc["demos"][2]["explanation"]["lines"]
        assert any("80Gi" in line and "100Gi" in line for line in lines)
        table = dractl_proc("--context", ctx, "demo", "run", "3", env=env, timeout=300)
        assert table.code == 0 and "Demo 3: Pick a GPU by its attributes: PASS" in table.out
    finally:
        r = dractl_proc("--context", ctx, "demo", "cleanup", env=env, timeout=120)
    assert r.code == 0 and r.out.startswith("namespace dra-demo deleted"), r.out + r.err


def test_pod_logs_that_name_another_device_fail(standins):
    p = standins.run("demo", "run", "1", STANDIN_WRONG_LOGS="1")
    assert p.returncode == 1
    assert "Demo 1: One GPU per pod: FAIL" in p.stdout
    rows = [line for line in p.stdout.splitlines() if line.startswith(("pod-a", "pod-b"))]
    assert len(rows) == 2
    assert all("fail" in r and "container sees GPU_DEVICE_7=gpu-7, allocated gpu-" in r for r in rows)


def test_ctrl_c_stops_cleanly_and_says_what_is_left(standins):
    proc = subprocess.Popen([sys.executable, "-m", "dractl", "demo", "run"], env={**standins.env,
                            "STANDIN_HANG": "rollout"}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT)
    try:
        deadline = time.monotonic() + 60
        while not any("rollout" in c for c in standins.calls()):
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert "Traceback" not in err
    assert "Interrupted while waiting for the kubelet plugin's rollout." in err
    assert ("Left behind: kind cluster dra-demo; helm release dra-example-driver in namespace dra-example-driver."
            in err)
    assert "'dractl demo cleanup --all' also the driver and the kind cluster" in err


def test_examples_on_kind_through_standins(standins):
    """Each example's Helm values installed before it; every container's log read; both examples pass."""
    p = standins.run("demo", "run", "basic-resourceclaim-opaque-config,gpu-allow-multiple-allocations", "-o", "json")
    assert p.returncode == 0, p.stderr + p.stdout
    doc = json.loads(p.stdout)
    assert [d["id"] for d in doc["demos"]] == ["basic-resourceclaim-opaque-config", "gpu-allow-multiple-allocations"]
    checks = [c["check"] for d in doc["demos"] for c in d["checks"]]
    assert "ts-ctr0/1 see their GPU time-sliced (Long), sp-ctr0/1 theirs space-partitioned (10)" in checks
    calls = standins.calls()
    helm = [c for c in calls if c[0] == "helm" and "upgrade" in c]
    assert [c[c.index("--create-namespace") + 1:] for c in helm] == [[], ["--set", "gpuAllowMultipleAllocations=true"]]
    logs = [(c[c.index("logs") + 1], c[-1]) for c in calls if "logs" in c]
    assert {ctr for pod, ctr in logs if pod == "pod0"} >= {"ts-ctr0", "ts-ctr1", "sp-ctr0", "sp-ctr1"}
    # each example deleted its namespace after its checks
    assert ["kubectl", "--context", "kind-dra-demo", "delete", "namespace", "gpu-allow-multiple-allocations",
            "--ignore-not-found"] in calls
