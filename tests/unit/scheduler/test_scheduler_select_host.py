"""The score phase and the pick (schedule_one.go prioritizeNodes, selectHost; framework.go RunScorePlugins):
the default profile's weights, the tie set, DynamicResources' prioritized-list score, and dractl's shortcut
(DynamicResources after the scores) giving the same answers as filtering every node first."""

from __future__ import annotations

import random
from typing import Any

import pytest
from builders import (
    claim_spec,
    device_class,
    example_gpu_slice,
    from_template,
    namespace,
    node,
    pod,
    request,
    template,
)

from dractl.control.plane import ControlPlane
from dractl.control.whatif import check
from dractl.model.cluster import cluster_from
from dractl.model.parse import parse_object
from dractl.scheduler.schedule_one import SchedulingPass, num_feasible_nodes_to_find

NS = "s"


def objects(*dicts: Any) -> list[Any]:
    return [parse_object(d, validate=False) for d in dicts]


def with_requests(p: dict, requests: dict[str, str]) -> dict:
    p["spec"]["containers"][0].setdefault("resources", {})["requests"] = requests
    return p


# schedule_one_test.go TestNumFeasibleNodesToFind (the cases without a configured percentage, and with 40)
@pytest.mark.parametrize(("nodes", "percentage", "want"), [
    (10, 0, 10), (10, 40, 10), (1000, 0, 420), (1000, 40, 400), (6000, 0, 300), (6000, 40, 2400)])
def test_num_feasible_nodes_to_find_is_upstreams(nodes: int, percentage: int, want: int) -> None:
    assert num_feasible_nodes_to_find(nodes, percentage) == want


def three_nodes() -> list[Any]:
    return objects(
        device_class(),
        *(example_gpu_slice(node=f"n{i}", n=1) for i in range(3)),
        *(node(f"n{i}", allocatable={"cpu": c, "memory": "32Gi", "pods": "110"})
          for i, c in enumerate(["8", "16", "16"])),
    )


def test_the_roomier_nodes_tie_and_the_first_by_name_is_taken() -> None:
    p = with_requests(pod("p", NS, [from_template("gpu")]), {"cpu": "2", "memory": "1Gi"})
    (out,) = check(cluster_from(three_nodes()), objects(namespace(NS), template("gpu", NS), p)).pods
    assert (out.outcome, out.node, out.tied_nodes) == ("scheduled", "n1", ["n1", "n2"])
    # LeastAllocated: cpu (8000-2000)*100/8000 = 75, memory 31*100/32 = 96, mean 85; on n1 87 and 96: 91.
    # Balanced: 50 + (50 + 89 - 100)/2 = 69 on n0 (cpu 1/4, memory 1/32), 72 on n1. No taints: 100 x 3.
    assert out.scores["n0"] == {"TaintToleration": 300, "NodeResourcesFit": 85, "DynamicResources": 0,
                                "NodeResourcesBalancedAllocation": 69, "ImageLocality": 0, "total": 454}
    assert out.scores["n1"]["total"] == out.scores["n2"]["total"] == 463


def test_one_feasible_node_is_taken_without_scores() -> None:
    p = pod("p", NS, [from_template("gpu")], node_selector={"kubernetes.io/hostname": "n2"})
    cluster = cluster_from(objects(
        device_class(), *(example_gpu_slice(node=f"n{i}", n=1) for i in range(3)),
        *(node(f"n{i}", {"kubernetes.io/hostname": f"n{i}"}) for i in range(3))))
    (out,) = check(cluster, objects(namespace(NS), template("gpu", NS), p)).pods
    assert (out.node, out.tied_nodes, out.scores) == ("n2", ["n2"], {})


def test_prefer_no_schedule_taints_and_preferred_affinity_move_the_pick() -> None:
    nodes = objects(
        node("a", {"zone": "z1"}, taints=[{"key": "k", "value": "v", "effect": "PreferNoSchedule"}]),
        node("b", {"zone": "z1"}),
        node("c", {"zone": "z2"}),
    )
    p = pod("p", NS)
    (out,) = check(cluster_from(nodes), objects(namespace(NS), p)).pods
    assert (out.node, out.tied_nodes) == ("b", ["b", "c"])
    assert out.scores["a"]["TaintToleration"] == 0 and out.scores["b"]["TaintToleration"] == 300
    p["spec"]["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 5, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z2"]}]}}]}}
    (out,) = check(cluster_from(nodes), objects(namespace(NS), p)).pods
    assert (out.node, out.tied_nodes) == ("c", ["c"])
    assert out.scores["c"]["NodeAffinity"] == 200 and out.scores["b"]["NodeAffinity"] == 0


BIG = "device.capacity['gpu.example.com'].memory.compareTo(quantity('80Gi')) >= 0"


def first_available_template() -> dict:
    """A prioritized list: a GPU with 80Gi first, then any GPU."""
    spec = claim_spec([{"name": "gpu", "firstAvailable": [
        {"name": "big", "deviceClassName": "gpu.example.com",
         "selectors": [{"cel": {"expression": BIG}}]},
        {"name": "any", "deviceClassName": "gpu.example.com"}]}])
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": "gpu", "namespace": NS}, "spec": {"spec": spec}}


def test_dynamic_resources_scores_the_first_available_subrequest() -> None:
    # n0 only has a 40Gi GPU (the second choice), n1 an 80Gi one: DynamicResources scores 8 - 0 against
    # 8 - 1, normalized 100 and 87, times 2.
    cluster = cluster_from(objects(
        device_class(), example_gpu_slice(node="n0", n=1, memory="40Gi"), example_gpu_slice(node="n1", n=1),
        node("n0"), node("n1")))
    (out,) = check(cluster, objects(namespace(NS), first_available_template(),
                                    pod("p", NS, [from_template("gpu")]))).pods
    assert (out.node, out.tied_nodes) == ("n1", ["n1"])
    assert (out.scores["n0"]["DynamicResources"], out.scores["n1"]["DynamicResources"]) == (174, 200)
    assert out.claims[0].allocation is not None
    assert out.claims[0].allocation.results[0].request == "gpu/big"


def random_file(rng: random.Random) -> tuple[list[Any], list[Any]]:
    nodes = []
    for i in range(rng.randint(2, 6)):
        taints = [{"key": "t", "value": "x", "effect": "PreferNoSchedule"}] if rng.random() < 0.3 else []
        nodes.append(node(f"n{i}", {"zone": rng.choice(["z1", "z2"]), "kubernetes.io/hostname": f"n{i}"},
                          allocatable={"cpu": str(rng.choice([4, 8, 16])), "memory": f"{rng.choice([8, 16, 32])}Gi",
                                       "pods": "110"}, **({"taints": taints} if taints else {})))
    cluster = [device_class(), *(example_gpu_slice(node=n["metadata"]["name"], n=rng.randint(0, 3),
                                                   memory=rng.choice(["40Gi", "80Gi"])) for n in nodes), *nodes]
    file: list[Any] = [namespace(NS), template("gpu", NS, [request("gpu", count=rng.randint(1, 2))]),
                       first_available_template() | {"metadata": {"name": "pref", "namespace": NS}}]
    for j in range(rng.randint(3, 10)):
        claims = [from_template(rng.choice(["gpu", "pref"]))] if rng.random() < 0.8 else []
        p = with_requests(pod(f"p{j}", NS, claims), {"cpu": str(rng.randint(1, 4)),
                                                                   "memory": f"{rng.randint(1, 8)}Gi"})
        p["metadata"]["labels"] = {"app": rng.choice(["a", "b"])}
        r = rng.random()
        if r < 0.2:
            p["spec"]["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "zone",
                                                       "whenUnsatisfiable": "ScheduleAnyway",
                                                       "labelSelector": {"matchLabels": {"app": "a"}}}]
        elif r < 0.35:
            p["spec"]["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": rng.randint(1, 10),
                 "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z1"]}]}}]}}
        elif r < 0.45:
            p["spec"]["affinity"] = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 10, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname",
                                                   "labelSelector": {"matchLabels": {"app": "a"}}}}]}}
        file.append(p)
    return objects(*cluster), objects(*file)


def bindings(cluster_objs: list[Any], file: list[Any], lazily: bool, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(SchedulingPass, "score_lazily", lazily)
    plane = ControlPlane.of(cluster_from(cluster_objs), random_names=False)
    plane.apply(file, None)
    plane.reconcile()
    c = plane.cluster()
    return ({p.name: p.node_name for p in c.pods},
            {c_.name: [(r.pool, r.device) for r in c_.allocation.results] if c_.allocation else None
             for c_ in c.claims})


@pytest.mark.parametrize("seed", range(40))
def test_scoring_after_dynamic_resources_or_before_binds_the_same(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    cluster_objs, file = random_file(rng)
    full = bindings(cluster_objs, file, False, monkeypatch)
    assert any(full[0].values())  # something was scheduled
    assert bindings(cluster_objs, file, True, monkeypatch) == full


def test_system_default_spreading_needs_the_pods_owner_and_moves_the_pick() -> None:
    """A pod of a ReplicaSet is spread from its siblings by the system default constraints (hostname maxSkew 3,
    zone maxSkew 5, ScheduleAnyway: plugins/podtopologyspread), which dractl can apply once it knows the
    ReplicaSet's selector (helper.DefaultSelector)."""
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web-1", "namespace": NS},
          "spec": {"selector": {"matchLabels": {"app": "web"}}}}

    def web(name: str, node_name: str | None = None) -> dict:
        p = with_requests(pod(name, NS), {"cpu": "100m"})
        p["metadata"]["labels"] = {"app": "web"}
        p["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-1",
                                             "uid": "u1", "controller": True}]
        if node_name:
            p["spec"]["nodeName"] = node_name
            p["status"] = {"phase": "Running"}
        return p

    filler = with_requests(pod("filler", NS), {"cpu": "2"})
    filler["spec"]["nodeName"], filler["status"] = "n0", {"phase": "Running"}
    base = [namespace(NS), *(node(f"n{i}", {"kubernetes.io/hostname": f"n{i}"},
                                  allocatable={"cpu": "4", "memory": "8Gi", "pods": "110"}) for i in range(2)),
            filler, web("w1", "n1"), web("w2", "n1"), web("w3", "n1")]
    (out,) = check(cluster_from(objects(*base)), objects(web("new"))).pods
    assert (out.node, "PodTopologySpread" in out.scores["n0"]) == ("n1", False)  # the emptier node, no spreading
    (out,) = check(cluster_from(objects(*base, rs)), objects(web("new"))).pods
    assert (out.node, out.scores["n0"]["PodTopologySpread"], out.scores["n1"]["PodTopologySpread"]) == ("n0", 200, 66)
