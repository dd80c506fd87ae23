"""kube-scheduler in the control plane: the one entry every caller uses to schedule a pod.

``dractl fake apply``, ``dractl check``, the demos and the watch go through the control plane
(:mod:`dractl.control.plane`), which keeps one :class:`~dractl.scheduler.schedule_one.SchedulingPass` per
reconcile and calls :meth:`~dractl.scheduler.schedule_one.SchedulingPass.place` for each pending pod;
``pods/claims --explain`` go through :mod:`dractl.scheduler.explain`, which uses the same pass. The filters,
their order and their words are in :mod:`dractl.scheduler` (kube-scheduler v1.37's default profile).

:func:`place` runs one pod's claims (no pod: DynamicResources alone) on a cluster's nodes; the answer is the
node chosen, or ``0/N nodes are available: ...`` (pkg/scheduler/framework/types.go ``FitError.Error``), or
upstream's ``no nodes available to schedule pods`` (pkg/scheduler/schedule_one.go ``ErrNoNodesAvailable``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from dractl.scheduler.framework import NO_NODES
from dractl.scheduler.schedule_one import Placement, SchedulingPass

if TYPE_CHECKING:
    from dractl.allocator.core import Allocator
    from dractl.model.objects import Pod, ResourceClaim

__all__ = ["NO_NODES", "Placement", "SchedulingPass", "fit_error", "place"]


def fit_error(nodes: int, reasons: Mapping[str, int]) -> str:
    """The scheduler's FitError text from a histogram of reasons.

    ``FitError.Error()``: ``0/N nodes are available: <count reason>, ....``

    The entries are ``"<count> <reason>"`` sorted as strings, as upstream.
    """
    parts = sorted(f"{n} {r}" for r, n in reasons.items())
    return f"0/{nodes} nodes are available: {', '.join(parts)}."


def place(
    allocator: Allocator,
    nodes: Sequence[str],
    claims: Sequence[ResourceClaim],
    *,
    pod: Pod | None = None,
    explain: bool = False,
    first_fit: bool = False,
    scheduling: SchedulingPass | None = None,
) -> Placement:
    """Schedule ``pod`` with its ``claims`` (allocated together) on ``nodes``.

    The feasible nodes are scored and the first node by name among those with the top total wins (``first_fit``:
    the first feasible node). Without a pod only DynamicResources runs (a claim nobody uses yet) and the first
    node that fits wins.
    """
    sp = scheduling if scheduling is not None else SchedulingPass(allocator)
    return sp.place(pod, claims, nodes=nodes, explain=explain, first_fit=first_fit)
