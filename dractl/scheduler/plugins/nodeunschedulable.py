"""NodeUnschedulable (pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go)."""

from __future__ import annotations

from dractl.scheduler.framework import CycleState, NodeInfo, Plugin, PodInfo, Status, unresolvable
from dractl.scheduler.plugins.helper import tolerates

NAME = "NodeUnschedulable"
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
UNSCHEDULABLE_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}


class NodeUnschedulable(Plugin):
    """The NodeUnschedulable filter plugin: cordoned nodes."""
    name = NAME

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        """Whether the node is schedulable, or the pod tolerates its unschedulable taint."""
        if not node.unschedulable:
            return None
        # A pod that tolerates the unschedulable taint also tolerates spec.unschedulable.
        if tolerates(pod.tolerations, UNSCHEDULABLE_TAINT):
            return None
        return unresolvable(ERR_REASON_UNSCHEDULABLE, detail=("the node is cordoned (spec.unschedulable)",))
