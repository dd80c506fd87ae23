"""NodeResourcesFit and NodePorts (dractl.scheduler.plugins), against upstream's own test tables.

The fit cases are every Filter call of upstream's fit_test.go filter tests, with upstream's statuses,
recorded by running those tests (tests/fixtures/upstream/scheduler-noderesources-fit-filter.json says how).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dractl.model.parse import parse_object
from dractl.scheduler.framework import Code, CycleState, NodeInfo, PodInfo, Snapshot
from dractl.scheduler.plugins.noderesources import NodeResourcesFit

FIT = json.loads((Path(__file__).parents[2] / "fixtures/upstream/scheduler-noderesources-fit-filter.json").read_text())
CODES = {"Success": Code.SUCCESS, "Unschedulable": Code.UNSCHEDULABLE,
         "UnschedulableAndUnresolvable": Code.UNSCHEDULABLE_AND_UNRESOLVABLE}


def _pod(name, spec, status=None, node=""):
    spec = dict(spec)
    if node:
        spec["nodeName"] = node
    return parse_object({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
                         "spec": spec, "status": status or {}}, validate=False)


def _node(name, allocatable, labels=None):
    return parse_object({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels or {}},
                         "status": {"allocatable": allocatable}}, validate=False)


@pytest.mark.parametrize("case", FIT["cases"], ids=lambda c: c["test"])
def test_upstream_fit_filter_case(case):
    node = _node("n", case["allocatable"])
    pods = [_pod(f"p{i}", p["spec"], p["status"], "n") for i, p in enumerate(case["pods"])]
    snap = Snapshot.build(["n"], [node], pods)
    classes = case["draClasses"]
    plugin = NodeResourcesFit(
        enable_pod_level_resources=case["podLevelResources"],
        ignored_resources=case["ignoredResources"],
        ignored_resource_groups=case["ignoredResourceGroups"],
        resolve_class=classes.get if case["draExtendedResource"] else None,
    )
    state = CycleState()
    pod = PodInfo(_pod("incoming", case["pod"]["spec"], case["pod"]["status"]))
    assert plugin.pre_filter(state, pod, snap) is None
    st = plugin.filter(state, pod, snap.node_infos[0])
    code = Code.SUCCESS if st is None else st.code
    assert code == CODES[case["code"]]
    assert sorted(st.reasons if st else ()) == sorted(case["reasons"])


def _fit(pod, node_info):
    plugin = NodeResourcesFit()
    state = CycleState()
    p = PodInfo(pod)
    plugin.pre_filter(state, p, Snapshot([node_info]))
    return plugin.filter(state, p, node_info)


def test_one_reason_per_missing_resource_with_the_users_numbers():
    node = _node("r0-n1", {"cpu": "16", "memory": "64Gi", "pods": "110", "example.com/fpga": "1"})
    ctr = {"name": "c", "resources": {"requests": {"cpu": "4", "memory": "1Gi"}}}
    running = [_pod(n, {"containers": [ctr]}, node="r0-n1") for n in ("a", "b", "c")]
    ni = Snapshot.build(["r0-n1"], [node], running).node_infos[0]
    big = _pod("big", {
        "initContainers": [{"name": "init", "resources": {"requests": {"cpu": "12"}}}],
        "containers": [{"name": "x", "resources": {"requests": {"cpu": "4", "memory": "100Gi"}}},
                       {"name": "y", "resources": {"requests": {"cpu": "4"}, "limits": {"example.com/fpga": "2"}}}],
    })
    st = _fit(big, ni)
    assert st is not None and st.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert st.reasons == ("Insufficient cpu", "Insufficient memory", "Insufficient example.com/fpga")
    assert st.detail == (
        "Insufficient cpu: the pod requests 12 (init container init: 12; containers: 4 + 4), 16 allocatable, "
        "12 requested by 3 pods (a, b, c)",
        "Insufficient memory: the pod requests 100Gi, 64Gi allocatable, 3Gi requested by 3 pods (a, b, c)",
        "Insufficient example.com/fpga: the pod requests 2, 1 allocatable, none requested by other pods",
    )


def test_a_node_without_allocatable_refuses_every_pod_and_says_why():
    ni = NodeInfo("n1", _node("n1", None))
    st = _fit(_pod("p", {"containers": [{"name": "c"}]}), ni)
    assert st is not None and st.reasons == ("Too many pods",)
    assert st.detail == ("Too many pods: node n1 has no allocatable in this source",)


def test_too_many_pods_counts_the_pods_on_the_node():
    node = _node("n1", {"cpu": "4", "pods": "2"})
    ni = Snapshot.build(["n1"], [node], [_pod(n, {"containers": [{"name": "c"}]}, node="n1") for n in "ab"])
    st = _fit(_pod("p", {"containers": [{"name": "c"}]}), ni.node_infos[0])
    assert st is not None and st.code == Code.UNSCHEDULABLE
    assert (st.reasons, st.detail) == (("Too many pods",), ("Too many pods: 2 of 2",))


PORTS = json.loads((Path(__file__).parents[2] / "fixtures/upstream/scheduler-nodeports-filter.json").read_text())


@pytest.mark.parametrize("case", PORTS["cases"])
def test_upstream_nodeports_case(case):
    from dractl.scheduler.plugins.nodeports import NodePorts

    node = _node("n", {"pods": "110"})
    snap = Snapshot.build(["n"], [node], [_pod(f"p{i}", s, node="n") for i, s in enumerate(case["pods"])])
    plugin, state = NodePorts(), CycleState()
    pod = PodInfo(_pod("incoming", case["pod"]))
    pre = plugin.pre_filter(state, pod, snap)
    st = None if pre is not None and pre.is_skip() else plugin.filter(state, pod, snap.node_infos[0])
    assert (Code.SUCCESS if st is None else st.code) == CODES[case["code"]]
    assert list(st.reasons if st else ()) == case["reasons"]


def test_a_nodes_sum_counts_each_pods_own_requests_when_specs_are_alike():
    # Pods of one spec share the sum worked out for it; a resize status or an init container's restartPolicy
    # still gives a pod its own (types.go CalculateResource).
    c = {"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}
    init = {"name": "s", "image": "i", "resources": {"requests": {"cpu": "2"}}}
    resized = {"containerStatuses": [{"name": "c", "allocatedResources": {"cpu": "3"}}]}
    pods = [
        _pod("a", {"containers": [c]}, node="n"),
        _pod("b", {"containers": [c]}, node="n"),
        _pod("resized", {"containers": [c]}, resized, node="n"),  # max(1, allocated 3)
        _pod("sidecar", {"containers": [c], "initContainers": [{**init, "restartPolicy": "Always"}]}, node="n"),  # 1+2
        _pod("init", {"containers": [c], "initContainers": [init]}, node="n"),  # max(1, 2)
    ]
    ni = Snapshot.build(["n"], [_node("n", {"cpu": "100"})], pods).node_infos[0]
    assert ni.requested.milli_cpu == 1000 + 1000 + 3000 + 3000 + 2000
    # none asks for memory: 200Mi for each container, the sidecar's added
    assert ni.non_zero_requested.memory == (1 + 1 + 1 + 2 + 1) * 200 * 1024 * 1024
