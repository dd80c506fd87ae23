"""The one scheduler node loop (dractl.control.scheduler): kube-scheduler's words and order."""

from __future__ import annotations

from builders import claim, device_class, example_gpu_slice, from_claim, node, write_docs
from test_allocator_demos import NS, demo_pod

from dractl.allocator import Allocator
from dractl.control.plane import ControlPlane
from dractl.control.scheduler import NO_NODES, fit_error, place
from dractl.control.whatif import check
from dractl.model.cluster import Cluster, cluster_from
from dractl.model.parse import parse_object


def objects(*dicts):
    return [parse_object(d, validate=False) for d in dicts]


def test_fit_error_sorts_the_histogram_as_strings_like_upstream():
    # pkg/scheduler/framework/types.go: "%v %v" entries, sort.Strings, joined with ", "
    assert fit_error(12, {"resourceclaim not available on the node": 2, "cannot allocate all claims": 10}) == (
        "0/12 nodes are available: 10 cannot allocate all claims, 2 resourceclaim not available on the node."
    )


def test_claim_allocated_elsewhere_and_full_node_are_counted_apart():
    """Three nodes with one GPU each; "shared" holds n1's GPU. A pod using "shared" and a new
    claim: n1 has no GPU left for the new claim, n2 and n3 cannot see "shared"."""
    base = cluster_from(
        objects(
            device_class(),
            *(example_gpu_slice(node=f"n{i}", n=1) for i in (1, 2, 3)),
            *(node(f"n{i}") for i in (1, 2, 3)),
            claim("shared", NS),
        )
    )
    plane = ControlPlane.of(base)
    plane.apply(objects(demo_pod("first", from_claim("shared"))), None)
    plane.reconcile()
    c = plane.cluster()
    shared = c.claim("dra-demo", "shared")
    assert shared is not None and shared.allocation is not None
    p = place(Allocator(c), c.node_names, [shared, *objects(claim("more", NS))])
    assert (p.outcome, p.node) == ("unschedulable", None)
    assert p.reasons == {
        "n1": "cannot allocate all claims",
        "n2": "resourceclaim not available on the node",
        "n3": "resourceclaim not available on the node",
    }
    assert p.message == (
        "0/3 nodes are available: 1 cannot allocate all claims, 2 resourceclaim not available on the node."
    )
    # the same pod through check: the same sentence
    second = demo_pod("second", from_claim("shared"))
    second["spec"]["resourceClaims"].append({"name": "more", "resourceClaimName": "more"})
    (out,) = check(c, objects(claim("more", NS), second)).pods
    # with DefaultPreemption's tail, as the pod's condition says it
    assert (out.outcome, out.message) == ("unschedulable", f"{p.message} preemption: 0/3 nodes are available: "
                                                           "3 Preemption is not helpful for scheduling.")


def test_no_nodes_is_upstreams_message():
    c = Cluster(classes=objects(device_class()))
    rep = check(c, objects(claim("want", NS)))
    assert rep.pods[0].outcome == "unschedulable"
    assert rep.pods[0].message == NO_NODES == "no nodes available to schedule pods"


def test_no_nodes_from_a_snapshot(dractl, tmp_path):
    snap = write_docs(tmp_path / "classes.yaml", device_class())
    want = write_docs(tmp_path / "want.yaml", claim("want"))
    r = dractl("--from", snap, "check", "-f", want)
    assert r.code == 1
    assert r.out == "unschedulable: the claims cannot be allocated on any node\nno nodes available to schedule pods\n"
