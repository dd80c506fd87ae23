"""The fake cluster's scheduler against the real kube-scheduler v1.37.2 on the same workload.

    python benchmarks/bench_real_scheduler.py [--nodes 500] [--devices 10] [--pods 5000] [--scheduler-qps 50]

Workload: N nodes x D example GPUs, then P pods made from one single-GPU ResourceClaimTemplate.
- real: tests/cluster/control-plane (etcd, kube-apiserver, KCM with the resourceclaim controller,
  kube-scheduler, KWOK); the pods are created with 8 client threads; timed from the first create to the
  moment every pod is bound (spec.nodeName set, claim allocated and reserved by the real scheduler).
- fake: `dractl fake reset --nodes N --devices-per-node D` then one `dractl fake apply -f` of the same file.
Prints both throughputs side by side. The real scheduler's rate is bounded by its client rate (five writes
per pod at --scheduler-qps, default 50/s) and the KCM's (two writes per pod).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))


def workload(pods: int, ns: str = "bench") -> list[dict]:
    objs: list[dict] = [{
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
        "metadata": {"name": "single-gpu", "namespace": ns},
        "spec": {"spec": {"devices": {"requests": [
            {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}},
    }]
    for i in range(pods):
        objs.append({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"pod-{i:05d}", "namespace": ns},
            "spec": {"containers": [{"name": "ctr", "image": "busybox:1.37",
                                     "resources": {"claims": [{"name": "gpu"}]}}],
                     "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "single-gpu"}]},
        })
    return objs


def real(args: argparse.Namespace) -> tuple[float, int]:
    from conftest import start_control_plane, stop_control_plane

    with tempfile.TemporaryDirectory() as tmp:
        cp = start_control_plane(Path(tmp) / "cp", "--nodes", str(args.nodes), "--devices-per-node",
                                 str(args.devices), "--scheduler-qps", str(args.scheduler_qps))
        try:
            api = cp.api
            api.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "bench"}})
            objs = workload(args.pods)
            api.create(objs[0])
            t0 = time.monotonic()
            with ThreadPoolExecutor(8) as ex:
                list(ex.map(api.create, objs[1:]))
            created = time.monotonic() - t0
            bound = 0
            while time.monotonic() - t0 < args.timeout:
                items = api.get("Pod", namespace="bench")["items"]
                bound = sum(1 for p in items if p["spec"].get("nodeName"))
                if bound >= args.pods:
                    break
                time.sleep(1)
            took = time.monotonic() - t0
            print(f"real: created {args.pods} pods in {created:.1f}s; {bound} bound after {took:.1f}s", file=sys.stderr)
            return took, bound
        finally:
            stop_control_plane(cp.dir)


def fake(args: argparse.Namespace) -> tuple[float, int]:
    import yaml

    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, DRACTL_STATE=str(Path(tmp) / "state"), NO_COLOR="1")
        env.pop("KUBECONFIG", None)
        dr = [sys.executable, "-m", "dractl", "--fake"]
        subprocess.run([*dr, "fake", "reset", "--nodes", str(args.nodes), "--devices-per-node", str(args.devices)],
                       env=env, check=True, capture_output=True)
        f = Path(tmp) / "pods.yaml"
        ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "bench"}}
        f.write_text(yaml.safe_dump_all([ns, *workload(args.pods)]))
        t0 = time.monotonic()
        p = subprocess.run([*dr, "fake", "apply", "-f", str(f)], env=env, capture_output=True, text=True)
        took = time.monotonic() - t0
        out = subprocess.run([*dr, "-n", "bench", "claims", "-o", "json"], env=env, capture_output=True, text=True)
        items = json.loads(out.stdout).get("items", []) if out.returncode == 0 else []
        allocated = sum(1 for c in items if c.get("results") or c.get("state") in ("allocated", "reserved"))
        if p.returncode != 0:
            print(p.stderr[-500:], file=sys.stderr)
        return took, allocated


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=500)
    ap.add_argument("--devices", type=int, default=10)
    ap.add_argument("--pods", type=int, default=5000)
    ap.add_argument("--scheduler-qps", type=int, default=50)
    ap.add_argument("--timeout", type=float, default=1800)
    args = ap.parse_args()
    from compiled import compile_dractl

    compile_dractl()  # as an installed dractl: no command compiles a module anew
    ft, fn = fake(args)
    rt, rn = real(args)
    print(f"{'':6} {'pods':>6} {'seconds':>8} {'pods/s':>8}")
    print(f"{'fake':6} {fn:>6} {ft:>8.1f} {fn / ft:>8.1f}")
    print(f"{'real':6} {rn:>6} {rt:>8.1f} {rn / rt:>8.1f}   (kube-scheduler client rate {args.scheduler_qps}/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
