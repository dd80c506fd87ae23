"""Start-up and listing speed of dractl, side by side with an empty Typer app.

Goals (issue 2):
- `dractl --help` within 1.3x the `--help` of an empty Typer app (two commands) on the same Typer;
- `dractl devices -o json` over a 10,000-device snapshot: at most 50 us per device beyond start-up;
- 50,000 devices in under 1 GiB of memory;
- `dractl cel` with the blog's 40Gi selector over the same 10,000 devices within 1.5x `devices -o json` (issue 3).

    python benchmarks/bench_cli.py [--runs 15]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from gen_snapshot import build  # noqa: E402

EMPTY_APP = """
import typer
app = typer.Typer()
@app.command()
def one(): pass
@app.command()
def two(): pass
app()
"""


def timed(cmd: list[str], runs: int, env: dict | None = None) -> float:
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env)
        samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def max_rss_mib(cmd: list[str], env: dict) -> float:
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(p.pid, 0)
    return usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    a = ap.parse_args()
    py = sys.executable
    env = dict(os.environ, NO_COLOR="1")
    with tempfile.TemporaryDirectory() as tmp:
        env["DRACTL_STATE"] = os.path.join(tmp, "state")
        empty = os.path.join(tmp, "empty_app.py")
        open(empty, "w").write(EMPTY_APP)
        t_empty = timed([py, empty, "--help"], a.runs)
        t_help = timed([py, "-m", "dractl", "--help"], a.runs, env)
        print(f"--help: empty Typer app {t_empty * 1000:.0f} ms, dractl {t_help * 1000:.0f} ms, "
              f"ratio {t_help / t_empty:.2f} (goal <= 1.30)")

        paths = {}
        for n_nodes in (1, 1250, 6250):
            p = os.path.join(tmp, f"snap-{n_nodes}.json")
            with open(p, "w") as f:
                json.dump(build(n_nodes, 8), f)
            paths[n_nodes] = p
        runs = max(3, a.runs // 3)
        t_small = timed([py, "-m", "dractl", "--from", paths[1], "devices", "-o", "json"], runs, env)
        t_10k = timed([py, "-m", "dractl", "--from", paths[1250], "devices", "-o", "json"], runs, env)
        per = (t_10k - t_small) / (10000 - 8) * 1e6
        print(f"devices -o json: 8 devices {t_small * 1000:.0f} ms, 10,000 devices {t_10k * 1000:.0f} ms, "
              f"{per:.1f} us/device beyond start-up (goal <= 50)")
        sel = "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0"
        t_cel = timed([py, "-m", "dractl", "--from", paths[1250], "cel", sel, "-o", "json"], runs, env)
        print(f"cel (blog's 40Gi selector) over 10,000 devices {t_cel * 1000:.0f} ms vs devices -o json "
              f"{t_10k * 1000:.0f} ms: ratio {t_cel / t_10k:.2f} (goal <= 1.50)")
        rss = max_rss_mib([py, "-m", "dractl", "--from", paths[6250], "devices", "-o", "json"], env)
        print(f"devices -o json over 50,000 devices: max RSS {rss:.0f} MiB (goal < 1024)")


if __name__ == "__main__":
    main()
