"""kube-scheduler's node filters (dractl.scheduler.plugins), run by the framework, and the summary line."""

from __future__ import annotations

import builders as b

from dractl.control.scheduler import fit_error
from dractl.model.parse import parse_object
from dractl.scheduler.framework import CycleState, PodInfo, Snapshot
from dractl.scheduler.profile import default_framework


def node_filter_reason(pod, node):
    """The reason of the first filter that rejects ``node`` for ``pod``, or None."""
    fw = default_framework()
    snap = Snapshot.build([node.name], [node], [])
    state = CycleState()
    info = PodInfo(pod)
    pre, st, _ = fw.run_pre_filter_plugins(state, info, snap)
    assert st.is_success() and (pre is None or pre.all_nodes())
    st = fw.run_filter_plugins(state, info, snap.node_infos[0])
    return None if st.is_success() else st.message()


def pod(**spec):
    return parse_object(b.pod("p", container="c", **spec))


def node(name="n1", labels=None, **spec):
    return parse_object(b.node(name, {"kubernetes.io/hostname": name, **(labels or {})}, **spec))


def test_plain_pod_fits_a_plain_node():
    assert node_filter_reason(pod(), node()) is None


def test_node_selector_and_required_affinity():
    assert node_filter_reason(pod(nodeSelector={"kubernetes.io/hostname": "n2"}), node("n1")) == (
        "node(s) didn't match Pod's node affinity/selector")
    assert node_filter_reason(pod(nodeSelector={"kubernetes.io/hostname": "n2"}), node("n2")) is None
    aff = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "gpu", "operator": "In", "values": ["a100", "h100"]}]},
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n9"]}]},
    ]}}}
    assert node_filter_reason(pod(affinity=aff), node("n1", {"gpu": "h100"})) is None
    assert node_filter_reason(pod(affinity=aff), node("n9")) is None
    assert node_filter_reason(pod(affinity=aff), node("n1", {"gpu": "t4"})) == (
        "node(s) didn't match Pod's node affinity/selector")


def test_taints_and_tolerations():
    tainted = node(taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}])
    assert node_filter_reason(pod(), tainted) == "node(s) had untolerated taint(s)"
    ok = [{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}]
    assert node_filter_reason(pod(tolerations=ok), tainted) is None
    assert node_filter_reason(pod(tolerations=[{"operator": "Exists"}]), tainted) is None
    wrong = [{"key": "dedicated", "operator": "Equal", "value": "cpu"}]
    assert node_filter_reason(pod(tolerations=wrong), tainted) == "node(s) had untolerated taint(s)"
    # PreferNoSchedule never filters
    assert node_filter_reason(pod(), node(taints=[{"key": "k", "effect": "PreferNoSchedule"}])) is None


def test_cordoned_node_and_order_of_filters():
    cordoned = node(unschedulable=True, taints=[{"key": "x", "effect": "NoSchedule"}])
    # NodeUnschedulable runs before TaintToleration and NodeAffinity
    assert node_filter_reason(pod(nodeSelector={"a": "b"}), cordoned) == "node(s) were unschedulable"
    tol = [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}]
    assert node_filter_reason(pod(tolerations=tol), cordoned) == "node(s) had untolerated taint(s)"


def test_summary_line_is_sorted_like_the_scheduler():
    assert fit_error(12, {"cannot allocate all claims": 2,
                                    "node(s) didn't match Pod's node affinity/selector": 10}) == (
        "0/12 nodes are available: 10 node(s) didn't match Pod's node affinity/selector, "
        "2 cannot allocate all claims.")


def test_framework_stops_at_each_nodes_first_failing_filter():
    from dractl.scheduler.framework import find_nodes_that_fit

    nodes = [node("n1"), node("n2", taints=[{"key": "k", "effect": "NoExecute"}]), node("n3", unschedulable=True)]
    snap = Snapshot.build([n.name for n in nodes], nodes, [])
    fw = default_framework()
    res = find_nodes_that_fit(fw, CycleState(), PodInfo(pod()), snap, first_fit=False)
    assert [n.name for n in res.feasible] == ["n1"]
    res = find_nodes_that_fit(fw, CycleState(), PodInfo(pod(nodeSelector={"kubernetes.io/hostname": "n2"})), snap)
    assert not res.feasible
    assert {n: st.message() for n, st in res.diagnosis.node_to_status.items()} == {
        "n1": "node(s) didn't match Pod's node affinity/selector", "n2": "node(s) had untolerated taint(s)",
        "n3": "node(s) were unschedulable"}
    assert res.message() == ("0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
                             "1 node(s) had untolerated taint(s), 1 node(s) were unschedulable.")


def test_node_affinity_to_node_names_narrows_the_nodes_in_prefilter():
    """node_affinity.go PreFilter: a metadata.name In term in every term gives a PreFilterResult; the other
    nodes count as "didn't satisfy plugin(s) [NodeAffinity]" (schedule_one.go findNodesThatFitPod)."""
    from dractl.scheduler.framework import find_nodes_that_fit

    nodes = [node("n1"), node("n2"), node("n3", {"gpu": "t4"})]
    snap = Snapshot.build([n.name for n in nodes], nodes, [])
    aff = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n3"]}],
         "matchExpressions": [{"key": "gpu", "operator": "In", "values": ["h100"]}]}]}}}
    res = find_nodes_that_fit(default_framework(), CycleState(), PodInfo(pod(affinity=aff)), snap)
    assert res.message() == ("0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
                             "2 node(s) didn't satisfy plugin(s) [NodeAffinity].")
    conflict = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]},
                         {"key": "metadata.name", "operator": "In", "values": ["n2"]}]}]}}}
    res = find_nodes_that_fit(default_framework(), CycleState(), PodInfo(pod(affinity=conflict)), snap)
    assert res.message() == "0/3 nodes are available: pod affinity terms conflict."
