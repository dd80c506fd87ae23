#!/usr/bin/env python3
"""Record kube-scheduler's plugin test tables as data: tests/fixtures/upstream/scheduler-<plugin>.json.

    python3 tests/oracle/schedtables/generate.py [plugin ...]     (default: every plugin in PLUGINS)

Needs Go and the consumer module tests/cluster/build.sh makes (its go.mod pins k8s.io/kubernetes and the
staging modules). For each plugin, the upstream package (pkg/scheduler/framework/plugins/<plugin>) is copied
into a scratch module with zz_dump_test.go added and its test files patched so that every table case, the
objects each plugin instance is set up with and every PreFilter/Filter/AddPod/RemovePod/PreScore/Score/
NormalizeScore call (with upstream's answer and the plugin's cycle state after it) are recorded; upstream's
tests then run unchanged (they must pass) and the recording is compacted into the fixture. Nothing here runs
during dractl's tests; the fixtures are committed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

K8S_VERSION = "v1.37.2"
HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent.parent / "fixtures" / "upstream"
CACHE = Path(os.environ.get("DRACTL_CLUSTER_CACHE")
             or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dractl-test-cluster")
SCRATCH = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dractl-schedtables"

#: fixture name -> (plugin package, the test files whose tables are recorded, record cache.NewSnapshot calls)
PLUGINS: dict[str, tuple[str, tuple[str, ...], bool]] = {
    "podtopologyspread": ("podtopologyspread", ("filtering_test.go", "scoring_test.go"), False),
    "interpodaffinity": ("interpodaffinity", ("filtering_test.go", "scoring_test.go"), False),
    "noderesources-score": ("noderesources", ("*",), True),
    "tainttoleration": ("tainttoleration", ("taint_toleration_test.go",), True),
    "nodeaffinity": ("nodeaffinity", ("node_affinity_test.go",), True),
    "imagelocality": ("imagelocality", ("image_locality_test.go",), True),
}


def go_env(name: str) -> str:
    return subprocess.check_output(["go", "env", name], text=True).strip()


def strip_benchmarks(src: str) -> str:
    out, skip = [], False
    for line in src.splitlines(keepends=True):
        if line.startswith("func Benchmark"):
            skip = True
        if not skip:
            out.append(line)
        if skip and line.startswith("}"):
            skip = False
    return "".join(out)


RECV = r"(\b\w+(?:\.\([\w.*]+\))?(?:\.ScoreExtensions\(\))?)"
CALLS = (("PreFilter", "dumpPreFilter"), ("Filter", "dumpFilter"), ("PreScore", "dumpPreScore"),
         ("Score", "dumpScore"), ("NormalizeScore", "dumpNormalize"), ("AddPod", "dumpAddPod"),
         ("RemovePod", "dumpRemovePod"))


def _functions(src: str) -> list[str]:
    """The source cut before each top-level func."""
    parts = re.split(r"(?m)^(?=func )", src)
    return [p for p in parts if p]


def patch(src: str, snapshots: bool) -> str:
    """Record each case (after t.Run(tt.name ...) or tCtx.SyncTest(tt.name ...)), each plugin set-up (and, with
    ``snapshots``, each cache.NewSnapshot) and each call to the plugin."""
    out = []
    for block in _functions(strip_benchmarks(src)):
        tv = "tCtx" if "tCtx ktesting.TContext" in block else "t"
        block = re.sub(
            r"(\n(\s*)(?:t\.Run|tCtx\.SyncTest|tCtx\.Run)\((?:fmt\.Sprintf\(\"[^\"]*\", )?(\w+)\.name[^\n]*"
            r"func\((t \*testing\.T|tCtx ktesting\.TContext)\) \{\n)",
            lambda m: m.group(1) + m.group(2) + "\tdumpCase(" + m.group(4).split()[0] + ", " + m.group(3) + ")\n",
            block)
        block = re.sub(r"pl, err := New\(ctx, &(\w+)\.config, f, ",
                       r"pl, err := dumpNew(t, \1.objs, ctx, &\1.config, f, ", block)
        block = block.replace("plugintesting.SetupPluginWithInformers(", "dumpSetupPluginWithInformers(")
        block = block.replace("plugintesting.SetupPlugin(", "dumpSetupPlugin(")
        if snapshots:
            block = block.replace("cache.NewSnapshot(", f"dumpNewSnapshot({tv}, ")
        for meth, fn in CALLS:
            block = re.sub(RECV + r"\." + meth + r"\((ctx|tCtx), ", lambda m, fn=fn: (
                f"{fn}({'tCtx' if m.group(2) == 'tCtx' else 't'}, {m.group(1)}, {m.group(2)}, "), block)
        out.append(block)
    src = "".join(out)
    if "plugintesting" in src:
        src += "\nvar _ = plugintesting.SetupPlugin\n"
    if snapshots and '"k8s.io/kubernetes/pkg/scheduler/backend/cache"' in src:
        src += "\nvar _ = cache.NewSnapshot\n"
    return src


def setup_module() -> None:
    consumer = CACHE / "src" / f"k8s-{K8S_VERSION}"
    if not (consumer / "go.sum").exists():
        sys.exit(f"run tests/cluster/build.sh first (no {consumer}/go.sum)")
    SCRATCH.mkdir(parents=True, exist_ok=True)
    gomod = (consumer / "go.mod").read_text()
    (SCRATCH / "go.mod").write_text(re.sub(r"^module .*$", "module dractl.test/schedtables", gomod, flags=re.M))
    shutil.copy(consumer / "go.sum", SCRATCH / "go.sum")


def copy_package(pkg: str, tests: tuple[str, ...], snapshots: bool) -> Path:
    src = Path(go_env("GOMODCACHE")) / f"k8s.io/kubernetes@{K8S_VERSION}" / "pkg/scheduler/framework/plugins" / pkg
    dest = SCRATCH / pkg
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir()
    name = ""
    uses_new = False
    for f in sorted(src.glob("*.go")):
        text = f.read_text()
        name = name or re.search(r"^package (\w+)", text, re.M).group(1)  # type: ignore[union-attr]
        if f.name.endswith("_test.go"):
            if f.name not in tests and tests != ("*",):
                continue
            text = patch(text, snapshots)
            uses_new = uses_new or "dumpNew(" in text
        (dest / f.name).write_text(text)
    dump = (HERE / "zz_dump_test.go.in").read_text().replace("package PKG", f"package {name}")
    code = "".join(f.read_text() for f in src.glob("*.go") if not f.name.endswith("_test.go"))
    for placeholder, const in (("PREFILTER_KEY", "preFilterStateKey"), ("PRESCORE_KEY", "preScoreStateKey")):
        has = re.search(rf"\b{const}\s*=", code) is not None
        dump = dump.replace(placeholder, const if has else 'fwk.StateKey("-")')
    if not uses_new:  # dumpNew calls the package's New, which only some packages have with that signature
        dump = re.sub(r"// BEGIN dumpNew\n.*?// END dumpNew\n", "", dump, flags=re.S)
    (dest / "zz_dump_test.go").write_text(dump)
    return dest


# ---------------------------------------------------------------- compaction
POD_META = ("name", "namespace", "labels", "deletionTimestamp", "ownerReferences", "uid")


def clean(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [clean(x) for x in v]
    return v


def pod(p: Any) -> Any:
    if p is None:
        return None
    meta = {k: (p.get("metadata") or {}).get(k) for k in POD_META}
    return clean({"metadata": meta, "spec": p.get("spec") or {}, "status": p.get("status") or {}})


def node(n: Any) -> Any:
    meta = {k: (n.get("metadata") or {}).get(k) for k in ("name", "labels")}
    status = n.get("status") or {}
    return clean({"metadata": meta, "spec": n.get("spec") or {},
                  "status": {k: status.get(k) for k in ("allocatable", "images")}})


def _ref(pods: list[Any], p: Any) -> int:
    p = pod(p)
    if p not in pods:
        pods.append(p)
    return pods.index(p)


def compact(raw: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for c in raw:
        name = c["name"]
        # interpodaffinity runs its tables with InterPodAffinityHostnameFastPath on and off: it is alpha and
        # off in v1.37, so the runs with it off are kept.
        m = re.search(r"/InterPodAffinityHostnameFastPath=(true|false)(#\d+)?$", name)
        if m:
            if m.group(1) != "false":
                continue
            name = name[: m.start()] + (m.group(2) or "")
        test, _, case_name = name.partition("/")
        case = c.get("case") or {}
        flags = {k: v for k, v in case.items()
                 if k.startswith("enable") or k in ("args", "resources", "runPreScore", "draObjects")}
        pods_called: list[Any] = []

        calls: list[dict[str, Any]] = []
        for call in c["calls"]:
            k = call["kind"]
            if k == "snapshot":
                calls.append(clean({"kind": k, "nodes": [node(n) for n in call.get("nodes") or []],
                                    "pods": [pod(p) for p in call.get("pods") or []]}))
                continue
            if k == "setup":
                calls.append(clean({
                    "kind": k, "plugin": call["plugin"], "args": call.get("args"),
                    "nodes": [node(n) for n in call.get("nodes") or []],
                    "pods": [pod(p) for p in call.get("pods") or []],
                    "objs": [clean(o) for o in call.get("objs") or []],
                }))
                continue
            e: dict[str, Any] = {"kind": k, "plugin": call["plugin"], "state": call["state"], "status": call["status"]}
            if "pod" in call:
                e["pod"] = _ref(pods_called, call["pod"])
            for f in ("node", "nodes", "score", "scores", "stateData"):
                if f in call:
                    e[f] = call[f]
            if "other" in call:
                e["other"] = pod(call["other"])
            calls.append(e)
        ids: dict[tuple[str, str], int] = {}
        for e in calls:
            for f in ("plugin", "state"):
                if f in e:
                    e[f] = ids.setdefault((f, e[f]), sum(1 for key in ids if key[0] == f))
        out.append({"test": test, "name": case_name or test, "flags": flags, "pods": pods_called, "calls": calls})
    return out


def build_oracle() -> Path:
    """schedoracle (oracle.go.in) built in the scratch module: kube-scheduler's plugins on JSON scenarios."""
    setup_module()
    d = SCRATCH / "schedoracle"
    d.mkdir(exist_ok=True)
    (d / "main.go").write_text((HERE / "oracle.go.in").read_text())
    out = SCRATCH / "bin" / "schedoracle"
    env = {**os.environ, "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local"}
    subprocess.run(["go", "build", "-o", str(out), "./schedoracle"], cwd=SCRATCH, check=True, env=env)
    return out


def main() -> None:
    plugins = sys.argv[1:] or list(PLUGINS)
    setup_module()
    env = {**os.environ, "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local"}
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for fixture in plugins:
        pkg, tests, snapshots = PLUGINS[fixture]
        copy_package(pkg, tests, snapshots)
        raw = SCRATCH / f"{fixture}.raw.json"
        subprocess.run(["go", "test", f"./{pkg}/", "-count=1"], cwd=SCRATCH, check=True,
                       env={**env, "DUMP_OUT": str(raw)})
        cases = compact(json.loads(raw.read_text())["cases"])
        source = f"k8s.io/kubernetes@{K8S_VERSION} pkg/scheduler/framework/plugins/{pkg} {' '.join(tests)}"
        text = json.dumps({"source": source, "cases": cases}, separators=(",", ":"), sort_keys=True)
        (FIXTURES / f"scheduler-{fixture}.json").write_text(text + "\n")
        print(f"{fixture}: {len(cases)} cases", file=sys.stderr)


if __name__ == "__main__":
    main()
