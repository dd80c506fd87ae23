"""Replays kube-scheduler's own plugin test tables, recorded as data, through dractl's plugins.

The fixtures ``fixtures/upstream/scheduler-<plugin>.json`` are upstream's test tables (k8s.io/kubernetes
v1.37.2 ``pkg/scheduler/framework/plugins/<plugin>/*_test.go``) as recorded by ``oracle/schedtables/generate.py``: for
every case (upstream's test function and case name, kept) the objects each plugin instance was set up with
(the snapshot's nodes and pods, informer objects such as Namespaces, Services and ReplicaSets, the plugin
args, the feature flags the case sets) and every call the case made to the plugin in order — PreFilter, Filter,
AddPod, RemovePod, PreScore, Score, NormalizeScore — with what upstream's plugin returned: the status (code
and reasons), the plugin's cycle state after PreFilter/AddPod/RemovePod/PreScore, the score, the normalized
scores. The recording runs upstream's tests unchanged (they passed), so these answers are the ones the
tables assert, taken from upstream's plugin itself.

:func:`replay` makes the same calls on dractl's plugin and returns every difference. Pods with namespace ""
(upstream's builders leave it empty) are in "default" for dractl; both sides are compared so.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from dractl.model.parse import parse_object
from dractl.scheduler.framework import Code, CycleState, NodeInfo, Plugin, PodInfo, Snapshot, Status

FIXTURES = Path(__file__).parent / "fixtures" / "upstream"

GO_CODES = {
    Code.SUCCESS: "Success", Code.ERROR: "Error", Code.UNSCHEDULABLE: "Unschedulable",
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable", Code.WAIT: "Wait", Code.SKIP: "Skip",
    Code.PENDING: "Pending",
}


@cache
def load(name: str) -> list[dict[str, Any]]:
    return json.loads((FIXTURES / f"scheduler-{name}.json").read_text())["cases"]


def case_id(c: Mapping[str, Any]) -> str:
    return f"{c['test']}/{c['name']}"


def to_pod(d: Mapping[str, Any] | None, i: int = 0):
    d = copy.deepcopy(dict(d or {}))
    meta = d.setdefault("metadata", {})
    meta.setdefault("name", f"unnamed-{i}")
    meta["namespace"] = meta.get("namespace") or "default"
    d.setdefault("spec", {})
    _default_namespaces(d["spec"].get("affinity"))
    # Upstream's tables use names the apiserver would refuse (nodeA, namespace subteam1.team1): not validated.
    return parse_object({"apiVersion": "v1", "kind": "Pod", **d}, validate=False)


def _default_namespaces(v: Any) -> None:
    """Affinity terms that list namespace "" mean the pods' default namespace too."""
    if isinstance(v, dict):
        if isinstance(v.get("namespaces"), list):
            v["namespaces"] = [n or "default" for n in v["namespaces"]]
        for x in v.values():
            _default_namespaces(x)
    elif isinstance(v, list):
        for x in v:
            _default_namespaces(x)


def to_node(d: Mapping[str, Any]):
    return parse_object({"apiVersion": "v1", "kind": "Node", **copy.deepcopy(dict(d))}, validate=False)


def go_status(s: Status | None) -> dict[str, Any]:
    s = s or Status(Code.SUCCESS)
    return {"code": GO_CODES[s.code], "reasons": list(s.reasons)}


@dataclass
class Setup:
    plugin: Plugin
    snapshot: Snapshot
    args: Mapping[str, Any]
    objs: list[Mapping[str, Any]] = field(default_factory=list)


def build_setup(call: Mapping[str, Any]) -> tuple[Snapshot, list[Mapping[str, Any]]]:
    nodes = [to_node(n) for n in call.get("nodes") or ()]
    pods = [to_pod(p, i) for i, p in enumerate(call.get("pods") or ())]
    snap = Snapshot.build([n.name for n in nodes], nodes, pods)
    objs = list(call.get("objs") or ())
    # What the namespace lister would list (interpodaffinity's namespaceSelector).
    snap.namespace_labels = {  # type: ignore[attr-defined]
        str(o["metadata"]["name"]): dict(o["metadata"].get("labels") or {})
        for o in objs if o.get("goType") == "Namespace"
    }
    return snap, objs


def compare_status(got: Status | None, want: Mapping[str, Any]) -> str | None:
    g = go_status(got)
    if g["code"] != want["code"]:
        return f"code {g['code']} {g['reasons']}, upstream {want['code']} {want['reasons']}"
    if want["code"] != "Error" and g["reasons"] != want["reasons"]:
        return f"reasons {g['reasons']}, upstream {want['reasons']}"
    return None


def replay(
    case: Mapping[str, Any],
    make_plugin: Callable[[Mapping[str, Any], list[Mapping[str, Any]], Mapping[str, Any]], Plugin],
    dractl_state: Callable[[str, CycleState], Any],
    go_state: Callable[[str, Any], Any],
) -> list[str]:
    """Every difference between dractl's answers and upstream's for one recorded case.

    ``dractl_state(which, state)`` and ``go_state(which, recorded)`` put dractl's and upstream's cycle state
    (``which`` is "prefilter" or "prescore") in one comparable shape."""
    setups: dict[int, Setup] = {}
    states: dict[int, CycleState] = {}
    pods = case["pods"]
    diffs: list[str] = []
    pod_infos: dict[int, PodInfo] = {}

    def pod_info(i: int) -> PodInfo:
        if i not in pod_infos:
            pod_infos[i] = PodInfo(to_pod(pods[i], 1000 + i))
        return pod_infos[i]

    latest: tuple[Snapshot, list[Mapping[str, Any]]] | None = None
    for n, call in enumerate(case["calls"]):
        kind = call["kind"]
        where = f"call {n} ({kind}{' ' + call['node'] if 'node' in call else ''})"
        if kind == "snapshot":
            # a test that builds its plugin itself: the calls that follow use the snapshot it made
            latest = build_setup(call)
            continue
        if kind == "setup":
            snap, objs = build_setup(call)
            setups[call["plugin"]] = Setup(make_plugin(call.get("args") or {}, objs, case["flags"]), snap,
                                           call.get("args") or {}, objs)
            continue
        if call["plugin"] not in setups:
            assert latest is not None, where
            setups[call["plugin"]] = Setup(make_plugin({}, latest[1], case["flags"]), latest[0], {}, latest[1])
        setup = setups[call["plugin"]]
        pl, snap = setup.plugin, setup.snapshot
        state = states.setdefault(call["state"], CycleState(snap))
        got_state: Any = None
        want_state = call.get("stateData")
        if kind == "prefilter":
            out = pl.pre_filter(state, pod_info(call["pod"]), snap)
            status = out[1] if isinstance(out, tuple) else out
            got_state = dractl_state("prefilter", state)
        elif kind == "filter":
            # TestPreFilterDisabled filters an empty NodeInfo that no snapshot holds
            ni = snap.get(call["node"]) or NodeInfo(call["node"])
            status = pl.filter(state, pod_info(call["pod"]), ni)
        elif kind in ("addpod", "removepod"):
            ni = snap.get(call["node"])
            assert ni is not None, where
            other = PodInfo(to_pod(call["other"], 2000 + n))
            fn = pl.add_pod if kind == "addpod" else pl.remove_pod
            status = fn(state, pod_info(call["pod"]), other, ni)
            got_state = dractl_state("prefilter", state)
        elif kind == "prescore":
            names = call.get("nodes") or []
            nis: list[NodeInfo] = [ni for ni in (snap.get(x) for x in names) if ni is not None]
            status = pl.pre_score(state, pod_info(call["pod"]), nis)
            got_state = dractl_state("prescore", state)
        elif kind == "score":
            ni = snap.get(call["node"])
            assert ni is not None, where
            got = pl.score(state, pod_info(call["pod"]), ni)
            if got != call["score"]:
                diffs.append(f"{where}: score {got}, upstream {call['score']}")
            continue
        elif kind == "normalize":
            want = call["scores"]
            # upstream's NormalizeScore gets the scores its test computed (the Score calls just made)
            scores = {name: s for name, s in _last_scores(case["calls"][:n]).items()}
            pl.normalize_score(state, pod_info(call["pod"]), scores)
            if scores != want:
                diffs.append(f"{where}: normalized {scores}, upstream {want}")
            continue
        else:
            raise AssertionError(kind)
        d = compare_status(status, call["status"])
        if d:
            diffs.append(f"{where}: {d}")
        if kind != "filter":
            ws = go_state("prescore" if kind == "prescore" else "prefilter", want_state)
            if got_state != ws:
                diffs.append(f"{where}: state\n  dractl   {got_state}\n  upstream {ws}")
    return diffs


def _last_scores(calls: list[Mapping[str, Any]]) -> dict[str, int]:
    """The Score calls since the last PreScore, node -> raw score."""
    out: dict[str, int] = {}
    for c in calls:
        if c["kind"] == "prescore":
            out = {}
        elif c["kind"] == "score":
            out[c["node"]] = c["score"]
    return out
