"""The parser's short cuts for the common shapes give what the long way gives."""

from __future__ import annotations

import pytest

import dractl.model.objects as m
from dractl.model import parse as P


class _Dict(dict):
    """A dictionary that is not a plain dict: the parser takes the long way for it."""


def test_metadata_fields_land_in_their_fields():
    md = {"name": "n", "namespace": "ns", "uid": "u", "generateName": "g-", "labels": {"a": "1"},
          "annotations": {"b": "2"}, "creationTimestamp": "t1", "deletionTimestamp": "t2", "resourceVersion": "7",
          "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "pu", "controller": True}],
          "finalizers": ["f"]}
    assert P._meta(md) == m.ObjectMeta(
        name="n", namespace="ns", uid="u", generate_name="g-", labels={"a": "1"}, annotations={"b": "2"},
        creation_timestamp="t1", deletion_timestamp="t2", resource_version="7",
        owner_references=(m.OwnerReference(api_version="v1", kind="Pod", name="p", uid="pu", controller=True),),
        finalizers=("f",),
    )
    assert P._meta({}, namespaced=True) == m.ObjectMeta(namespace="default")


@pytest.mark.parametrize("result", [
    {"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"},
    {"request": "", "driver": 1, "pool": None, "device": ["x"]},  # unvalidated: taken as they are, both ways
])
def test_a_plain_result_is_the_long_ways(result):
    fast = P._device_result(result, 0)
    assert fast == P._device_result(_Dict(result), 0)
    assert (fast.request, fast.driver, fast.pool, fast.device) == tuple(result.values())


def _one_node(name):
    return {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [name]}]}]}


@pytest.mark.parametrize("selector", [
    _one_node("worker-1"),
    _one_node("1-starts-with-a-digit"),
    _one_node("{"),
    _one_node(""),
    {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["worker-1"]}]}]},
    {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["a", "b"]}]}]},
    {"nodeSelectorTerms": [{"matchExpressions": [{"key": "metadata.name", "operator": "In", "values": ["worker-1"]}]}]},
    {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "other": ["worker-1"]}]}]},
    {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [7]}]}]},
])
def test_an_allocations_node_selector_is_the_long_ways(selector):
    P._ALLOCATION_SELECTORS.clear()
    got = P._allocation_node_selector(selector)
    assert got == P.node_selector(selector)
    assert P._allocation_node_selector(selector) is got  # kept
    # a selector of another shape whose repr could be taken for the node's name is not given its model
    other = _one_node("worker-2")
    assert P._allocation_node_selector(other) == P.node_selector(other)
