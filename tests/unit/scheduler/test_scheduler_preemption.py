"""DefaultPreemption (dractl.scheduler.preemption): upstream's TestSelectBestCandidate table replayed as data, the
preemption tail of the message in upstream's words, PodDisruptionBudgets, and the fake cluster carrying it out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from builders import node, pod

from dractl.control.plane import ControlPlane
from dractl.control.whatif import check
from dractl.model.cluster import cluster_from
from dractl.model.parse import parse_object
from dractl.scheduler.framework import CycleState, Diagnosis, PodInfo, Snapshot
from dractl.scheduler.plugins.noderesources import NodeResourcesFit
from dractl.scheduler.preemption import PDB, Framework, preempt

TABLE = json.loads((Path(__file__).parents[2] / "fixtures" / "upstream" / "scheduler-defaultpreemption.json")
                   .read_text())


def objects(*dicts: Any) -> list[Any]:
    return [parse_object(d, validate=False) for d in dicts]


def a_pod(name: str, requests: dict[str, str], *, node_name: str | None = None, priority: int | None = None,
          start: str | None = None, labels: dict[str, str] | None = None, **spec: Any) -> dict:
    p = pod(name, "default", **spec)
    p["spec"]["containers"][0]["resources"] = {"requests": dict(requests)}
    if node_name:
        p["spec"]["nodeName"] = node_name
        p["status"] = {"phase": "Running", **({"startTime": start} if start else {})}
    if priority is not None:
        p["spec"]["priority"] = priority
    if labels:
        p["metadata"]["labels"] = dict(labels)
    return p


@pytest.mark.parametrize("case", TABLE["cases"], ids=[c["name"] for c in TABLE["cases"]])
def test_upstream_select_best_candidate(case: dict[str, Any]) -> None:
    # nodes with capacity veryLargeRes (and 32 pods: st.MakeNode().Capacity), NodeResourcesFit the only filter
    alloc = {**TABLE["resources"]["veryLarge"], "pods": "32"}
    nodes = objects(*(node(n, allocatable=alloc) for n in case["nodes"]))
    pods = objects(*(a_pod(p["name"], p["requests"], node_name=p["node"], priority=p["priority"],
                           start=p["startTime"]) for p in case["pods"]))
    snapshot = Snapshot.build(case["nodes"], nodes, pods)
    preemptor = PodInfo(objects(a_pod("p", case["pod"]["requests"], priority=case["pod"]["priority"]))[0])
    fw = Framework([NodeResourcesFit()])
    state = CycleState()
    fw.run_pre_filter_plugins(state, preemptor, snapshot)
    d = Diagnosis(node_to_status={n.name: fw.run_filter_plugins(state, preemptor, n) for n in snapshot.node_infos})
    out = preempt(fw, state, preemptor, snapshot.node_infos, d)
    assert out.node in case["expected"]
    assert out.tied == sorted(case["expected"])  # every node upstream may pick, and only those


PRIORITY_CLASSES = [
    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "low"}, "value": 10},
    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000},
    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "never"}, "value": 1000,
     "preemptionPolicy": "Never"},
]
FOUR_CPU = {"cpu": "4", "memory": "8Gi", "pods": "110"}


def cluster(*extra: dict) -> Any:
    return cluster_from(objects(
        *PRIORITY_CLASSES, node("n0", allocatable=FOUR_CPU), node("n1", allocatable=FOUR_CPU),
        a_pod("low-0", {"cpu": "3"}, node_name="n0", priority=10, priorityClassName="low", labels={"app": "a"},
              start="2026-01-01T00:00:00Z"),
        a_pod("low-1", {"cpu": "2"}, node_name="n1", priority=10, priorityClassName="low", labels={"app": "b"},
              start="2026-01-01T00:00:00Z"),
        a_pod("low-2", {"cpu": "1"}, node_name="n1", priority=10, priorityClassName="low", labels={"app": "b"},
              start="2026-01-01T00:00:00Z"),
        *extra))


def test_check_names_the_victims_and_the_nodes_as_good_and_says_upstreams_words() -> None:
    (out,) = check(cluster(), objects(a_pod("hi", {"cpu": "3"}, priorityClassName="high"))).pods
    assert (out.outcome, out.node) == ("scheduled", "n0")
    assert out.message == ("0/2 nodes are available: 2 Insufficient cpu. preemption: found a potential placement "
                           "for pod on node n0, preempting 1 victims")
    # n1 needs low-1 gone (low-2 is reprieved): one victim of priority 10 on each node, started together
    assert out.preemption == {"node": "n0", "victims": ["default/low-0"], "tiedNodes": ["n0", "n1"]}


def test_the_preemption_tail_when_preemption_cannot_help() -> None:
    (out,) = check(cluster(), objects(a_pod("hn", {"cpu": "3"}, priorityClassName="never"))).pods
    assert out.message == ("0/2 nodes are available: 2 Insufficient cpu. preemption: not eligible due to "
                           "preemptionPolicy=Never.")
    (out,) = check(cluster(), objects(a_pod("z", {"cpu": "3"}))).pods
    assert out.message == ("0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 "
                           "No preemption victims found for incoming pod.")
    (out,) = check(cluster(), objects(a_pod("big", {"cpu": "5"}, priorityClassName="high"))).pods
    assert out.message == ("0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 "
                           "Preemption is not helpful for scheduling.")  # more than a node has: unresolvable
    (out,) = check(cluster(), objects(a_pod("sel", {"cpu": "3"}, priorityClassName="high",
                                            node_selector={"zone": "x"}))).pods
    assert out.message == ("0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. "
                           "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.")


def pdb(name: str, app: str, allowed: int | None = None, **spec: Any) -> dict:
    o: dict[str, Any] = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                         "metadata": {"name": name, "namespace": "default"},
                         "spec": {"selector": {"matchLabels": {"app": app}}, **spec}}
    if allowed is not None:
        o["status"] = {"disruptionsAllowed": allowed}
    return o


def test_a_disruption_budget_moves_the_pick_to_the_node_that_does_not_violate_it() -> None:
    c = cluster()
    info = {p.meta.name: PodInfo(p) for p in c.pods}
    budgets = [PDB.of(pdb("a", "a", 0)), PDB.of(pdb("b", "b", maxUnavailable=0), list(info.values()))]
    assert [(b.disruptions_allowed if b else None) for b in budgets] == [0, 0]
    assert budgets[0] is not None and budgets[0].matches(info["low-0"]) and not budgets[0].matches(info["low-1"])
    from dractl.allocator import Allocator
    from dractl.scheduler.schedule_one import SchedulingPass

    hi = objects(*PRIORITY_CLASSES, a_pod("hi", {"cpu": "3"}, priority=1000))[-1]
    sp = SchedulingPass(Allocator(c), pdbs=[pdb("a", "a", 0)])
    p = sp.place(hi, [])
    assert p.preemption is not None and (p.preemption.node, p.preemption.tied) == ("n1", ["n1"])
    assert [v.name for v in p.preemption.victims] == ["low-1"]
    # both nodes violate a budget: the fewest violations, then as before
    sp = SchedulingPass(Allocator(c), pdbs=[pdb("a", "a", 0), pdb("b", "b", 0)])
    p = sp.place(hi, [])
    assert p.preemption is not None and p.preemption.tied == ["n0", "n1"]
    assert p.preemption.num_pdb_violations == 1


def test_fake_apply_evicts_the_victims_and_binds_the_pod_where_they_were() -> None:
    plane = ControlPlane.of(cluster(), random_names=False)
    plane.apply(objects(a_pod("hi", {"cpu": "3"}, priorityClassName="high")), None)
    events = plane.reconcile()
    lines = [(e.ref, e.verb, e.node) for e in events if e.verb in ("preempted", "scheduled")]
    assert lines == [("pod/low-0", "preempted", "n0"), ("pod/hi", "scheduled", "n0")]
    c = plane.cluster()
    assert sorted(p.name for p in c.pods) == ["hi", "low-1", "low-2"]
    hi = next(p for p in c.pods if p.name == "hi")
    assert hi.node_name == "n0" and hi.raw["status"]["nominatedNodeName"] == "n0"


def test_check_reads_the_clusters_disruption_budgets() -> None:
    c = cluster(pdb("a", "a", 0))
    assert [b.meta.name for b in c.pdbs] == ["a"]
    (out,) = check(c, objects(a_pod("hi", {"cpu": "3"}, priorityClassName="high"))).pods
    assert out.preemption == {"node": "n1", "victims": ["default/low-1"], "tiedNodes": ["n1"]}


def test_a_pending_pod_nominated_to_a_node_is_tried_there_first() -> None:
    # n1 has two pods on it and scores lower, but the pod waits for it (an earlier preemption nominated it)
    waiting = a_pod("waiting", {"cpu": "1"}, priority=1000, priorityClassName="high")
    waiting["status"] = {"phase": "Pending", "nominatedNodeName": "n1"}
    plane = ControlPlane.of(cluster(waiting), random_names=False)
    events = plane.reconcile()
    assert [(e.ref, e.node) for e in events if e.verb == "scheduled"] == [("pod/waiting", "n1")]
    fresh = a_pod("fresh", {"cpu": "1"}, priority=1000, priorityClassName="high")
    plane = ControlPlane.of(cluster(fresh), random_names=False)
    assert [(e.ref, e.node) for e in plane.reconcile() if e.verb == "scheduled"] == [("pod/fresh", "n0")]


@pytest.mark.parametrize("case", TABLE["selectVictimsOnNode"], ids=[c["name"] for c in TABLE["selectVictimsOnNode"]])
def test_upstream_select_victims_on_node(case: dict[str, Any]) -> None:
    from dractl.scheduler.framework import Code
    from dractl.scheduler.preemption import select_victims_on_node

    alloc = {**TABLE["resources"]["veryLarge"], "pods": "32"}
    pods = objects(*(a_pod(p["name"], p.get("requests", {}), node_name="node1", priority=p["priority"],
                           labels=p.get("labels")) for p in case["pods"]))
    snapshot = Snapshot.build(["node1"], objects(node("node1", allocatable=alloc)), pods)
    pre = case["preemptor"]
    preemptor = PodInfo(objects(a_pod("p", pre.get("requests", {}), priority=pre["priority"]))[0])
    fw = Framework([NodeResourcesFit()])
    state = CycleState()
    fw.run_pre_filter_plugins(state, preemptor, snapshot)
    budgets = [PDB.of({"metadata": {"namespace": "default"}, "spec": {"selector": b["selector"]},
                       "status": {"disruptionsAllowed": b["disruptionsAllowed"]}}) for b in case["pdbs"]]
    victims, violating, st = select_victims_on_node(fw, state, preemptor, snapshot.node_infos[0].clone(),
                                                    [b for b in budgets if b is not None])
    assert sorted(v.name for v in victims) == sorted(case["victims"])
    assert violating == case["violating"]
    want = Code.SUCCESS if case["status"] is None else Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert st.code == want


def test_pods_nominated_to_a_node_count_there_for_pods_of_no_higher_priority() -> None:
    from dractl.allocator import Allocator
    from dractl.scheduler.schedule_one import SchedulingPass

    nom = a_pod("nom", {"cpu": "3"}, priority=1000)
    nom["status"] = {"phase": "Pending", "nominatedNodeName": "n0"}
    c = cluster_from(objects(node("n0", allocatable=FOUR_CPU), node("n1", allocatable=FOUR_CPU), nom))
    low, high = objects(a_pod("low", {"cpu": "2"}, priority=10), a_pod("high", {"cpu": "2"}, priority=2000))
    p = SchedulingPass(Allocator(c)).place(low, [])
    assert (p.node, p.tied) == ("n1", ["n1"])  # n0 would be short of cpu with nom on it
    p = SchedulingPass(Allocator(c)).place(high, [])
    assert (p.node, p.tied) == ("n0", ["n0", "n1"])
    p = SchedulingPass(Allocator(c), nodes=["n0"]).place(low, [])
    assert p.message == ("0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No "
                         "preemption victims found for incoming pod.")


@pytest.mark.parametrize(("priority", "read"), [(10, 10), (10.0, 10), (None, 0), (-5, -5)])
def test_a_priority_is_read_as_the_apiserver_decodes_it(priority, read):
    """YAML's ``priority: 10.0`` is sent by kubectl as 10 (sigs.k8s.io/yaml), so it is 10, not unset."""
    from dractl.model.parse import parse_object
    from dractl.scheduler.framework import PodInfo

    spec = {"containers": [{"name": "c", "image": "x"}]} | ({} if priority is None else {"priority": priority})
    pod = parse_object({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
                        "spec": spec})
    assert PodInfo(pod).priority == read
