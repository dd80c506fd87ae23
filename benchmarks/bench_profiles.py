"""How fast the fake cluster profiles are built: NVIDIA's slices for a 5,000-node cluster.

    python benchmarks/bench_profiles.py [--nodes 5000] [--gpus 8] [--runs 3]

Prints the best of the runs for full GPUs (nvidia-gpu) and Dynamic MIG (nvidia-mig: 26 devices per GPU),
the generators a scale benchmark imports (dractl.control.profiles.nvidia).
"""

from __future__ import annotations

import argparse
import time

from dractl.control.profiles import nvidia


def best_of(runs: int, fn) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--nodes", type=int, default=5000)
    p.add_argument("--gpus", type=int, default=8)
    p.add_argument("--runs", type=int, default=3)
    a = p.parse_args()
    names = [f"node-{i}" for i in range(a.nodes)]
    for label, gen in (("nvidia-gpu", nvidia.gpu_slices), ("nvidia-mig", nvidia.mig_slices)):
        devices = sum(len(s["spec"].get("devices") or []) for s in gen(names[0], a.gpus)) * a.nodes
        t = best_of(a.runs, lambda gen=gen: [gen(n, a.gpus) for n in names])
        print(f"{label}: {a.nodes} nodes x {a.gpus} GPUs = {devices} devices in {t:.2f} s "
              f"({t / devices * 1e6:.1f} us/device)")


if __name__ == "__main__":
    main()
