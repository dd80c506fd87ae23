"""NodeName (pkg/scheduler/framework/plugins/nodename/node_name.go)."""

from __future__ import annotations

from dractl.scheduler.framework import (
    CycleState,
    NodeInfo,
    Plugin,
    PodInfo,
    PreFilterResult,
    Snapshot,
    Status,
    unresolvable,
)

NAME = "NodeName"
ERR_REASON = "node(s) didn't match the requested node name"


class NodeName(Plugin):
    """The NodeName filter plugin: a pod that names a node fits only there."""
    name = NAME
    needs_node = False  # the name is enough

    def pre_filter(self, state: CycleState, pod: PodInfo, snapshot: Snapshot) -> tuple[PreFilterResult | None, None]:
        """Narrow the nodes to the one the pod names, if any."""
        if pod.node_name:
            return PreFilterResult(frozenset((pod.node_name,))), None
        return None, None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        """Whether the node is the one the pod names (any node when it names none)."""
        if pod.node_name and pod.node_name != node.name:
            return unresolvable(ERR_REASON, detail=(f"the pod names node {pod.node_name}",))
        return None
