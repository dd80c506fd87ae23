"""A namespaced object without a namespace is in "default" once parsed; a cluster-scoped one has none."""

from __future__ import annotations

import pytest
from builders import claim, device_class, namespace, node, pod, template

from dractl.model.parse import KINDS, parse_object


@pytest.mark.parametrize("obj", [claim("c", ns=None), template("t", ns=None), pod("p", None)],
                         ids=lambda o: o["kind"])
def test_a_namespaced_object_without_one_is_in_default(obj):
    assert parse_object(obj).namespace == "default"
    assert parse_object({**obj, "metadata": {**obj["metadata"], "namespace": "team"}}).namespace == "team"
    assert "namespace" not in parse_object(obj).raw["metadata"]  # the object as read is kept as it was


@pytest.mark.parametrize("obj", [device_class("gpu"), node("n1"), namespace("team")], ids=lambda o: o["kind"])
def test_a_cluster_scoped_object_has_no_namespace(obj):
    assert parse_object(obj).meta.namespace == ""


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_follows_its_scope(kind):
    group, namespaced = KINDS[kind]
    raw = {"apiVersion": f"{group}/v1" if group else "v1", "kind": kind, "metadata": {"name": "x"}}
    assert parse_object(raw, validate=False).meta.namespace == ("default" if namespaced else "")


def test_an_event_about_an_object_without_a_namespace_names_default():
    raw = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e"}, "reason": "FailedScheduling",
           "involvedObject": {"kind": "Pod", "name": "p"}}
    e = parse_object(raw, validate=False)
    assert (e.namespace, e.involved_namespace) == ("default", "default")
    raw["involvedObject"]["namespace"] = "team"
    assert parse_object(raw, validate=False).involved_namespace == "team"
