"""kube-scheduler's node filters before DynamicResources, and the scheduler's summary line."""

from __future__ import annotations

import builders as b

from dractl.allocator.nodefilter import node_filter_reason
from dractl.control.scheduler import fit_error
from dractl.model.parse import parse_object


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


def test_node_filter_looks_at_every_node_only_for_pods_that_place_themselves():
    from dractl.allocator.nodefilter import NodeFilter

    nodes = [node("n1"), node("n2", taints=[{"key": "k", "effect": "NoExecute"}]), node("n3", unschedulable=True)]
    f = NodeFilter(nodes)
    assert [n.name for n in f.restricted] == ["n2", "n3"]
    assert f.rejected(pod()) == {"n2": "node(s) had untolerated taint(s)", "n3": "node(s) were unschedulable"}
    assert f.rejected(pod(nodeSelector={"kubernetes.io/hostname": "n2"})) == {
        "n1": "node(s) didn't match Pod's node affinity/selector", "n2": "node(s) had untolerated taint(s)",
        "n3": "node(s) were unschedulable"}
    assert f.rejected(None) == {}
