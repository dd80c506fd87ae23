"""NodeAffinity's PreFilter and Filter (pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go).

They check spec.nodeSelector and the required node affinity (k8s.io/component-helpers/scheduling/corev1/nodeaffinity).
"""

from __future__ import annotations

from dataclasses import dataclass

from dractl.model.objects import NodeSelector
from dractl.scheduler.framework import (
    SKIP,
    CycleState,
    NodeInfo,
    PodInfo,
    PreFilterResult,
    Snapshot,
    Status,
    unresolvable,
)
from dractl.scheduler.plugins.nodeaffinity_score import NodeAffinityScore

NAME = "NodeAffinity"
ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_CONFLICT = "pod affinity terms conflict"


@dataclass(frozen=True)
class _State:
    required: NodeSelector | None


class NodeAffinity(NodeAffinityScore):
    """PreFilter and Filter here; PreScore, Score and NormalizeScore (preferred terms) in nodeaffinity_score.py."""

    name = NAME

    def pre_filter(
        self, state: CycleState, pod: PodInfo, snapshot: Snapshot
    ) -> tuple[PreFilterResult | None, Status | None]:
        """Parse the pod's node selection once; narrow the nodes when its terms name nodes by name."""
        required = pod.required_node_affinity
        if required is None and not pod.node_selector and "nodeSelector" not in pod.spec:
            return None, SKIP  # nothing to do with the pod
        state.data[NAME] = _State(required)
        if required is None or not required.terms:
            return None, None
        names: set[str] | None = None
        for t in required.terms:
            term_names: set[str] | None = None
            for r in t.match_fields:
                if r.key == "metadata.name" and r.operator == "In":
                    s = set(r.values)
                    term_names = s if term_names is None else term_names & s
            if term_names is None:
                return None, None  # this term allows every node: the terms are ORed
            names = term_names if names is None else names | term_names
        if names is not None and not names:
            return None, unresolvable(ERR_REASON_CONFLICT)
        if names:
            return PreFilterResult(frozenset(names)), None
        return None, None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        """Whether the node matches the pod's nodeSelector and required node affinity."""
        labels = node.labels
        for k, v in pod.node_selector.items():
            if labels.get(k) != v:
                have = labels.get(k)
                return unresolvable(ERR_REASON_POD, detail=(
                    f"nodeSelector {k}={v}: the node has " + (f"{k}={have}" if have is not None else f"no {k}"),))
        s = state.data.get(NAME)
        required = s.required if isinstance(s, _State) else pod.required_node_affinity
        if required is not None and not required.matches(node.name, labels):
            return unresolvable(ERR_REASON_POD, detail=("no term of the required node affinity matches the node",))
        return None
