"""What NodeResourcesFit and the other node filters cost in ``dractl fake apply`` (run by hand).

``fake apply`` of 5,000 single-GPU pods onto 500 nodes x 10 GPUs (each node with allocatable), once with
pods that also request cpu and memory and once with the same pods without requests. Goal: with requests at
most 1.3x the time without, measured pair by pair (A B A B ...) so that the machine's drift cancels.

    python benchmarks/bench_pod_requests.py pairs [--runs 5]   # the pairs, their ratios and the median
    python benchmarks/bench_pod_requests.py prepare DIR         # for an outside timer: then
    python benchmarks/bench_pod_requests.py apply DIR with      # one timed command (and ... DIR without)

Each apply starts from a copy of the same freshly reset fake cluster, as a real process.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

from builders import docs_to_yaml, from_template, namespace, pod, template  # noqa: E402

NODES, GPUS, PODS = 500, 10, 5000


def pods_yaml(n: int, requests: bool, ns: str = "bench") -> str:
    def one(i: int) -> dict:
        p = pod(f"pod-{i:05d}", ns, [from_template("single-gpu")], image="busybox:1.37")
        if requests:
            p["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "500m", "memory": "1Gi"}
        return p

    return docs_to_yaml(namespace(ns), template("single-gpu", ns), *(one(i) for i in range(n)))


def env_for(state: str) -> dict[str, str]:
    env = dict(os.environ, DRACTL_STATE=state, NO_COLOR="1", HOME=os.path.dirname(state))
    env.pop("KUBECONFIG", None)
    return env


def dractl(env: dict[str, str], *args: str) -> str:
    p = subprocess.run([sys.executable, "-m", "dractl", *args], capture_output=True, env=env, cwd=ROOT)
    if p.returncode != 0:
        sys.exit(f"dractl {' '.join(args)} failed ({p.returncode}): {p.stderr.decode()[-2000:]}")
    return p.stdout.decode()


def prepare(d: str) -> None:
    os.makedirs(d, exist_ok=True)
    dractl(env_for(os.path.join(d, "pristine")), "--fake", "fake", "reset", "--nodes", str(NODES),
           "--devices-per-node", str(GPUS))
    for kind, req in (("with", True), ("without", False)):
        with open(os.path.join(d, f"pods-{kind}.yaml"), "w") as f:
            f.write(pods_yaml(PODS, req))


def apply(d: str, kind: str) -> tuple[float, float, str]:
    """Copy the pristine state, then time one ``dractl fake apply`` of the pods ``with``/``without`` requests:
    (wall seconds, cpu seconds of the process, its output)."""
    state = os.path.join(d, f"state-{kind}")
    shutil.rmtree(state, ignore_errors=True)
    shutil.copytree(os.path.join(d, "pristine"), state)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = dractl(env_for(state), "--fake", "fake", "apply", "-f", os.path.join(d, f"pods-{kind}.yaml"))
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=("pairs", "prepare", "apply"))
    ap.add_argument("dir", nargs="?")
    ap.add_argument("kind", nargs="?", choices=("with", "without"))
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    from compiled import compile_dractl

    compile_dractl()  # as an installed dractl: no command compiles a module anew
    if a.mode == "prepare":
        prepare(a.dir)
        return
    if a.mode == "apply":
        apply(a.dir, a.kind)
        return
    with tempfile.TemporaryDirectory() as tmp:
        prepare(tmp)
        apply(tmp, "without")  # warm-up
        walls: list[float] = []
        cpus: list[float] = []
        for _ in range(a.runs):
            w1, c1, out = apply(tmp, "with")
            w2, c2, out2 = apply(tmp, "without")
            assert out.count(" scheduled on ") == out2.count(" scheduled on ") == PODS, "not every pod was scheduled"
            walls.append(w1 / w2)
            cpus.append(c1 / c2)
            print(f"with requests {w1:.2f} s wall ({PODS / w1:.0f} pods/s), {c1:.2f} s cpu; without {w2:.2f} s wall "
                  f"({PODS / w2:.0f} pods/s), {c2:.2f} s cpu; ratio wall {w1 / w2:.3f}, cpu {c1 / c2:.3f}")
        for what, rs in (("wall", walls), ("cpu", cpus)):
            r = statistics.median(rs)
            print(f"median ratio ({what}): {r:.3f} (min {min(rs):.3f}, max {max(rs):.3f})   goal <= 1.3: "
                  f"{'ok' if r <= 1.3 else 'MISSED'}")


if __name__ == "__main__":
    main()
