"""NodePorts (pkg/scheduler/framework/plugins/nodeports/node_ports.go): a pod's host ports must be free."""

from __future__ import annotations

from dractl.scheduler.framework import (
    SKIP,
    CycleState,
    NodeInfo,
    Plugin,
    PodInfo,
    Snapshot,
    Status,
    port_conflict,
    unschedulable,
)

NAME = "NodePorts"
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"


class NodePorts(Plugin):
    """The NodePorts filter plugin: host ports must be free on the node."""
    name = NAME

    def pre_filter(self, state: CycleState, pod: PodInfo, snapshot: Snapshot) -> Status | None:
        """Skip the plugin for a pod without host ports."""
        if not pod.host_ports:
            return SKIP
        return None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        """Whether the pod's host ports are free on the node."""
        for ip, proto, port in pod.host_ports:
            if port_conflict(node.used_ports, ip, proto, port):
                users = [p.name for p in node.pods if any(
                    q[1] == proto and q[2] == port and (ip == "0.0.0.0" or q[0] in ("0.0.0.0", ip))
                    for q in p.host_ports)]
                who = f" (pod {', '.join(users[:3])}{', ...' if len(users) > 3 else ''})" if users else ""
                return unschedulable(ERR_REASON, detail=(f"host port {port}/{proto} on {ip} is in use{who}",))
        return None
