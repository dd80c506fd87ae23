"""TaintToleration's filter (pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from dractl.model.objects import BLOCKING_EFFECTS
from dractl.scheduler.framework import CycleState, NodeInfo, PodInfo, Status, unresolvable
from dractl.scheduler.plugins.helper import tolerates
from dractl.scheduler.plugins.tainttoleration_score import TaintTolerationScore

NAME = "TaintToleration"
ERR_REASON = "node(s) had untolerated taint(s)"


def untolerated_taint(node: NodeInfo, tolerations: Iterable[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """v1helper.FindMatchingUntoleratedTaint with DoNotScheduleTaintsFilterFunc (NoSchedule, NoExecute).

    DoNotScheduleTaintsFilterFunc (pkg/scheduler/framework/plugins/helper/taint.go) keeps the effects
    that block a device too: :data:`~dractl.model.objects.BLOCKING_EFFECTS`.
    """
    tolerations = list(tolerations)
    for taint in node.taints:
        if taint.get("effect") in BLOCKING_EFFECTS and not tolerates(tolerations, taint):
            return taint
    return None


def taint_text(taint: Mapping[str, Any]) -> str:
    """A taint as ``key=value:effect`` (``key:effect`` without a value)."""
    key, value, effect = taint.get("key") or "", taint.get("value") or "", taint.get("effect") or ""
    return f"{key}={value}:{effect}" if value else f"{key}:{effect}"


class TaintToleration(TaintTolerationScore):
    """The filter here; PreScore, Score and NormalizeScore (PreferNoSchedule) in tainttoleration_score.py."""

    name = NAME

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        """Whether the pod tolerates the node's NoSchedule and NoExecute taints."""
        if not node.taints:
            return None
        taint = untolerated_taint(node, pod.tolerations)
        if taint is None:
            return None
        return unresolvable(ERR_REASON, detail=(f"taint {taint_text(taint)} is not tolerated by the pod",))
