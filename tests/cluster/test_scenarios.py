"""dractl against the real kube-scheduler: a fixed-seed sample of tests/cluster/scenarios.py.

Every pod of every scenario must agree: the devices dractl check predicts for the node the scheduler chose
are the devices the scheduler allocated; a pod left Pending gets from dractl the scheduler's own summary line;
an allocation error is the same error. `python tests/cluster/scenarios.py --count 200 --seed S` runs more.
"""

from __future__ import annotations

import os

import scenarios

SEED = int(os.environ.get("DRACTL_SCENARIO_SEED", "20261201"))
COUNT = int(os.environ.get("DRACTL_SCENARIO_COUNT", "20"))


def test_dractl_check_agrees_with_the_real_scheduler(control_plane, tmp_path):
    outcomes = scenarios.run(control_plane.api, SEED, COUNT, control_plane.nodes, tmp_path)
    kinds = {o.what for o in outcomes}
    # the sample covers every kind of decision
    assert {"bound", "pending"} <= kinds, scenarios.report(outcomes)
    assert all(o.agree for o in outcomes), scenarios.report(outcomes)
