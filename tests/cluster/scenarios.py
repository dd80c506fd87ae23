"""Seeded DRA scenarios run through the real kube-scheduler and through `dractl check`, compared step by step.

    python tests/cluster/scenarios.py [--seed S] [--count N] [--nodes K] [--keep DIR]

starts its own control plane (tests/cluster/control-plane), runs N scenarios and prints the agreement. The test
suite runs a fixed-seed sample (tests/cluster/test_scenarios.py) on the session's control plane.

A scenario publishes devices for a driver of its own (so scenarios never see each other's devices) on some of
the nodes: plain devices, tainted devices, devices with consumable capacity, devices that consume shared
counters of a partitionable pool. Then it applies pods one at a time; their claims (from templates, or one
claim shared by two pods) ask for counts, allocationMode All, selectors on attributes and capacity,
firstAvailable alternatives, matchAttribute / distinctAttribute constraints, tolerations and capacity requests.

For each pod, before applying it, the cluster's state is read into a snapshot (as `kubectl get -o json`
would give it). After the scheduler has decided:
- if it bound the pod to node N: `dractl --from SNAPSHOT check -f POD --node N` must predict exactly the
  devices (request, pool, device) the scheduler allocated to the pod's claims;
- if it left the pod Pending: dractl's summary line (`0/K nodes are available: ...`) must say what the
  scheduler's FailedScheduling message says (up to its `preemption:` part).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/: the object builders

from builders import (  # noqa: E402
    claim,
    counter_consumption,
    counter_set,
    device,
    device_class,
    namespace,
    pod,
    slice_,
    template,
)

SNAPSHOT_KINDS = ["Node", "Namespace", "DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate", "Pod"]
GI = 1024**3


@dataclass
class Step:
    objects: list[dict]  # claims/templates the pod needs that are new at this step, then the pod
    pod: str


@dataclass
class Scenario:
    index: int
    driver: str
    namespace: str
    cluster_objects: list[dict]  # DeviceClass, ResourceSlices
    steps: list[Step] = field(default_factory=list)


@dataclass
class Outcome:
    scenario: int
    pod: str
    agree: bool
    what: str  # "bound" | "pending" | "stuck"
    detail: str


def _q(n: int) -> str:
    return f"{n}Gi"


def generate(seed: int, index: int, nodes: list[str]) -> Scenario:
    """One scenario, fully determined by (seed, index) and the node names."""
    rng = random.Random(f"{seed}/{index}")
    driver = f"s{index}.scenario.dractl.test"
    cls = f"s{index}-dev"
    ns = f"scenario-{seed}-{index}"
    objs: list[dict] = [device_class(cls, f"device.driver == '{driver}'")]
    taints = rng.random() < 0.3
    consumable = rng.random() < 0.3
    partitioned = rng.random() < 0.3
    used_nodes = sorted(rng.sample(nodes, rng.randint(1, len(nodes))))
    for node in used_nodes:
        ndev = rng.randint(2, 8)
        devices = []
        for i in range(ndev):
            attrs = {"model": rng.choice(["A", "B"]), "numa": rng.randint(0, 1), "index": i}
            dev = device(f"dev-{i}", attrs, {"memory": _q(rng.choice([16, 40, 80]))})
            if taints and rng.random() < 0.4:
                dev["taints"] = [{"key": "example.com/maintenance", "value": "true", "effect": "NoSchedule"}]
            if consumable and rng.random() < 0.5:
                dev["allowMultipleAllocations"] = True
                dev["capacity"]["bandwidth"] = {
                    "value": "100",
                    "requestPolicy": {"default": "10", "validRange": {"min": "10", "step": "10"}},
                }
            if partitioned:
                dev["consumesCounters"] = [counter_consumption("shared", mem=_q(rng.choice([20, 40])))]
            devices.append(dev)
        count = 2 if partitioned else 1
        labels = {"dractl.test/scenario": str(index)}
        objs.append(slice_(node, driver, devices=devices, name=f"{node}-s{index}", slice_count=count, labels=labels))
        if partitioned:
            objs.append(slice_(node, driver, devices=None, name=f"{node}-s{index}-counters", slice_count=count,
                               labels=labels, shared_counters=[counter_set("shared", mem=_q(80))]))
    sc = Scenario(index, driver, ns, objs)

    def selectors() -> list[dict]:
        out = []
        if rng.random() < 0.4:
            out.append(f"device.attributes['{driver}'].model == '{rng.choice(['A', 'B'])}'")
        if rng.random() < 0.4:
            q = _q(rng.choice([16, 16, 40, 64, 80, 100]))
            out.append(f"device.capacity['{driver}'].memory.compareTo(quantity('{q}')) >= 0")
        if rng.random() < 0.15:
            out.append(f"device.attributes['{driver}'].numa == {rng.randint(0, 1)}")
        return [{"cel": {"expression": e}} for e in out]

    def exact() -> dict:
        r: dict[str, Any] = {"deviceClassName": cls}
        if rng.random() < 0.12:
            r["allocationMode"] = "All"
        else:
            r["count"] = rng.choice([1, 1, 1, 2, 3])
        sel = selectors()
        if sel:
            r["selectors"] = sel
        if taints and rng.random() < 0.5:
            r["tolerations"] = [{"key": "example.com/maintenance", "operator": "Exists", "effect": "NoSchedule"}]
        if consumable and rng.random() < 0.5 and r.get("allocationMode") != "All":
            r["capacity"] = {"requests": {"bandwidth": str(rng.choice([10, 30, 50, 100]))}}
        return r

    def claim_spec() -> dict:
        reqs = []
        for k in range(rng.choice([1, 1, 1, 2])):
            if rng.random() < 0.2:
                reqs.append({"name": f"r{k}", "firstAvailable": [
                    {"name": f"alt{j}", **exact()} for j in range(2)]})
            else:
                reqs.append({"name": f"r{k}", "exactly": exact()})
        spec: dict[str, Any] = {"devices": {"requests": reqs}}
        if len(reqs) > 1 or any(r.get("exactly", {}).get("count", 1) > 1 for r in reqs):
            roll = rng.random()
            if roll < 0.25:
                spec["devices"]["constraints"] = [{"matchAttribute": f"{driver}/numa"}]
            elif roll < 0.4:
                spec["devices"]["constraints"] = [{"distinctAttribute": f"{driver}/model"}]
        return spec

    shared_claim: str | None = None
    for p in range(rng.randint(1, 4)):
        name = f"pod-{p}"
        new: list[dict] = []
        pod_claims = []
        if shared_claim and rng.random() < 0.5:
            pod_claims.append({"name": "shared", "resourceClaimName": shared_claim})
            shared_claim = None
        else:
            for c in range(rng.choice([1, 1, 2])):
                if rng.random() < 0.2 and shared_claim is None:
                    shared_claim = f"shared-{p}-{c}"
                    new.append({**claim(shared_claim, None), "spec": claim_spec()})
                    pod_claims.append({"name": f"c{c}", "resourceClaimName": shared_claim})
                else:
                    tmpl = f"{name}-t{c}"
                    new.append({**template(tmpl, None), "spec": {"spec": claim_spec()}})
                    pod_claims.append({"name": f"c{c}", "resourceClaimTemplateName": tmpl})
        p_ = pod(name, None, pod_claims, image="busybox:1.37", command=["sleep", "3600"])
        if rng.random() < 0.15:  # the scheduler's other filters count nodes too
            p_["spec"]["nodeSelector"] = {"kubernetes.io/hostname": rng.choice(nodes)}
        sc.steps.append(Step([*new, p_], name))
    return sc


def snapshot(api: Any, namespace: str) -> dict:
    """The cluster as `kubectl get ... -o json` shows it, in one List."""
    items = []
    for kind in SNAPSHOT_KINDS:
        prefix = "/api/v1" if kind in ("Node", "Namespace", "Pod") else "/apis/resource.k8s.io/v1"
        for it in api.get(kind)["items"]:
            it.setdefault("kind", kind)
            it.setdefault("apiVersion", prefix.split("/", 2)[-1] if prefix != "/api/v1" else "v1")
            items.append(it)
    return {"apiVersion": "v1", "kind": "List", "items": items}


def _pod_claim_names(pod: dict) -> list[str]:
    names = []
    status = {s["name"]: s.get("resourceClaimName") for s in pod.get("status", {}).get("resourceClaimStatuses", [])}
    for pc in pod["spec"].get("resourceClaims", []):
        names.append(pc.get("resourceClaimName") or status.get(pc["name"]) or "")
    return names


def wait_decision(api: Any, ns: str, pod: str, timeout: float = 30) -> tuple[str, dict, str]:
    """('bound', pod, '') or ('pending', pod, scheduler message) once the scheduler has decided."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        p = api.get("Pod", pod, ns)
        if p["spec"].get("nodeName"):
            return "bound", p, ""
        cond = next((c for c in p.get("status", {}).get("conditions", []) if c["type"] == "PodScheduled"), None)
        msg = (cond or {}).get("message", "")
        if cond and cond.get("reason") == "SchedulerError" and msg:
            return "error", p, msg
        # Unschedulable is the scheduler's last word unless it nominated a node (preemption will bind the pod
        # there once the victims are gone) or the pod waits for a claim another pod is being given. A pod
        # whose claims do not exist yet is held before scheduling (PreEnqueue) and gets no condition.
        if (cond and cond.get("reason") == "Unschedulable" and "in the process of being allocated" not in msg
                and not p.get("status", {}).get("nominatedNodeName")):
            return "pending", p, msg
        time.sleep(0.1)
    return "stuck", api.get("Pod", pod, ns), ""


def dractl_check(snap: Path, pod_file: Path, ns: str, node: str | None) -> tuple[int, Any, str]:
    cmd = [sys.executable, "-m", "dractl", "--from", str(snap), "-n", ns, "check", "-f", str(pod_file), "-o", "json"]
    if node:
        cmd += ["--node", node]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    try:
        return p.returncode, json.loads(p.stdout), p.stderr
    except ValueError:
        return p.returncode, None, p.stderr + p.stdout


def _walk(o: Any):
    if isinstance(o, dict):
        yield o
        for v in o.values():
            yield from _walk(v)
    elif isinstance(o, list):
        for v in o:
            yield from _walk(v)


def predicted_devices(report: Any) -> set[tuple[str, str, str, str]]:
    """(claim, request, pool, device) for every allocation result in a check report."""
    out = set()
    for d in _walk(report):
        alloc = d.get("allocation")
        if isinstance(alloc, dict) and "name" in d:
            for r in alloc.get("devices", {}).get("results", []):
                out.add((d["name"], r["request"], r["pool"], r["device"]))
    return out


def _strings(o: Any):
    if isinstance(o, str):
        yield o
    elif isinstance(o, dict):
        for v in o.values():
            yield from _strings(v)
    elif isinstance(o, list):
        for v in o:
            yield from _strings(v)


def _no_claim_names(text: str) -> str:
    """Generated claim names carry a random suffix: compare errors without them."""
    return re.sub(r"claim \S+, ", "claim *, ", text).strip()


def summary_lines(report: Any) -> list[str]:
    """Every '0/N nodes are available: ...' sentence in a check report."""
    found = []
    for s in _strings(report):
        for line in s.splitlines():
            if line.startswith("0/") and "nodes are available" in line:
                found.append(line.strip())
    return found


def run_scenario(api: Any, sc: Scenario, work: Path) -> list[Outcome]:
    outcomes = []
    api.create(namespace(sc.namespace))
    api.apply(sc.cluster_objects)
    try:
        for step in sc.steps:
            snap = work / f"{sc.namespace}-{step.pod}-before.json"
            snap.write_text(json.dumps(snapshot(api, sc.namespace)))
            pod_file = work / f"{sc.namespace}-{step.pod}.json"
            docs = [dict(o, metadata=dict(o["metadata"], namespace=sc.namespace)) for o in step.objects]
            pod_file.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}))
            api.apply(docs)
            what, pod, msg = wait_decision(api, sc.namespace, step.pod)
            if what == "bound":
                node = pod["spec"]["nodeName"]
                got = set()
                for cname in _pod_claim_names(pod):
                    c = api.get("ResourceClaim", cname, sc.namespace)
                    for r in c["status"]["allocation"]["devices"]["results"]:
                        got.add((r["request"], r["pool"], r["device"]))
                code, report, err = dractl_check(snap, pod_file, sc.namespace, node)
                want = {(r, p, d) for _, r, p, d in predicted_devices(report)} if report is not None else set()
                ok = code == 0 and want == got
                detail = "" if ok else (
                    f"node {node}: scheduler {sorted(got)}; dractl (exit {code}) {sorted(want)} {err.strip()[:300]}")
                outcomes.append(Outcome(sc.index, step.pod, ok, "bound", detail))
            elif what == "pending":
                sched = msg.split(" preemption:")[0].strip()
                code, report, err = dractl_check(snap, pod_file, sc.namespace, None)
                # dractl's lines carry DefaultPreemption's tail too; compared up to it, as the scheduler's
                lines = [line.split(" preemption:")[0].strip() for line in summary_lines(report)] \
                    if report is not None else []
                ok = code == 1 and sched in lines
                detail = "" if ok else f"scheduler {sched!r}; dractl (exit {code}) {lines} {err.strip()[:300]}"
                outcomes.append(Outcome(sc.index, step.pod, ok, "pending", detail))
            elif what == "error":
                # The allocator failed with an error (not "does not fit"): the scheduler reports
                # 'running "DynamicResources" filter plugin: <error>' and retries.
                sched = _no_claim_names(msg.split("filter plugin: ", 1)[-1])
                # The scheduler filters nodes in parallel and stops at the first error, so the error names
                # whichever node it met first: ask dractl about that node (the device's pool names it).
                m = re.search(rf"device {re.escape(sc.driver)}/([^/\s]+)/", sched)
                code, report, err = dractl_check(snap, pod_file, sc.namespace, m.group(1) if m else None)
                texts = [_no_claim_names(t) for t in _strings(report)] + [_no_claim_names(err)]
                ok = code == 1 and any(sched in t for t in texts)
                detail = "" if ok else f"scheduler error {sched!r}; dractl (exit {code}) {texts[:3]}"
                outcomes.append(Outcome(sc.index, step.pod, ok, "error", detail))
            else:
                outcomes.append(Outcome(sc.index, step.pod, False, "stuck", "the scheduler did not decide in 30s"))
    finally:
        api.delete("Namespace", sc.namespace)
        for o in sc.cluster_objects:
            api.delete(o["kind"], o["metadata"]["name"])
    return outcomes


def run(api: Any, seed: int, count: int, nodes: list[str], work: Path, start: int = 0) -> list[Outcome]:
    out: list[Outcome] = []
    for i in range(start, start + count):
        out.extend(run_scenario(api, generate(seed, i, nodes), work))
    return out


def report(outcomes: list[Outcome]) -> str:
    agree = sum(o.agree for o in outcomes)
    bound = sum(o.what == "bound" for o in outcomes)
    pending = sum(o.what == "pending" for o in outcomes)
    errors = sum(o.what == "error" for o in outcomes)
    scen = len({o.scenario for o in outcomes})
    bad_scen = len({o.scenario for o in outcomes if not o.agree})
    lines = [f"{scen - bad_scen}/{scen} scenarios agree; {agree}/{len(outcomes)} pods "
             f"({bound} bound, {pending} pending, {errors} allocation errors, "
             f"{len(outcomes) - bound - pending - errors} undecided)"]
    lines += [f"  scenario {o.scenario} {o.pod} [{o.what}]: {o.detail}" for o in outcomes if not o.agree]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=int(os.environ.get("DRACTL_SCENARIO_SEED", "1")))
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--nodes", type=int, default=3)
    ap.add_argument("--keep", help="keep the snapshots and pod files here")
    real = ap.add_argument_group("realistic scenarios (tests/cluster/realistic.py)")
    real.add_argument("--realistic", action="store_true",
                      help="multi-node scenarios with cpu/memory, affinity, spread, quotas, priorities")
    real.add_argument("--judge", default="filters",
                      help="aspects compared: groups filters, scores, preemption, all, or aspects "
                           "(verdict,message,devices,tail,tied,pick,preemption), comma-separated")
    real.add_argument("--start", type=int, default=0, help="the first scenario's index")
    real.add_argument("--without", default="", metavar="FEATURES",
                      help="generate no taints, quota, spread, ... (comma-separated; see realistic.FEATURES)")
    real.add_argument("--control-plane", metavar="DIR",
                      help="a running `tests/cluster/control-plane up DIR` instead of one of its own")
    real.add_argument("--dractl", metavar="CHECKOUT", help="judge the dractl of this checkout (default: this one)")
    real.add_argument("--json", metavar="FILE", help="write every pod's outcome here")
    real.add_argument("--markdown", metavar="FILE", help="write the disagreements here")
    real.add_argument("-v", "--verbose", action="store_true", help="a line per pod as it is judged")
    args = ap.parse_args()
    if args.realistic:
        import realistic  # noqa: PLC0415

        return realistic.main(args)
    sys.path.insert(0, str(HERE.parent))
    from conftest import start_control_plane, stop_control_plane  # noqa: PLC0415

    with tempfile.TemporaryDirectory() as tmp:
        cp = start_control_plane(Path(tmp) / "cp", "--nodes", str(args.nodes))
        work = Path(args.keep) if args.keep else Path(tmp) / "work"
        work.mkdir(parents=True, exist_ok=True)
        t0 = time.monotonic()
        try:
            outcomes = run(cp.api, args.seed, args.count, cp.nodes, work)
        finally:
            stop_control_plane(cp.dir)
        print(report(outcomes))
        print(f"seed {args.seed}, {args.count} scenarios in {time.monotonic() - t0:.0f}s")
    return 0 if all(o.agree for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
