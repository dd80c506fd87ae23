"""The devices a node sees: the allocator's cached views equal upstream's GatherPools over every slice.

Slices without a node name (``allNodes``, a node selector on labels or on the node's name) are filtered per
combination of the values their selectors read (``Allocator._shared_for``); what each node sees must be what
gather_pools finds when it is given every slice.
"""

from __future__ import annotations

from dractl.allocator import Allocator
from dractl.allocator.pools import gather_pools
from dractl.model.cluster import Cluster
from dractl.model.parse import parse_object


def _slice(name: str, spec: dict) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": {"driver": "net.example.com", "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": f"{name}-dev"}], **spec}}


def _selector(*terms: dict) -> dict:
    return {"nodeSelector": {"nodeSelectorTerms": list(terms)}}


def _node(name: str, labels: dict) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}}


def test_each_node_sees_what_gather_pools_finds_over_every_slice() -> None:
    slices = [
        _slice("everywhere", {"allNodes": True}),
        _slice("rack-a", _selector({"matchExpressions": [{"key": "rack", "operator": "In", "values": ["a"]}]})),
        _slice("not-rack-a", _selector({"matchExpressions": [{"key": "rack", "operator": "NotIn", "values": ["a"]}]})),
        _slice("zone-or-n3", _selector(
            {"matchExpressions": [{"key": "zone", "operator": "Exists"}]},
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n3"]}]})),
        _slice("big", _selector({"matchExpressions": [{"key": "size", "operator": "Gt", "values": ["4"]}]})),
        _slice("empty-term", _selector({})),
        _slice("own", {"nodeName": "n1"}),
    ]
    nodes = [_node("n7", {"rack": "b"}),  # n3's labels, another name: seen first
             _node("n1", {"rack": "a"}), _node("n2", {"rack": "a", "zone": "z"}), _node("n3", {"rack": "b"}),
             _node("n4", {"size": "8"}), _node("n5", {"rack": "b", "size": "2"}), _node("n6", {})]
    cluster = Cluster(slices=[parse_object(s, validate=False) for s in slices],
                      nodes=[parse_object(n, validate=False) for n in nodes])
    a = Allocator(cluster)
    seen = {}
    for n in cluster.nodes:
        for _ in range(2):  # the second time from the cache
            got = [c.key[2] for c in a.node_view(n.name).devices]
            want = [c.key[2] for c in gather_pools(n.name, n.labels, list(cluster.slices), list(cluster.slices),
                                                   True).devices]
            assert got == want, n.name
        seen[n.name] = got
    assert seen["n1"] == ["everywhere-dev", "own-dev", "rack-a-dev"]
    assert seen["n3"] == ["everywhere-dev", "not-rack-a-dev", "zone-or-n3-dev"]
    assert seen["n4"] == ["big-dev", "everywhere-dev", "not-rack-a-dev"]
    assert seen["n7"] == ["everywhere-dev", "not-rack-a-dev"]
