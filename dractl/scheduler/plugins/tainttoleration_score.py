"""TaintToleration's PreScore, Score and NormalizeScore.

Fewer untolerated PreferNoSchedule taints score higher
(pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go). :class:`TaintTolerationScore` holds the
score side for the plugin class that has TaintToleration's filter.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dractl.scheduler.framework import CycleState, NodeInfo, Plugin, PodInfo, Status
from dractl.scheduler.plugins.helper import MAX_NODE_SCORE, default_normalize_score, tolerates

NAME = "TaintToleration"
_PRE_SCORE_KEY = "PreScore" + NAME


def tolerations_prefer_no_schedule(tolerations: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """getAllTolerationPreferNoSchedule: tolerations with no effect (all effects) or PreferNoSchedule."""
    return [t for t in tolerations if not t.get("effect") or t.get("effect") == "PreferNoSchedule"]


def count_intolerable_taints_prefer_no_schedule(node: NodeInfo, tolerations: list[Mapping[str, Any]]) -> int:
    """How many of the node's PreferNoSchedule taints the tolerations do not tolerate."""
    return sum(1 for taint in node.taints
               if taint.get("effect") == "PreferNoSchedule" and not tolerates(tolerations, taint))


class TaintTolerationScore(Plugin):
    """TaintToleration's score side: untolerated PreferNoSchedule taints."""
    name = NAME

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None:
        """Keep the pod's PreferNoSchedule tolerations for scoring."""
        state.data[_PRE_SCORE_KEY] = tolerations_prefer_no_schedule(pod.tolerations)
        return None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        """The number of the node's PreferNoSchedule taints the pod does not tolerate."""
        tolerations = state.data.get(_PRE_SCORE_KEY)
        if not isinstance(tolerations, list):
            return 0  # upstream: an error reading the state
        return count_intolerable_taints_prefer_no_schedule(node, tolerations)

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> None:
        """Scale the counts to 0..100, fewest taints highest."""
        default_normalize_score(MAX_NODE_SCORE, True, scores)
