"""dractl's PodTopologySpread, InterPodAffinity and score plugins against kube-scheduler v1.37.2's own plugins,
on random scenarios (a differential test beside upstream's tables, which tests/unit/scheduler replays).

tests/oracle/schedtables/oracle.go.in runs upstream's plugins (the v1.37 default gates, the default profile's
args) in the module tests/cluster/build.sh resolves; each scenario — nodes with zones, racks, taints,
allocatable and images; bound pods in several namespaces with labels, spread constraints and (anti-)affinity;
Namespaces with labels; one incoming pod — goes through both, and every answer must be the same: each
plugin's PreFilter status, Filter status per node (code and reasons), the Filter statuses again after the
PreFilter extensions removed a bound pod and added one (as preemption does), PreScore status, raw Score and
normalized score per node. ``DRACTL_ORACLE_SCHED_CASES`` sets how many scenarios (default 300).

Pods are sent to upstream as the apiserver stores them: matchLabelKeys / mismatchLabelKeys merged into the
selectors (pkg/registry/core/pod/strategy.go), requests given explicitly (no defaulting needed).
"""

from __future__ import annotations

import copy
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dractl.errors import ValidationError
from dractl.model.parse import parse_object
from dractl.scheduler.framework import Code, CycleState, Plugin, PodInfo, Snapshot
from dractl.scheduler.plugins.imagelocality import ImageLocality
from dractl.scheduler.plugins.interpodaffinity import InterPodAffinity
from dractl.scheduler.plugins.nodeaffinity_score import NodeAffinityScore
from dractl.scheduler.plugins.noderesources_score import FitScore, NodeResourcesBalancedAllocation
from dractl.scheduler.plugins.podtopologyspread import PodTopologySpread
from dractl.scheduler.plugins.tainttoleration_score import TaintTolerationScore

ORACLE_DIR = Path(__file__).resolve().parent.parent / "oracle" / "schedtables"
CASES = int(os.environ.get("DRACTL_ORACLE_SCHED_CASES", "300"))
SEED = int(os.environ.get("DRACTL_ORACLE_SCHED_SEED", "20261201"))

ZONE, HOST, RACK = "topology.kubernetes.io/zone", "kubernetes.io/hostname", "rack"
GO_CODES = {Code.SUCCESS: "Success", Code.ERROR: "Error", Code.UNSCHEDULABLE: "Unschedulable",
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable", Code.SKIP: "Skip"}
MI = 1024 * 1024


@pytest.fixture(scope="module")
def oracle() -> Path:
    sys.path.insert(0, str(ORACLE_DIR))
    import generate  # type: ignore[import-not-found]

    consumer = generate.CACHE / "src" / f"k8s-{generate.K8S_VERSION}" / "go.sum"
    if not consumer.exists():
        subprocess.run([str(Path(__file__).parent / "build.sh")], check=True, timeout=7200,
                       stdout=subprocess.DEVNULL)
    return generate.build_oracle()


# ---------------------------------------------------------------- scenarios

APPS = ["web", "db", "cache"]
NAMESPACES = {"default": {"team": "a"}, "ns-b": {"team": "b"}, "ns-c": {"team": "a", "tier": "prod"}}
IMAGES = ["nginx:1.27", "registry.example/ml/train:v3", "busybox", "redis:7"]


def _selector(rng: random.Random) -> dict[str, Any] | None:
    r = rng.random()
    if r < 0.05:
        return None
    if r < 0.1:
        return {}
    if r < 0.6:
        return {"matchLabels": {"app": rng.choice(APPS)}}
    op = rng.choice(["In", "NotIn", "Exists", "DoesNotExist"])
    e: dict[str, Any] = {"key": rng.choice(["app", "rev", "tier"]), "operator": op}
    if op in ("In", "NotIn"):
        e["values"] = rng.sample(APPS + ["1", "2"], rng.randint(1, 2))
    return {"matchExpressions": [e]}


def _term(rng: random.Random) -> dict[str, Any]:
    t: dict[str, Any] = {"topologyKey": rng.choice([ZONE, HOST, HOST, RACK])}
    sel = _selector(rng)
    if sel is not None:
        t["labelSelector"] = sel
    r = rng.random()
    if r < 0.15:
        t["namespaces"] = rng.sample(sorted(NAMESPACES), rng.randint(1, 2))
    elif r < 0.3:
        t["namespaceSelector"] = rng.choice([{}, {"matchLabels": {"team": "a"}},
                                             {"matchExpressions": [{"key": "tier", "operator": "Exists"}]}])
    if sel is not None and rng.random() < 0.2:
        t[rng.choice(["matchLabelKeys", "mismatchLabelKeys"])] = ["rev"]
    return t


def _affinity(rng: random.Random, incoming: bool) -> dict[str, Any]:
    aff: dict[str, Any] = {}
    for kind in ("podAffinity", "podAntiAffinity"):
        if rng.random() < (0.4 if incoming else 0.2):
            k: dict[str, Any] = {}
            if rng.random() < 0.6:
                k["requiredDuringSchedulingIgnoredDuringExecution"] = [_term(rng) for _ in range(rng.randint(1, 2))]
            if rng.random() < 0.6:
                k["preferredDuringSchedulingIgnoredDuringExecution"] = [
                    {"weight": rng.randint(1, 100), "podAffinityTerm": _term(rng)} for _ in range(rng.randint(1, 2))]
            if k:
                aff[kind] = k
    if incoming and rng.random() < 0.3:
        aff["nodeAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": rng.randint(1, 50), "preference": {"matchExpressions": [_node_requirement(rng)]}}
            for _ in range(rng.randint(1, 2))]}
    if incoming and rng.random() < 0.15:
        aff["nodeAffinity"] = {**aff.get("nodeAffinity", {}), "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["zone-a"]}]}]}}
    return aff


def _node_requirement(rng: random.Random) -> dict[str, Any]:
    op = rng.choice(["In", "NotIn", "Exists", "DoesNotExist"])
    r: dict[str, Any] = {"key": rng.choice([ZONE, RACK, "disk"]), "operator": op}
    if op in ("In", "NotIn"):
        r["values"] = rng.sample(["zone-a", "zone-b", "r1", "ssd"], rng.randint(1, 2))
    return r


def _spread(rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for _ in range(rng.randint(1, 2)):
        c: dict[str, Any] = {"maxSkew": rng.randint(1, 3), "topologyKey": rng.choice([ZONE, HOST, RACK]),
                             "whenUnsatisfiable": rng.choice(["DoNotSchedule", "ScheduleAnyway"])}
        sel = _selector(rng)
        if sel is not None:
            c["labelSelector"] = sel
        if rng.random() < 0.2 and c["whenUnsatisfiable"] == "DoNotSchedule":
            c["minDomains"] = rng.randint(1, 4)
        if rng.random() < 0.2:
            c["nodeAffinityPolicy"] = rng.choice(["Honor", "Ignore"])
        if rng.random() < 0.2:
            c["nodeTaintsPolicy"] = rng.choice(["Honor", "Ignore"])
        if rng.random() < 0.2:
            c["matchLabelKeys"] = ["rev"]
        out.append(c)
    return out


def _containers(rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for i in range(rng.randint(1, 2)):
        c: dict[str, Any] = {"name": f"c{i}", "image": rng.choice(IMAGES)}
        if rng.random() < 0.7:
            req = {}
            if rng.random() < 0.8:
                req["cpu"] = rng.choice(["100m", "250m", "1", "2"])
            if rng.random() < 0.8:
                req["memory"] = rng.choice(["128Mi", "1Gi", "4Gi"])
            c["resources"] = {"requests": req}
        out.append(c)
    return out


def _pod(rng: random.Random, name: str, node: str | None, incoming: bool) -> dict[str, Any]:
    """A pod the apiserver would admit: drawn again while dractl's validation refuses it (e.g. two spread
    constraints on one {topologyKey, whenUnsatisfiable}), as upstream's plugins never see such a pod."""
    for _ in range(100):
        raw = _pod_once(rng, name, node, incoming)
        try:
            parse_object(copy.deepcopy(raw))
        except ValidationError:
            continue
        return raw
    raise AssertionError(f"no valid pod {name} drawn in 100 tries")


def _pod_once(rng: random.Random, name: str, node: str | None, incoming: bool) -> dict[str, Any]:
    ns = rng.choice(sorted(NAMESPACES)) if rng.random() < 0.3 else "default"
    labels = {"app": rng.choice(APPS)}
    if rng.random() < 0.5:
        labels["rev"] = rng.choice(["1", "2"])
    if rng.random() < 0.2:
        labels["tier"] = "front"
    spec: dict[str, Any] = {"containers": _containers(rng)}
    if node:
        spec["nodeName"] = node
    aff = _affinity(rng, incoming)
    if aff:
        spec["affinity"] = aff
    if rng.random() < (0.6 if incoming else 0.1):
        spec["topologySpreadConstraints"] = _spread(rng)
    if rng.random() < 0.3:
        spec["tolerations"] = [rng.choice([
            {"key": "dedicated", "operator": "Equal", "value": "ml", "effect": "PreferNoSchedule"},
            {"key": "dedicated", "operator": "Exists"}, {"operator": "Exists"},
            {"key": "spot", "operator": "Exists", "effect": "NoSchedule"}])]
    if incoming and rng.random() < 0.15:
        spec["nodeSelector"] = {ZONE: rng.choice(["zone-a", "zone-b"])}
    meta: dict[str, Any] = {"name": name, "namespace": ns, "labels": labels, "uid": f"uid-{name}"}
    if not incoming and rng.random() < 0.05:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def _node(rng: random.Random, i: int) -> dict[str, Any]:
    name = f"n{i}"
    labels = {HOST: name}
    if rng.random() < 0.95:
        labels[ZONE] = rng.choice(["zone-a", "zone-b", "zone-c"])
    if rng.random() < 0.85:
        labels[RACK] = rng.choice(["r1", "r2"])
    if rng.random() < 0.3:
        labels["disk"] = "ssd"
    spec: dict[str, Any] = {}
    taints = []
    if rng.random() < 0.2:
        taints.append({"key": "dedicated", "value": "ml", "effect": rng.choice(["PreferNoSchedule", "NoSchedule"])})
    if rng.random() < 0.1:
        taints.append({"key": "spot", "effect": "NoSchedule"})
    if taints:
        spec["taints"] = taints
    images = [{"names": [n if ":" in n.rpartition("/")[2] else n + ":latest"],
               "sizeBytes": rng.choice([30, 300, 900]) * MI} for n in IMAGES if rng.random() < 0.4]
    status = {"allocatable": {"cpu": rng.choice(["4", "8", "16"]), "memory": rng.choice(["8Gi", "32Gi"]),
                              "pods": "110"}, "images": images}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}, "spec": spec,
            "status": status}


def scenario(rng: random.Random) -> dict[str, Any]:
    nodes = [_node(rng, i) for i in range(rng.randint(2, 6))]
    # pods crowd some nodes, so that spreading has skews to find
    weights = [rng.random() ** 2 for _ in nodes]
    pods = [_pod(rng, f"p{i}", rng.choices(nodes, weights)[0]["metadata"]["name"], False)
            for i in range(rng.randint(0, 16))]
    objs = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n, "labels": lab}}
            for n, lab in NAMESPACES.items()]
    sc: dict[str, Any] = {"nodes": nodes, "pods": pods, "objs": objs, "pod": _pod(rng, "incoming", None, True)}
    # the PreFilter extensions, as preemption uses them: remove a bound pod, add one to a node
    if pods and rng.random() < 0.5:
        sc["remove"] = rng.randrange(len(pods))
    if rng.random() < 0.3:
        sc["add"] = _pod(rng, "added", None, False)
        sc["addNode"] = rng.choice(nodes)["metadata"]["name"]
    return sc


def as_stored(pod: dict[str, Any]) -> dict[str, Any]:
    """strategy.go PrepareForCreate's merges: matchLabelKeys (and mismatchLabelKeys) into the selectors."""
    pod = copy.deepcopy(pod)
    labels = pod["metadata"].get("labels") or {}
    aff = pod["spec"].get("affinity") or {}
    for kind in ("podAffinity", "podAntiAffinity"):
        k = aff.get(kind) or {}
        terms = list(k.get("requiredDuringSchedulingIgnoredDuringExecution") or [])
        terms += [w["podAffinityTerm"] for w in k.get("preferredDuringSchedulingIgnoredDuringExecution") or []]
        for t in terms:
            sel = t.get("labelSelector")
            if sel is None:
                continue
            for key, op in [(x, "In") for x in t.get("matchLabelKeys") or ()] + \
                           [(x, "NotIn") for x in t.get("mismatchLabelKeys") or ()]:
                if key in labels:
                    sel.setdefault("matchExpressions", []).append({"key": key, "operator": op, "values": [labels[key]]})
    for c in pod["spec"].get("topologySpreadConstraints") or ():
        sel = c.get("labelSelector")
        if sel is None:
            continue
        for key in c.get("matchLabelKeys") or ():
            if key in labels:
                sel.setdefault("matchExpressions", []).append({"key": key, "operator": "In", "values": [labels[key]]})
    return pod


# ---------------------------------------------------------------- dractl's answers

def _status(s: Any) -> dict[str, Any]:
    code = Code.SUCCESS if s is None else s.code
    return {"code": GO_CODES[code], "reasons": [] if s is None else list(s.reasons)}


def dractl_answers(sc: dict[str, Any]) -> dict[str, Any]:
    nodes = [parse_object(n) for n in sc["nodes"]]
    pods = [parse_object(p) for p in sc["pods"]]
    namespaces = [parse_object(o) for o in sc["objs"] if o["kind"] == "Namespace"]
    snap = Snapshot.build([n.name for n in nodes], nodes, pods, namespaces)
    pod = PodInfo(parse_object(sc["pod"]))
    plugins = {
        "PodTopologySpread": PodTopologySpread(), "InterPodAffinity": InterPodAffinity(),
        "NodeResourcesFit": FitScore(), "NodeResourcesBalancedAllocation": NodeResourcesBalancedAllocation(),
        "TaintToleration": TaintTolerationScore(), "NodeAffinity": NodeAffinityScore(),
        "ImageLocality": ImageLocality(),
    }
    out: dict[str, Any] = {}
    for name, pl in plugins.items():
        a: dict[str, Any] = {}
        if pl.has_pre_filter():
            state = CycleState(snap)
            s = pl.pre_filter(state, pod, snap)
            s = s[1] if isinstance(s, tuple) else s
            a["prefilter"] = _status(s)
            if s is None or s.is_success():
                a["filter"] = {ni.name: _status(pl.filter(state, pod, ni)) for ni in snap.node_infos}
                if "remove" in sc or "add" in sc:
                    es = None
                    if "remove" in sc:
                        victim = pods[sc["remove"]]
                        ni = snap.get(victim.node_name)
                        assert ni is not None
                        es = pl.remove_pod(state, pod, PodInfo(victim), ni)
                    if (es is None or es.is_success()) and "add" in sc:
                        ni = snap.get(sc["addNode"])
                        assert ni is not None
                        es = pl.add_pod(state, pod, PodInfo(parse_object(sc["add"])), ni)
                    a["extensions"] = _status(es)
                    a["refilter"] = {ni.name: _status(pl.filter(state, pod, ni)) for ni in snap.node_infos}
        state = CycleState(snap)
        skip = False
        if type(pl).pre_score is not Plugin.pre_score:
            s = pl.pre_score(state, pod, list(snap.node_infos))
            a["prescore"] = _status(s)
            skip = s is not None and not s.is_success()
        if not skip:
            a["score"] = {ni.name: pl.score(state, pod, ni) for ni in snap.node_infos}
            norm = dict(a["score"])
            pl.normalize_score(state, pod, norm)
            a["normalized"] = norm
        out[name] = a
    return out


# Upstream's answers this comparison leaves out: the filters of plugins sched-core compares elsewhere.
NOT_COMPARED = {(p, k) for p in ("NodeResourcesFit", "TaintToleration", "NodeAffinity")
                for k in ("prefilter", "filter", "extensions", "refilter")}


def test_plugins_agree_with_upstream(oracle: Path) -> None:
    rng = random.Random(SEED)
    scenarios = [scenario(rng) for _ in range(CASES)]
    stored = [{**sc, "pods": [as_stored(p) for p in sc["pods"]], "pod": as_stored(sc["pod"]),
               **({"add": as_stored(sc["add"])} if "add" in sc else {})} for sc in scenarios]
    p = subprocess.run([str(oracle)], input=json.dumps({"scenarios": stored}), capture_output=True, text=True,
                       timeout=1800)
    assert p.returncode == 0, p.stderr[-3000:]
    upstream = json.loads(p.stdout)["results"]
    diffs = []
    for i, (sc, want) in enumerate(zip(scenarios, upstream, strict=True)):
        got = dractl_answers(sc)
        for plugin, w in want.items():
            g = got[plugin]
            for key in ("prefilter", "filter", "extensions", "refilter", "prescore", "score", "normalized"):
                if (plugin, key) in NOT_COMPARED:
                    continue
                if g.get(key) != w.get(key):
                    diffs.append(f"scenario {i} {plugin} {key}: dractl {g.get(key)}, upstream {w.get(key)}")
    assert not diffs, f"{len(diffs)} differences in {CASES} scenarios:\n" + "\n".join(diffs[:40])
