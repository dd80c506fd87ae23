#!/usr/bin/env python3
"""Record kube-scheduler's plugin test tables as data: tests/fixtures/scheduler-upstream/<plugin>.json.

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
FIXTURES = HERE.parent.parent / "fixtures" / "scheduler-upstream"
CACHE = Path(os.environ.get("DRACTL_CLUSTER_CACHE")
             or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dractl-test-cluster")
SCRATCH = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dractl-schedtables"

#: plugin package -> the test files whose tables are recorded
PLUGINS: dict[str, tuple[str, ...]] = {
    "podtopologyspread": ("filtering_test.go", "scoring_test.go"),
    "interpodaffinity": ("filtering_test.go", "scoring_test.go"),
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


def patch(src: str) -> str:
    """Record each case (after t.Run(tt.name ...)), each plugin set-up and each call to the plugin."""
    src = strip_benchmarks(src)
    src = re.sub(r"(\n(\s*)t\.Run\((?:fmt\.Sprintf\(\"[^\"]*\", )?(\w+)\.name[^\n]*func\(t \*testing\.T\) \{\n)",
                 lambda m: m.group(1) + m.group(2) + "\tdumpCase(t, " + m.group(3) + ")\n", src)
    src = re.sub(r"pl, err := New\(ctx, &(\w+)\.config, f, ", r"pl, err := dumpNew(t, \1.objs, ctx, &\1.config, f, ",
                 src)
    src = src.replace("plugintesting.SetupPluginWithInformers(", "dumpSetupPluginWithInformers(")
    src = src.replace("plugintesting.SetupPlugin(", "dumpSetupPlugin(")
    for meth, fn in CALLS:
        src = re.sub(RECV + r"\." + meth + r"\(ctx, ", fn + r"(t, \1, ctx, ", src)
    if "plugintesting" in src:
        src += "\nvar _ = plugintesting.SetupPlugin\n"
    return src


def setup_module() -> None:
    consumer = CACHE / "src" / f"k8s-{K8S_VERSION}"
    if not (consumer / "go.sum").exists():
        sys.exit(f"run tests/cluster/build.sh first (no {consumer}/go.sum)")
    SCRATCH.mkdir(parents=True, exist_ok=True)
    gomod = (consumer / "go.mod").read_text()
    (SCRATCH / "go.mod").write_text(re.sub(r"^module .*$", "module dractl.test/schedtables", gomod, flags=re.M))
    shutil.copy(consumer / "go.sum", SCRATCH / "go.sum")


def copy_package(pkg: str, tests: tuple[str, ...]) -> Path:
    src = Path(go_env("GOMODCACHE")) / f"k8s.io/kubernetes@{K8S_VERSION}" / "pkg/scheduler/framework/plugins" / pkg
    dest = SCRATCH / pkg
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir()
    name = ""
    for f in sorted(src.glob("*.go")):
        text = f.read_text()
        name = name or re.search(r"^package (\w+)", text, re.M).group(1)  # type: ignore[union-attr]
        if f.name.endswith("_test.go"):
            if f.name not in tests:
                continue
            text = patch(text)
        (dest / f.name).write_text(text)
    (dest / "zz_dump_test.go").write_text((HERE / "zz_dump_test.go.in").read_text().replace("package PKG",
                                                                                             f"package {name}"))
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
    spec = dict(p.get("spec") or {})
    spec.pop("containers", None)
    out: dict[str, Any] = {"metadata": meta, "spec": spec}
    status = p.get("status") or {}
    for k in ("nominatedNodeName", "conditions"):
        if status.get(k):
            out.setdefault("status", {})[k] = status[k]
    return clean(out)


def node(n: Any) -> Any:
    meta = {k: (n.get("metadata") or {}).get(k) for k in ("name", "labels")}
    return clean({"metadata": meta, "spec": n.get("spec") or {}})


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
        flags = {k: v for k, v in case.items() if k.startswith("enable")}
        pods_called: list[Any] = []

        calls: list[dict[str, Any]] = []
        for call in c["calls"]:
            k = call["kind"]
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


def main() -> None:
    plugins = sys.argv[1:] or list(PLUGINS)
    setup_module()
    env = {**os.environ, "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local"}
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for pkg in plugins:
        copy_package(pkg, PLUGINS[pkg])
        raw = SCRATCH / f"{pkg}.raw.json"
        subprocess.run(["go", "test", f"./{pkg}/", "-count=1"], cwd=SCRATCH, check=True,
                       env={**env, "DUMP_OUT": str(raw)})
        cases = compact(json.loads(raw.read_text())["cases"])
        source = f"k8s.io/kubernetes@{K8S_VERSION} pkg/scheduler/framework/plugins/{pkg} {' '.join(PLUGINS[pkg])}"
        (FIXTURES / f"{pkg}.json").write_text(json.dumps({"source": source, "cases": cases}, separators=(",", ":"),
                                                         sort_keys=True) + "\n")
        print(f"{pkg}: {len(cases)} cases", file=sys.stderr)


if __name__ == "__main__":
    main()
