"""Upstream's score tables for the default profile's other score plugins, replayed through dractl's plugins
(see scheduler_upstream.py): NodeResourcesFit's LeastAllocated (least_allocated_test.go),
NodeResourcesBalancedAllocation (balanced_allocation_test.go), TaintToleration (taint_toleration_test.go
TestTaintTolerationScore), NodeAffinity (node_affinity_test.go TestNodeAffinityPriority), ImageLocality
(image_locality_test.go TestImageLocalityPriority), kube-scheduler v1.37.2."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest
from scheduler_upstream import case_id, load, replay

from dractl.scheduler.framework import Plugin
from dractl.scheduler.plugins.imagelocality import ImageLocality
from dractl.scheduler.plugins.nodeaffinity import NodeAffinity
from dractl.scheduler.plugins.noderesources_score import FitScore, NodeResourcesBalancedAllocation, ScoreFeatures
from dractl.scheduler.plugins.tainttoleration import TaintToleration

# Upstream's tests build the plugins with feature.Features{}: every gate the scorers read is off.
GATES_OFF = ScoreFeatures(in_place_pod_vertical_scaling=False, pod_level_resources=False,
                          in_place_pod_level_resources_vertical_scaling=False)


def _resources(spec: Any) -> list[tuple[str, int]]:
    return [(r["Name"], r["Weight"]) for r in spec or ()]


MakePlugin = Callable[[Mapping[str, Any], list[Mapping[str, Any]], Mapping[str, Any]], Plugin]

PLUGINS: dict[tuple[str, str], MakePlugin] = {
    ("noderesources-score", "TestLeastAllocatedScoringStrategy"):
        lambda args, objs, flags: FitScore(scoring_resources=_resources(flags.get("resources")),
                                           score_features=GATES_OFF),
    ("noderesources-score", "TestNodeResourcesBalancedAllocation"):
        lambda args, objs, flags: NodeResourcesBalancedAllocation(
            resources=_resources((flags.get("args") or {}).get("Resources")), features=GATES_OFF),
    ("tainttoleration", "TestTaintTolerationScore"): lambda args, objs, flags: TaintToleration(),
    ("nodeaffinity", "TestNodeAffinityPriority"):
        lambda args, objs, flags: NodeAffinity(added_affinity=(flags.get("args") or {}).get("AddedAffinity")),
    ("imagelocality", "TestImageLocalityPriority"): lambda args, objs, flags: ImageLocality(),
}


def not_modelled(c: Mapping[str, Any]) -> str | None:
    """Why a case is left out: it needs something the default profile of v1.37 does not have."""
    if c["flags"].get("draObjects"):
        return "resources backed by DRA (DRAExtendedResource) among the scored resources"
    if c["flags"].get("enableTaintTolerationComparisonOps"):
        return "TaintTolerationComparisonOperators (alpha, off in v1.37)"
    return None


def _cases() -> list[Any]:
    return [pytest.param(fixture, c, id=f"{fixture}/{case_id(c)}")
            for fixture, test in PLUGINS for c in load(fixture) if c["test"] == test and not not_modelled(c)]


@pytest.mark.parametrize(("fixture", "case"), _cases())
def test_upstream_case(fixture: str, case: Mapping[str, Any]) -> None:
    make = PLUGINS[(fixture, case["test"])]
    diffs = replay(case, make, lambda which, state: None, lambda which, recorded: None)
    assert not diffs, "\n".join(diffs)


def test_every_score_table_is_here() -> None:
    counts = {key: sum(1 for c in load(key[0]) if c["test"] == key[1]) for key in PLUGINS}
    left_out = [(c["test"], c["name"]) for key in PLUGINS for c in load(key[0])
                if c["test"] == key[1] and not_modelled(c)]
    assert len(left_out) == 4
    assert counts == {
        ("noderesources-score", "TestLeastAllocatedScoringStrategy"): 16,
        ("noderesources-score", "TestNodeResourcesBalancedAllocation"): 11,
        ("tainttoleration", "TestTaintTolerationScore"): 7,
        ("nodeaffinity", "TestNodeAffinityPriority"): 9,
        ("imagelocality", "TestImageLocalityPriority"): 9,
    }

