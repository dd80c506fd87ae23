"""kube-scheduler's node filters that run before DynamicResources, in the scheduler's words.

A node that one of these rejects is counted under that reason in ``0/N nodes are available: ...`` and is
never tried by the DRA plugin: the framework stops at a node's first failing filter. The default profile's
filter order is kube-scheduler's ``pkg/scheduler/apis/config/v1/default_plugins.go`` (v1.37): NodeName,
NodeUnschedulable, TaintToleration, NodeAffinity, NodePorts, NodeResourcesFit, volume plugins,
PodTopologySpread, InterPodAffinity, then DynamicResources. dractl models the four that depend only on the
pod's and the node's specs; ports, cpu/memory, volumes and inter-pod rules are not simulated.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from dractl.model.objects import Node, NodeSelector, Pod
from dractl.model.parse import node_selector

# pkg/scheduler/framework/plugins/nodename/node_name.go
REASON_NODE_NAME = "node(s) didn't match the requested node name"
# pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go
REASON_UNSCHEDULABLE = "node(s) were unschedulable"
# pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go (Filter)
REASON_TAINT = "node(s) had untolerated taint(s)"
# pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go (ErrReasonPod)
REASON_AFFINITY = "node(s) didn't match Pod's node affinity/selector"

UNSCHEDULABLE_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}


def _spec(obj: Pod | Node) -> Mapping[str, Any]:
    spec = obj.raw.get("spec") if obj.raw else None
    return spec if isinstance(spec, Mapping) else {}


def tolerates(tolerations: Iterable[Mapping[str, Any]], taint: Mapping[str, Any]) -> bool:
    """Whether any toleration tolerates the taint (k8s.io/api core/v1 Toleration.ToleratesTaint)."""
    for t in tolerations:
        effect = t.get("effect") or ""
        if effect and effect != taint.get("effect"):
            continue
        key = t.get("key") or ""
        op = t.get("operator") or "Equal"
        if key and key != taint.get("key"):
            continue
        if op == "Exists":
            return True
        if op == "Equal" and key and (t.get("value") or "") == (taint.get("value") or ""):
            return True
        # Gt/Lt need the TaintTolerationComparisonOperators gate (alpha, off in v1.37).
    return False


def _required_affinity(pod: Pod) -> NodeSelector | None:
    aff = _spec(pod).get("affinity") or {}
    req = ((aff.get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")) or None
    return node_selector(req) if req else None


def node_filter_reason(pod: Pod, node: Node) -> str | None:
    """The reason the first of these filters gives for ``node``, or None when the node passes them all."""
    pod_spec, node_spec = _spec(pod), _spec(node)
    if pod.node_name and pod.node_name != node.name:
        return REASON_NODE_NAME
    tolerations = pod_spec.get("tolerations") or ()
    if node_spec.get("unschedulable") and not tolerates(tolerations, UNSCHEDULABLE_TAINT):
        return REASON_UNSCHEDULABLE
    for taint in node_spec.get("taints") or ():
        if taint.get("effect") in ("NoSchedule", "NoExecute") and not tolerates(tolerations, taint):
            return REASON_TAINT
    labels = node.labels
    for k, v in pod.node_selector.items():
        if labels.get(k) != v:
            return REASON_AFFINITY
    required = _required_affinity(pod)
    if required is not None and not required.matches(node.name, labels):
        return REASON_AFFINITY
    return None


class NodeFilter:
    """The filters for many pods over one set of nodes: built once per scheduling pass.

    Most pods name no node, selector or affinity, and most nodes have no taint and are not cordoned;
    such a pod can only be turned away by the few nodes that do, so only those are looked at.
    """

    def __init__(self, nodes: Iterable[Node]) -> None:
        self.nodes = list(nodes)
        self.restricted = [n for n in self.nodes if _spec(n).get("taints") or _spec(n).get("unschedulable")]

    def rejected(self, pod: Pod | None) -> dict[str, str]:
        """Node name -> reason, for the nodes these filters reject for ``pod`` (none without a pod)."""
        if pod is None:
            return {}
        places = pod.node_name or pod.node_selector or (_spec(pod).get("affinity") or {}).get("nodeAffinity")
        out = {}
        for n in self.nodes if places else self.restricted:
            r = node_filter_reason(pod, n)
            if r is not None:
                out[n.name] = r
        return out


def rejected_nodes(pod: Pod | None, nodes: Iterable[Node]) -> dict[str, str]:
    """Node name -> reason, for the nodes these filters reject for ``pod`` (none without a pod)."""
    return NodeFilter(nodes).rejected(pod)
