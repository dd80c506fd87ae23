"""Upstream's PodTopologySpread test tables (filtering_test.go, scoring_test.go of kube-scheduler v1.37.2),
replayed through dractl's plugin: every case's statuses, cycle states and scores as upstream's plugin gave them
(see scheduler_upstream.py)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pytest
from scheduler_upstream import case_id, load, replay

from dractl.scheduler.framework import CycleState
from dractl.scheduler.plugins import podtopologyspread as pts

CASES = load("podtopologyspread")
# Upstream tests that are not about what a scheduler decides: the plugin's signature for pod grouping
# (SignPod, not modelled), a resize-deferred pod (InPlacePodVerticalScalingSchedulerPreemption, alpha, off).
NOT_PORTED = {"TestPodTopoSignatures", "TestPodTopologySpread_DeferredResizeSkipped"}
PORTED = [c for c in CASES if c["test"] not in NOT_PORTED]


def make_plugin(
    args: Mapping[str, Any], objs: list[Mapping[str, Any]], flags: Mapping[str, Any]
) -> pts.PodTopologySpread:
    kinds = {"Service": "Service", "ReplicaSet": "ReplicaSet", "StatefulSet": "StatefulSet",
             "ReplicationController": "ReplicationController"}
    controllers = [{**o, "kind": kinds[o["goType"]]} for o in objs if o.get("goType") in kinds]
    return pts.PodTopologySpread(
        default_constraints=args.get("DefaultConstraints") or (),
        system_defaulting=args.get("DefaultingType") != "List",
        controllers=controllers,
        enable_node_inclusion_policy=bool(flags.get("enableNodeInclusionPolicy")),
        enable_match_label_keys=bool(flags.get("enableMatchLabelKeys")),
    )


MAX_INT32 = 2**31 - 1


def _paths(pairs: list[tuple[str, int]], counts: Mapping[str, int]) -> list[tuple[str, int]]:
    """Critical paths compared as upstream's stateCmpOpts do (the two paths with the same count in value
    order). Where several domains have the same count, upstream keeps whichever its map iteration met
    first (Go randomizes map order), so only the count is compared there."""
    (v0, n0), (v1, n1) = pairs
    if n0 == n1 and v0 > v1:
        v0, v1 = v1, v0
    ties = {n for n in counts.values() if list(counts.values()).count(n) > 1}
    return [(v0 if n0 not in ties else "*", n0), (v1 if n1 not in ties else "*", n1)]


def _constraint(c: Any) -> tuple:
    if isinstance(c, pts.TopologySpreadConstraint):
        return (c.max_skew, c.topology_key, str(c.selector), c.selector.empty(), c.min_domains,
                c.node_affinity_policy, c.node_taints_policy)
    return (c["MaxSkew"], c["TopologyKey"], c["Selector"]["selector"], c["Selector"]["empty"], c["MinDomains"],
            c["NodeAffinityPolicy"], c["NodeTaintsPolicy"])


def dractl_state(which: str, state: CycleState) -> Any:
    if which == "prefilter":
        s = state.data.get("PreFilterPodTopologySpread")
        if s is None:
            return None
        return {
            "constraints": [_constraint(c) for c in s.constraints],
            "paths": [_paths([(p[0], MAX_INT32 if p[1] == math.inf else p[1]) for p in cp.paths], counts)
                      for cp, counts in zip(s.critical_paths, s.tp_value_to_match_num, strict=True)],
            "counts": s.tp_value_to_match_num,
        }
    s = state.data.get("PreScorePodTopologySpread")
    if s is None:
        return None
    return {
        "constraints": [_constraint(c) for c in s.constraints],
        "ignored": sorted(s.ignored_nodes),
        "counts": s.topology_value_to_pod_counts,
        "weights": s.topology_normalizing_weight,
    }


def go_state(which: str, d: Any) -> Any:
    if d is None:
        return None
    if which == "prefilter":
        return {
            "constraints": [_constraint(c) for c in d["Constraints"] or ()],
            "paths": [_paths([(p["TopologyValue"], p["MatchNum"]) for p in cp], counts)
                      for cp, counts in zip(d["CriticalPaths"] or (), d["TpValueToMatchNum"] or (), strict=True)],
            "counts": list(d["TpValueToMatchNum"] or ()),
        }
    return {
        "constraints": [_constraint(c) for c in d["Constraints"] or ()],
        "ignored": sorted(d["IgnoredNodes"] or ()),
        "counts": [dict(m) for m in d["TopologyValueToPodCounts"] or ()],
        "weights": list(d["TopologyNormalizingWeight"] or ()),
    }


def test_every_upstream_case_is_here() -> None:
    counts: dict[str, int] = {}
    for c in CASES:
        counts[c["test"]] = counts.get(c["test"], 0) + 1
    assert counts == {
        "TestPreFilterState": 36, "TestPreFilterStateAddPod": 16, "TestPreFilterStateRemovePod": 9,
        "TestSingleConstraint": 23, "TestMultipleConstraints": 13, "TestPreFilterDisabled": 1,
        "TestPodTopoSignatures": 3, "TestPodTopologySpread_DeferredResizeSkipped": 1, "TestPreScoreSkip": 2,
        "TestPreScoreStateEmptyNodes": 12, "TestPodTopologySpreadScore": 28,
    }


@pytest.mark.parametrize("case", PORTED, ids=case_id)
def test_upstream_case(case: Mapping[str, Any]) -> None:
    diffs = replay(case, make_plugin, dractl_state, go_state)
    assert not diffs, "\n".join(diffs)
