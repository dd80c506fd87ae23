"""How long `dractl demo` takes where no cluster is needed.

Goals (issue 9):
- `dractl demo run` on a machine without docker (nor kind, kubectl, helm, git) lists what is missing within
  a second;
- `dractl demo run --fake`: the three demos applied, checked and explained in the fake cluster (a fresh state
  each run), next to `dractl --fake devices` on the same state for scale;
- `dractl demo run --fake all`: every demo of the catalog published, applied, checked and cleaned up (a fresh
  state each run): wall and CPU seconds, peak RSS.

    python benchmarks/bench_demo.py [--runs 7]
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


def timed(cmd: list[str], runs: int, env: dict, before=None) -> tuple[float, int]:
    samples = []
    code = 0
    for _ in range(runs):
        if before:
            before()
        t = time.perf_counter()
        code = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env).returncode
        samples.append(time.perf_counter() - t)
    return statistics.median(samples), code


def usage(cmd: list[str], runs: int, env: dict, before=None) -> tuple[float, float, float, int]:
    """Medians of wall and CPU seconds, the highest peak RSS (MiB) and the last exit code of ``runs`` runs."""
    walls, cpus, rss = [], [], []
    code = 0
    for _ in range(runs):
        if before:
            before()
        t = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        _, status, ru = os.wait4(p.pid, 0)  # this child's own rusage
        walls.append(time.perf_counter() - t)
        cpus.append(ru.ru_utime + ru.ru_stime)
        rss.append(ru.ru_maxrss / 1024)
        code = os.waitstatus_to_exitcode(status)
    return statistics.median(walls), statistics.median(cpus), max(rss), code


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    a = ap.parse_args()
    from compiled import compile_dractl

    compile_dractl()  # as an installed dractl: no command compiles a module anew
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        state = os.path.join(tmp, "state")
        env = dict(os.environ, NO_COLOR="1", DRACTL_STATE=state, HOME=tmp, XDG_CACHE_HOME=os.path.join(tmp, "c"))
        env.pop("KUBECONFIG", None)
        no_tools = dict(env, PATH=os.path.join(tmp, "empty-bin"))
        missing, code = timed([py, "-m", "dractl", "demo", "run"], a.runs, no_tools)
        print(f"demo run without docker/kind/kubectl/helm/git: {missing * 1000:.0f} ms (exit {code}; goal < 1 s)")

        def fresh() -> None:
            shutil.rmtree(state, ignore_errors=True)

        run, code = timed([py, "-m", "dractl", "--fake", "demo", "run"], a.runs, env, before=fresh)
        devices, _ = timed([py, "-m", "dractl", "--fake", "devices"], a.runs, env)
        print(f"demo run --fake (3 demos, fresh state): {run * 1000:.0f} ms (exit {code}); "
              f"--fake devices: {devices * 1000:.0f} ms")
        wall, cpu, rss, code = usage([py, "-m", "dractl", "--fake", "demo", "run", "all"], min(a.runs, 5), env,
                                     before=fresh)
        print(f"demo run --fake all (every demo of the catalog, fresh state): {wall:.2f} s, {cpu:.2f} s of CPU, "
              f"peak {rss:.0f} MiB (exit {code}; median of {min(a.runs, 5)})")


if __name__ == "__main__":
    main()
