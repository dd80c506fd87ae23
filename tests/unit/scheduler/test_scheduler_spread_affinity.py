"""PodTopologySpread and InterPodAffinity in the default profile: the scheduler's reasons, and dractl's
explanation of each rejected node in the user's numbers (Status.detail)."""

from __future__ import annotations

from typing import Any

import builders as b

from dractl.model.parse import parse_object
from dractl.scheduler.framework import CycleState, PodInfo, Snapshot, find_nodes_that_fit
from dractl.scheduler.profile import default_framework

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"


def node(name: str, zone: str | None = None, **labels: str) -> Any:
    lab = {HOST: name, **labels}
    if zone:
        lab[ZONE] = zone
    return parse_object(b.node(name, lab))


def pod(name: str, on: str | None = None, labels: dict[str, str] | None = None, ns: str = "default", **spec: Any):
    d = b.pod(name, ns=ns, container="c", **spec)
    d["metadata"]["labels"] = labels or {}
    if on:
        d["spec"]["nodeName"] = on
    return parse_object(d)


def run(p: Any, nodes: list[Any], pods: list[Any], namespaces: list[Any] = ()) -> dict[str, Any]:
    """node name -> its first failing status (None when the node fits), checking every node."""
    snap = Snapshot.build([n.name for n in nodes], nodes, pods, [parse_object(ns) for ns in namespaces])
    res = find_nodes_that_fit(default_framework(), CycleState(), PodInfo(p), snap, first_fit=False)
    out: dict[str, Any] = {n.name: None for n in res.feasible}
    out.update(res.diagnosis.node_to_status)
    out["message"] = res.message() if not res.feasible else None
    return out


def spread(max_skew: int = 1, key: str = ZONE, when: str = "DoNotSchedule", **extra: Any) -> dict[str, Any]:
    return {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": when,
            "labelSelector": {"matchLabels": {"app": "web"}}, **extra}


WEB = {"app": "web"}


def test_spread_skew_is_explained_with_the_domain_counts() -> None:
    nodes = [node("a1", "zone-a"), node("a2", "zone-a"), node("b1", "zone-b")]
    pods = [pod(f"w{i}", n, WEB) for i, n in enumerate(["a1", "a1", "a2", "b1"])]
    r = run(pod("new", labels=WEB, topologySpreadConstraints=[spread()]), nodes, pods)
    assert r["b1"] is None
    st = r["a1"]
    assert (st.plugin, st.reasons) == ("PodTopologySpread", ("node(s) didn't match pod topology spread constraints",))
    assert st.detail == (
        "topologySpreadConstraints[0] (selector app=web, maxSkew 1): topology.kubernetes.io/zone: zone-a has 3 "
        "matching pods, zone-b 1; placing here makes skew 3 > maxSkew 1 (3 + 1 for the pod itself - 1, the "
        "fewest, in zone-b)",)


def test_a_node_without_the_topology_label_is_unresolvable() -> None:
    nodes = [node("a1", "zone-a"), node("nozone")]
    r = run(pod("new", labels=WEB, topologySpreadConstraints=[spread()]), nodes, [])
    st = r["nozone"]
    assert st.reasons == ("node(s) didn't match pod topology spread constraints (missing required label)",)
    assert st.code.name == "UNSCHEDULABLE_AND_UNRESOLVABLE"
    assert st.detail == ("topologySpreadConstraints[0] (selector app=web, maxSkew 1): the node has no label "
                         "topology.kubernetes.io/zone",)


def test_min_domains_makes_the_global_minimum_zero() -> None:
    nodes = [node("a1", "zone-a"), node("b1", "zone-b")]
    pods = [pod("w0", "a1", WEB), pod("w1", "b1", WEB)]
    r = run(pod("new", labels=WEB, topologySpreadConstraints=[spread(minDomains=3)]), nodes, pods)
    assert r["message"] == "0/2 nodes are available: 2 node(s) didn't match pod topology spread constraints."
    assert r["a1"].detail[0].endswith(
        "placing here makes skew 2 > maxSkew 1 (1 + 1 for the pod itself - 0, the global minimum counts as 0: "
        "only 2 domains, fewer than minDomains 3)")


def test_node_taints_policy_honor_leaves_tainted_nodes_out_of_the_counts() -> None:
    tainted = parse_object(b.node("t1", {HOST: "t1", ZONE: "zone-t"},
                                  taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}]))
    nodes = [node("a1", "zone-a"), node("b1", "zone-b"), tainted]
    pods = [pod("w0", "a1", WEB), pod("w1", "b1", WEB)]
    honor = run(pod("new", labels=WEB, topologySpreadConstraints=[spread(nodeTaintsPolicy="Honor")]), nodes, pods)
    # zone-t is not a domain: the minimum stays 1 and the pod fits in zone-a or zone-b
    assert honor["a1"] is None and honor["b1"] is None
    ignore = run(pod("new", labels=WEB, topologySpreadConstraints=[spread()]), nodes, pods)
    # zone-t counts (0 pods): placing in zone-a makes skew 2
    assert ignore["a1"].reasons == ("node(s) didn't match pod topology spread constraints",)


def test_match_label_keys_narrow_the_counted_pods() -> None:
    nodes = [node("a1", "zone-a"), node("b1", "zone-b")]
    old = {"app": "web", "rev": "1"}
    pods = [pod("w0", "a1", old), pod("w1", "a1", old)]
    new = {"app": "web", "rev": "2"}
    r = run(pod("new", labels=new, topologySpreadConstraints=[spread(matchLabelKeys=["rev"])]), nodes, pods)
    assert r["a1"] is None and r["b1"] is None  # rev=1 pods are not counted for rev=2


def test_anti_affinity_names_the_term_and_the_pod() -> None:
    nodes = [node("n1", "zone-a"), node("n2", "zone-b")]
    pods = [pod("db-0", "n1", {"app": "db"})]
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": ZONE}]}}
    r = run(pod("db-1", labels={"app": "db"}, affinity=anti), nodes, pods)
    assert r["n2"] is None
    st = r["n1"]
    assert (st.plugin, st.reasons) == ("InterPodAffinity", ("node(s) didn't match pod anti-affinity rules",))
    assert st.detail == ("podAntiAffinity term 0 (app=db by topology.kubernetes.io/zone): pod default/db-0 "
                         "(node n1) in topology.kubernetes.io/zone=zone-a matches it",)


def test_existing_pods_anti_affinity_names_the_pod() -> None:
    nodes = [node("n1", "zone-a"), node("n2", "zone-a"), node("n3", "zone-b")]
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"team": "ml"}}, "topologyKey": ZONE}]}}
    pods = [pod("loner", "n1", {"app": "x"}, affinity=anti)]
    r = run(pod("train", labels={"team": "ml"}), nodes, pods)
    assert r["n3"] is None
    assert r["n2"].reasons == ("node(s) didn't satisfy existing pods anti-affinity rules",)
    assert r["n2"].detail == (
        "pod default/loner on node n1 has podAntiAffinity term 0 (team=ml by topology.kubernetes.io/zone) that "
        "this pod matches, and the node is in the same topology.kubernetes.io/zone=zone-a",)


def test_affinity_without_a_matching_pod_is_unresolvable_and_the_first_pod_may_match_itself() -> None:
    nodes = [node("n1", "zone-a"), node("n2", "zone-b")]
    aff = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": ZONE}]}}
    # no cache pod anywhere and the pod is no cache: nowhere
    r = run(pod("web", labels=WEB, affinity=aff), nodes, [])
    assert r["message"] == "0/2 nodes are available: 2 node(s) didn't match pod affinity rules."
    assert r["n1"].code.name == "UNSCHEDULABLE_AND_UNRESOLVABLE"
    # the first cache pod matches its own term: it may go anywhere
    r = run(pod("cache-0", labels={"app": "cache"}, affinity=aff), nodes, [])
    assert r["n1"] is None and r["n2"] is None
    # once one runs in zone-b, only zone-b
    r = run(pod("web", labels=WEB, affinity=aff), nodes, [pod("cache-0", "n2", {"app": "cache"})])
    assert r["n2"] is None
    assert r["n1"].detail == ("podAffinity term 0 (app=cache by topology.kubernetes.io/zone): no pod matching every "
                              "term runs in topology.kubernetes.io/zone=zone-a",)


def test_namespace_selector_reads_the_namespaces_labels() -> None:
    nodes = [node("n1", "zone-a"), node("n2", "zone-b")]
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": ZONE,
         "namespaceSelector": {"matchLabels": {"tier": "prod"}}}]}}
    pods = [pod("db-0", "n1", {"app": "db"}, ns="prod-a"), pod("db-0", "n2", {"app": "db"}, ns="dev")]
    namespaces = [b.namespace("prod-a", {"tier": "prod"}), b.namespace("dev", {"tier": "dev"})]
    r = run(pod("db-1", labels={"app": "db"}, affinity=anti), nodes, pods, namespaces)
    assert r["n2"] is None  # the dev pod is not in a tier=prod namespace
    assert r["n1"].reasons == ("node(s) didn't match pod anti-affinity rules",)


def test_pod_affinity_match_label_keys_are_merged_as_the_apiserver_does() -> None:
    nodes = [node("n1", "zone-a"), node("n2", "zone-b")]
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": ZONE,
         "mismatchLabelKeys": ["tenant"]}]}}
    pods = [pod("a", "n1", {"app": "web", "tenant": "t1"}), pod("b", "n2", {"app": "web", "tenant": "t2"})]
    # "app=web and tenant notin (t1)": only the t2 pod repels a t1 pod
    r = run(pod("c", labels={"app": "web", "tenant": "t1"}, affinity=anti), nodes, pods)
    assert r["n1"] is None
    assert r["n2"].reasons == ("node(s) didn't match pod anti-affinity rules",)


def test_a_snapshot_keeps_what_spread_and_affinity_read() -> None:
    from dractl.sources.snapshot_doc import clean

    aff = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": ZONE}]}}
    p = pod("db-0", "n1", {"app": "db"}, affinity=aff, topologySpreadConstraints=[spread()])
    kept = clean(dict(p.raw))
    assert kept["metadata"]["labels"] == {"app": "db"}
    assert kept["spec"]["affinity"] == aff
    assert kept["spec"]["topologySpreadConstraints"] == [spread()]
    ns = clean(b.namespace("prod-a", {"tier": "prod"}))
    assert ns["metadata"]["labels"] == {"tier": "prod"}
