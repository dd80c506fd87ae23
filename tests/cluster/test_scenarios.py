"""dractl against the real kube-scheduler: fixed-seed samples of tests/cluster/scenarios.py.

DRA-only scenarios (two GPU nodes, pinned and unpinned pods): every pod of every scenario must agree: the devices
dractl check predicts for the node the scheduler chose are the devices the scheduler allocated; a pod left
Pending gets from dractl the scheduler's own summary line; an allocation error is the same error.
`python tests/cluster/scenarios.py --count 200 --seed S` runs more.

Realistic scenarios (tests/cluster/realistic.py: each with 2-4 nodes of its own, cpu/memory, extended resources,
taints, affinity, spread, LimitRanges, quotas, priorities): every pod gets dractl's verdict (refused at admission
with the apiserver's words, scheduled, unschedulable, preempting), the scheduler's message and its `preemption:`
tail, the scheduler's node among the nodes dractl scores highest (its tie set), the victims preemption evicts,
and on the scheduler's node the scheduler's devices. Only `pick` (which node of a tie) is not judged: upstream
breaks ties at random. `python tests/cluster/scenarios.py --realistic --count 40 --judge all` runs more.
"""

from __future__ import annotations

import os

import pytest
import realistic
import scenarios
from conftest import start_control_plane, stop_control_plane

SEED = int(os.environ.get("DRACTL_SCENARIO_SEED", "20261201"))
COUNT = int(os.environ.get("DRACTL_SCENARIO_COUNT", "20"))
REAL_SEED = int(os.environ.get("DRACTL_REALISTIC_SEED", "11"))
REAL_COUNT = int(os.environ.get("DRACTL_REALISTIC_COUNT", "10"))
REAL_JUDGE = os.environ.get("DRACTL_REALISTIC_JUDGE", "verdict,message,devices,tail,tied,preemption")


def test_dractl_check_agrees_with_the_real_scheduler(control_plane, tmp_path):
    outcomes = scenarios.run(control_plane.api, SEED, COUNT, control_plane.nodes, tmp_path)
    kinds = {o.what for o in outcomes}
    # the sample covers every kind of decision
    assert {"bound", "pending"} <= kinds, scenarios.report(outcomes)
    assert all(o.agree for o in outcomes), scenarios.report(outcomes)


@pytest.fixture(scope="module")
def nodeless_control_plane(tmp_path_factory):
    """A real control plane without nodes: each realistic scenario brings its own and deletes them."""
    d = tmp_path_factory.mktemp("nodeless-control-plane")
    cp = start_control_plane(d, "--nodes", "0")
    try:
        yield cp
    finally:
        stop_control_plane(d)


def test_realistic_pods_agree_with_the_real_scheduler(nodeless_control_plane, tmp_path):
    cp = nodeless_control_plane
    judged = realistic.judged_aspects(REAL_JUDGE)
    outcomes = realistic.run(cp.api, REAL_SEED, REAL_COUNT, tmp_path, cp.kubeconfig)
    # the sample covers admission, binding, preemption and pending pods
    assert {"refused", "bound", "preempted", "pending"} <= {o.what for o in outcomes}, \
        realistic.report(outcomes, judged)
    assert all(o.agree(judged) for o in outcomes), realistic.report(outcomes, judged)
