"""Start-up and listing speed of dractl, side by side with an empty Typer app.

Goals (issues 2, 3, 18):
- `dractl --help` within 1.3x the `--help` of an empty Typer app (two commands) on the same Typer;
- `dractl devices -o json`: at most 25 us per device beyond start-up, from 1,000 to 10,000 devices;
- 100,000 devices in at most 512 MiB peak RSS and at most 2x the time of a bare Python process that only
  loads the same JSON file and dumps it back (the floor for any Python tool);
- `dractl cel` with the blog's 40Gi selector over the same 10,000 devices within 1.5x `devices -o json` (issue 3).

Each figure is a median; the load average is printed with each (the machine may be shared). The ``devices``
and ``cel`` figures are first reads (each run without the file's cached index: the file is validated; the CEL
grammar's tables, cached once per machine, are kept); a JSON file over 256 KiB
read again takes its index from the cache (``dractl/sources/snapindex.py``): the last lines time such later reads.

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
from forks import wait_for_forks  # noqa: E402
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
    return statistics.median(run(cmd, env)[0] for _ in range(runs))


def first_reads(cmd: list[str], runs: int, env: dict, tmp: str) -> list[tuple[float, float]]:
    """Runs of ``cmd``, each a first read of its file: no snapshot index cached.

    The rest of dractl's cache stays, as on any machine dractl ran on before: the CEL grammar's parse tables
    (``cel/backend.py``), built once per machine, are made by a warm-up run and kept.
    """
    import shutil

    cache = tempfile.mkdtemp(dir=tmp)
    cenv = dict(env, XDG_CACHE_HOME=cache)
    subprocess.run([sys.executable, "-m", "dractl", "--fake", "cel", "true", "-o", "name"], env=cenv,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    out = []
    for _ in range(runs):
        shutil.rmtree(os.path.join(cache, "dractl", "snapshots"), ignore_errors=True)
        out.append(run(cmd, cenv))
    return out


def run(cmd: list[str], env: dict | None = None) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB) of one run, its output thrown away."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, _, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    wait_for_forks(cmd)
    return wall, usage.ru_maxrss / 1024


def load() -> str:
    return f"load average {os.getloadavg()[0]:.1f}"


FLOOR = "import json, sys; sys.stdout.write(json.dumps(json.load(open(sys.argv[1]))))"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    a = ap.parse_args()
    from compiled import compile_dractl

    compile_dractl()  # as an installed dractl: no command compiles a module anew
    py = sys.executable
    env = dict(os.environ, NO_COLOR="1")
    with tempfile.TemporaryDirectory() as tmp:
        env["DRACTL_STATE"] = os.path.join(tmp, "state")
        empty = os.path.join(tmp, "empty_app.py")
        open(empty, "w").write(EMPTY_APP)
        t_empty = timed([py, empty, "--help"], a.runs)
        t_help = timed([py, "-m", "dractl", "--help"], a.runs, env)
        print(f"--help: empty Typer app {t_empty * 1000:.0f} ms, dractl {t_help * 1000:.0f} ms, "
              f"ratio {t_help / t_empty:.2f} (goal <= 1.30); {load()}", flush=True)

        paths = {}
        for n_nodes in (125, 1250, 12500):
            p = os.path.join(tmp, f"snap-{n_nodes}.json")
            with open(p, "w") as f:
                json.dump(build(n_nodes, 8), f)
            paths[n_nodes] = p
        runs = max(3, a.runs // 3)

        def first(cmd: list[str]) -> float:
            return statistics.median(t for t, _ in first_reads(cmd, runs, env, tmp))

        devices = [py, "-m", "dractl", "--from", "{}", "devices", "-o", "json"]
        t_1k = first([paths[125] if w == "{}" else w for w in devices])
        t_10k = first([paths[1250] if w == "{}" else w for w in devices])
        per = (t_10k - t_1k) / 9000 * 1e6
        print(f"devices -o json: 1,000 devices {t_1k * 1000:.0f} ms, 10,000 devices {t_10k * 1000:.0f} ms, "
              f"{per:.1f} us/device beyond start-up (goal <= 25); {load()}", flush=True)
        sel = "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0"
        t_cel = first([py, "-m", "dractl", "--from", paths[1250], "cel", sel, "-o", "json"])
        print(f"cel (blog's 40Gi selector) over 10,000 devices {t_cel * 1000:.0f} ms vs devices -o json "
              f"{t_10k * 1000:.0f} ms: ratio {t_cel / t_10k:.2f} (goal <= 1.50); {load()}", flush=True)
        big = first_reads([py, "-m", "dractl", "--from", paths[12500], "devices", "-o", "json"], runs, env, tmp)
        floor = [run([py, "-c", FLOOR, paths[12500]]) for _ in range(runs)]
        t_big, t_floor = statistics.median(t for t, _ in big), statistics.median(t for t, _ in floor)
        print(f"devices -o json over 100,000 devices: {t_big:.2f} s, peak RSS {max(r for _, r in big):.0f} MiB "
              f"(goal <= 512); a bare Python load and dump of the same JSON {t_floor:.2f} s, peak RSS "
              f"{max(r for _, r in floor):.0f} MiB: ratio {t_big / t_floor:.2f} (goal <= 2.0); {load()}", flush=True)

        warm = dict(env, XDG_CACHE_HOME=tempfile.mkdtemp(dir=tmp))
        later = {}
        for n_nodes in (125, 1250, 12500):
            cmd = [py, "-m", "dractl", "--from", paths[n_nodes], "devices", "-o", "json"]
            run(cmd, warm)  # the first read leaves the index
            later[n_nodes] = timed(cmd, runs, warm)
        per = (later[1250] - later[125]) / 9000 * 1e6
        print(f"later reads (index cached): devices -o json 1,000 devices {later[125] * 1000:.0f} ms, 10,000 "
              f"{later[1250] * 1000:.0f} ms ({per:.1f} us/device), 100,000 {later[12500]:.2f} s "
              f"(ratio to the bare load and dump {later[12500] / t_floor:.2f}); {load()}")

if __name__ == "__main__":
    main()
