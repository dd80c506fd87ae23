"""Upstream's InterPodAffinity test tables (filtering_test.go, scoring_test.go of kube-scheduler v1.37.2),
replayed through dractl's plugin: every case's statuses, cycle states and scores as upstream's plugin gave them
(see scheduler_upstream.py). Upstream runs its filtering tables with InterPodAffinityHostnameFastPath on and
off; the gate is alpha and off in v1.37, and the recording keeps the runs with it off."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from scheduler_upstream import case_id, load, replay

from dractl.scheduler.affinityterms import AffinityTerm
from dractl.scheduler.framework import CycleState
from dractl.scheduler.plugins import interpodaffinity as ipa

CASES = load("interpodaffinity")
# A resize-deferred pod (InPlacePodVerticalScalingSchedulerPreemption, alpha, off) is not modelled.
NOT_PORTED = {"TestInterPodAffinity_DeferredResizeSkipped"}
PORTED = [c for c in CASES if c["test"] not in NOT_PORTED]


def make_plugin(
    args: Mapping[str, Any], objs: list[Mapping[str, Any]], flags: Mapping[str, Any]
) -> ipa.InterPodAffinity:
    return ipa.InterPodAffinity(
        hard_pod_affinity_weight=int(args.get("HardPodAffinityWeight") or 0),
        ignore_preferred_terms_of_existing_pods=bool(args.get("IgnorePreferredTermsOfExistingPods")),
    )


def _ns(n: str) -> str:
    return n or "default"


def _term(t: Any) -> tuple:
    if isinstance(t, AffinityTerm):
        return (tuple(sorted(t.namespaces)), str(t.selector), t.selector.nothing,
                str(t.namespace_selector), t.namespace_selector.empty(), t.topology_key)
    sel, nss = t["Selector"], t["NamespaceSelector"]
    return (tuple(sorted({_ns(n) for n in t["Namespaces"] or ()})), sel["selector"],
            not sel["empty"] and sel["selector"] == "" and sel.get("nothing", True),
            nss["selector"], nss["empty"], t["TopologyKey"])


def _counts(m: Mapping[Any, int] | None) -> dict[tuple[str, str], int]:
    out = {}
    for k, v in (m or {}).items():
        out[tuple(k.split("\x00")) if isinstance(k, str) else k] = v
    return out


def dractl_state(which: str, state: CycleState) -> Any:
    if which == "prefilter":
        s = state.data.get("PreFilterInterPodAffinity")
        if s is None:
            return None
        return {
            "existing": _counts(s.existing_anti_affinity_counts),
            "affinity": _counts(s.affinity_counts),
            "anti": _counts(s.anti_affinity_counts),
            "affinity_terms": [_term(t) for t in s.affinity_terms],
            "anti_terms": [_term(t) for t in s.anti_affinity_terms],
            "ns_labels": dict(s.namespace_labels or {}),
        }
    s = state.data.get("PreScoreInterPodAffinity")
    return None if s is None else {"topology_score": s.topology_score}


def go_state(which: str, d: Any) -> Any:
    if d is None:
        return None
    if which == "prefilter":
        return {
            "existing": _counts(d["existingClusterWideAntiAffinityCounts"]),
            "affinity": _counts(d["clusterWideAffinityCounts"]),
            "anti": _counts(d["clusterWideAntiAffinityCounts"]),
            "affinity_terms": [_term(t) for t in d["clusterWideAffinityTerms"] or ()],
            "anti_terms": [_term(t) for t in d["clusterWideAntiAffinityTerms"] or ()],
            "ns_labels": dict(d["namespaceLabels"] or {}),
        }
    return {"topology_score": d["topologyScore"] or {}}


def test_every_upstream_case_is_here() -> None:
    counts: dict[str, int] = {}
    for c in CASES:
        counts[c["test"]] = counts.get(c["test"], 0) + 1
    assert counts == {
        "TestRequiredAffinitySingleNode": 26, "TestRequiredAffinityMultipleNodes": 20, "TestPreFilterDisabled": 1,
        "TestPreFilterStateAddRemovePod": 4, "TestGetTPMapMatchingIncomingAffinityAntiAffinity": 8,
        "TestInterPodAffinity_DeferredResizeSkipped": 1, "TestRemovePodHostScopedAffinityCount": 1,
        "TestMultipleAffinityTermsRequireSingleMatchingPod": 1, "TestFastTrackInterPodAffinity": 1,
        "TestPreferredAffinity": 28, "TestPreferredAffinityWithHardPodAffinitySymmetricWeight": 5,
    }


@pytest.mark.parametrize("case", PORTED, ids=case_id)
def test_upstream_case(case: Mapping[str, Any]) -> None:
    diffs = replay(case, make_plugin, dractl_state, go_state)
    assert not diffs, "\n".join(diffs)
