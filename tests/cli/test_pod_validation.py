"""Pods the apiserver would refuse as invalid (pkg/apis/core/validation): one line naming the file, the
object and the field, exit 2, nothing written, for `check -f` and `fake apply` alike."""

from __future__ import annotations

import os
from typing import Any

import pytest
from builders import claim, from_claim, pod, write_docs


def _ctr(**resources: Any) -> dict[str, Any]:
    return {"name": "c", "image": "x", "resources": resources}


def _pod(**spec: Any) -> dict[str, Any]:
    return pod("p", **spec)


CASES = {
    "quantity-does-not-parse": (
        _pod(containers=[_ctr(requests={"cpu": "1 core"})]),
        "spec.containers[0].resources.requests[cpu]: Invalid value: \"1 core\": quantities must match the regular "
        "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
    "negative-request": (
        _pod(containers=[_ctr(requests={"memory": "-1Gi"})]),
        "spec.containers[0].resources.requests[memory]: Invalid value: \"-1Gi\": must be greater than or equal to 0"),
    "request-above-limit": (
        _pod(containers=[_ctr(requests={"cpu": "8"}, limits={"cpu": "4"})]),
        "spec.containers[0].resources.requests: Invalid value: \"8\": must be less than or equal to cpu limit of 4"),
    "init-request-above-limit": (
        _pod(initContainers=[_ctr(requests={"memory": "2Gi"}, limits={"memory": "1Gi"})],
             containers=[_ctr()]),
        "spec.initContainers[0].resources.requests: Invalid value: \"2Gi\": must be less than or equal to memory "
        "limit of 1Gi"),
    "fractional-extended-resource": (
        _pod(containers=[_ctr(requests={"example.com/gpu": "500m"}, limits={"example.com/gpu": "500m"})]),
        "spec.containers[0].resources.limits[example.com/gpu]: Invalid value: \"500m\": must be an integer"),
    "extended-resource-request-without-limit": (
        _pod(containers=[_ctr(requests={"example.com/gpu": "1"})]),
        "spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources"),
    "extended-resource-request-not-limit": (
        _pod(containers=[_ctr(requests={"example.com/gpu": "1"}, limits={"example.com/gpu": "2"})]),
        "spec.containers[0].resources.requests: Invalid value: \"1\": must be equal to example.com/gpu limit of 2"),
    "unknown-resource-name": (
        _pod(containers=[_ctr(requests={"gpu": "1"})]),
        "spec.containers[0].resources.requests[gpu]: Invalid value: \"gpu\": must be a standard resource type or "
        "fully qualified"),
    "port-out-of-range": (
        _pod(containers=[{"name": "c", "image": "x", "ports": [{"containerPort": 70000}]}]),
        "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive"),
    "host-port-out-of-range": (
        _pod(containers=[{"name": "c", "image": "x", "ports": [{"containerPort": 80, "hostPort": -1}]}]),
        "spec.containers[0].ports[0].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive"),
    "host-port-twice": (
        _pod(containers=[{"name": "c", "image": "x", "ports": [{"containerPort": 80, "hostPort": 8080}]},
                         {"name": "d", "image": "x", "ports": [{"containerPort": 81, "hostPort": 8080}]}]),
        "spec.containers[1].ports[0].hostPort: Duplicate value: \"TCP//8080\""),
    "affinity-term-without-topology-key": (
        _pod(affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "x"}}}]}}),
        "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: "
        "can not be empty"),
    "affinity-bad-operator": (
        _pod(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "zone", "operator": "Equals", "values": ["a"]}]}]}}}),
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
        ".matchExpressions[0].operator: Invalid value: \"Equals\": not a valid selector operator"),
    "affinity-value-not-a-string": (
        _pod(affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 1, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": [3]}]}}]}}),
        "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference"
        ".matchExpressions[0].values[0]: Invalid value: \"integer\": must be a string"),
    "affinity-selector-value-not-a-string": (
        _pod(affinity={"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": "zone", "labelSelector": {"matchExpressions": [
                {"key": "app", "operator": "In", "values": [True]}]}}]}}),
        "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector"
        ".matchExpressions[0].values[0]: Invalid value: \"boolean\": must be a string"),
    "affinity-no-terms": (
        _pod(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}}),
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: "
        "must have at least one node selector term"),
    "preferred-weight": (
        _pod(affinity={"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 0, "podAffinityTerm": {"topologyKey": "zone"}}]}}),
        "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: "
        "must be in the range 1-100"),
    "spread-max-skew": (
        _pod(topologySpreadConstraints=[{"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]),
        "spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero"),
    "spread-action": (
        _pod(topologySpreadConstraints=[{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "Never"}]),
        "spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: \"Never\": supported values: "
        "\"DoNotSchedule\", \"ScheduleAnyway\""),
    "spread-twice": (
        _pod(topologySpreadConstraints=[{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"},
                                        {"maxSkew": 2, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]),
        "spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "
        "\"{zone, DoNotSchedule}\""),
    "spread-min-domains": (
        _pod(topologySpreadConstraints=[{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
                                         "minDomains": 2}]),
        "spec.topologySpreadConstraints[0].minDomains: Invalid value: 2: can only use minDomains if "
        "whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway"),
    "toleration-operator": (
        _pod(tolerations=[{"key": "k", "operator": "Lt", "value": "3"}]),
        "spec.tolerations[0].operator: Unsupported value: \"Lt\": supported values: \"Equal\", \"Exists\", \"Lt\", "
        "\"Gt\""),
    "request-a-list": (
        _pod(containers=[_ctr(requests={"cpu": [1]})]),
        "spec.containers[0].resources.requests[cpu]: Invalid value: \"list\": must be a quantity"),
    "limit-a-map": (
        _pod(containers=[_ctr(limits={"memory": {"a": 1}})]),
        "spec.containers[0].resources.limits[memory]: Invalid value: \"object\": must be a quantity"),
    "init-request-a-list": (
        _pod(initContainers=[_ctr(requests={"cpu": [1]})], containers=[{"name": "d", "image": "x"}]),
        "spec.initContainers[0].resources.requests[cpu]: Invalid value: \"list\": must be a quantity"),
    "pod-level-request-a-map": (
        _pod(resources={"requests": {"cpu": {"a": 1}}}),
        "spec.resources.requests[cpu]: Invalid value: \"object\": must be a quantity"),
    "container-name-a-list": (
        _pod(containers=[{"name": ["c"], "image": "x"}]),
        "spec.containers[0].name: Invalid value: \"list\": must be a string"),
    "container-name-a-map": (
        _pod(containers=[{"name": {"a": 1}, "image": "x"}]),
        "spec.containers[0].name: Invalid value: \"object\": must be a string"),
    "container-name-an-int": (
        _pod(containers=[{"name": 3, "image": "x"}]),
        "spec.containers[0].name: Invalid value: \"integer\": must be a string"),
    "container-image-a-map": (
        _pod(containers=[{"name": "c", "image": {"a": 1}}]),
        "spec.containers[0].image: Invalid value: \"object\": must be a string"),
    "no-containers": (
        {**_pod(), "spec": {}},
        "spec.containers: Required value"),
    "empty-containers": (
        _pod(containers=[]),
        "spec.containers: Required value"),
    "pod-level-resource": (
        _pod(resources={"requests": {"ephemeral-storage": "1Gi"}}),
        "spec.resources.requests[ephemeral-storage]: Unsupported value: \"ephemeral-storage\": supported values: "
        "\"cpu\", \"hugepages-\", \"memory\""),
}


def _state_bytes() -> bytes | None:
    p = os.path.join(os.environ["DRACTL_STATE"], "cluster.json")
    return open(p, "rb").read() if os.path.exists(p) else None


@pytest.mark.parametrize("name", sorted(CASES))
def test_invalid_pod_is_bad_input(dractl, tmp_path, name):
    obj, field_error = CASES[name]
    assert dractl("fake", "reset").code == 0
    before = _state_bytes()
    f = write_docs(tmp_path / "pod.yaml", obj)
    for args in (("check", "-f", f), ("fake", "apply", "-f", f)):
        r = dractl(*args)
        assert r.code == 2, (args, r.err)
        assert r.out == ""
        assert r.err == f"error: {f}: Pod default/p: {field_error}\n"
    assert _state_bytes() == before


def _pending(status: Any = None, **metadata: Any) -> dict[str, Any]:
    """A pending pod that uses claim c1 (so ``claims --explain`` and ``pods --explain`` schedule it)."""
    p = pod("p", claims=[from_claim("c1")])
    p["metadata"].update(metadata)
    if status is not None:
        p["status"] = status
    return p


SNAPSHOT_CASES = {
    "status-a-string": (_pending("Running"),
                        "Pod default/p: status: Invalid value: \"string\": must be an object"),
    "phase-an-int": (_pending({"phase": 3}),
                     "Pod default/p: status.phase: Invalid value: \"integer\": must be a string"),
    "phase-a-list": (_pending({"phase": ["Running"]}),
                     "Pod default/p: status.phase: Invalid value: \"list\": must be a string"),
    "claim-status-name-a-list": (
        _pending({"resourceClaimStatuses": [{"name": ["gpu"], "resourceClaimName": "c1"}]}),
        "Pod default/p: status.resourceClaimStatuses[0].name: Invalid value: \"list\": must be a string"),
    "claim-status-claim-name-an-int": (
        _pending({"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": 5}]}),
        "Pod default/p: status.resourceClaimStatuses[0].resourceClaimName: Invalid value: \"integer\": "
        "must be a string"),
    "claim-status-claim-name-a-map": (
        _pending({"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": {"a": 1}}]}),
        "Pod default/p: status.resourceClaimStatuses[0].resourceClaimName: Invalid value: \"object\": "
        "must be a string"),
    "pod-uid-a-list": (_pending(uid=[1]), "Pod default/p: metadata.uid: Invalid value: \"list\": must be a string"),
    "pod-uid-a-map": (_pending(uid={"a": 1}),
                      "Pod default/p: metadata.uid: Invalid value: \"object\": must be a string"),
    "pod-uid-an-int": (_pending(uid=12345),
                       "Pod default/p: metadata.uid: Invalid value: \"integer\": must be a string"),
    "request-a-list": (
        pod("p", containers=[_ctr(requests={"cpu": [1]})]),
        "Pod default/p: spec.containers[0].resources.requests[cpu]: Invalid value: \"list\": must be a quantity"),
}

#: commands that read a snapshot (each crashed on one of the cases)
SNAPSHOT_COMMANDS = (("pods",), ("pods", "--explain"), ("claims", "--explain"), ("claims",), ("devices",))


@pytest.mark.parametrize("name", sorted(SNAPSHOT_CASES))
def test_wrong_types_in_a_pod_are_bad_input(dractl, tmp_path, name):
    bad, field_error = SNAPSHOT_CASES[name]
    f = write_docs(tmp_path / "snap.yaml", bad, claim("c1"))
    for args in SNAPSHOT_COMMANDS:
        r = dractl("--from", f, *args)
        assert (r.code, r.out, r.err) == (2, "", f"error: {f}: {field_error}\n"), args
    assert dractl("fake", "reset").code == 0
    before = _state_bytes()
    for args in (("check", "-f", f), ("fake", "apply", "-f", f), ("fake", "delete", "-f", f)):
        r = dractl(*args)
        assert (r.code, r.out, r.err) == (2, "", f"error: {f}: {field_error}\n"), args
    assert _state_bytes() == before


@pytest.mark.parametrize("field", ["uid", "creationTimestamp"])
@pytest.mark.parametrize("value", [7, [1], {"a": 1}, True])
def test_a_claim_uid_or_creation_timestamp_that_is_not_a_string_is_bad_input(dractl, tmp_path, field, value):
    c = claim("c1")
    c["metadata"][field] = value
    f = write_docs(tmp_path / "snap.yaml", c)
    kind = {bool: "boolean", int: "integer", list: "list", dict: "object"}[type(value)]
    r = dractl("--from", f, "claims")
    assert (r.code, r.out) == (2, "")
    detail = f'Invalid value: "{kind}": must be a string'
    assert r.err == f"error: {f}: ResourceClaim default/c1: metadata.{field}: {detail}\n"


def test_numbers_stay_valid_quantities(dractl, tmp_path):
    """``cpu: 1`` and ``memory: 1.5`` are quantities in Kubernetes YAML."""
    p = pod("p", containers=[_ctr(requests={"cpu": 1, "memory": 1.5}, limits={"cpu": 2})])
    f = write_docs(tmp_path / "pod.yaml", p)
    r = dractl("--from", f, "pods")
    assert r.code == 0, r.err
    assert r.err == ""
    r = dractl("check", "-f", f)
    assert r.code == 0, r.err


def test_a_generated_name_is_judged_as_the_apiserver_makes_it(dractl, tmp_path):
    """generateName "a_-" passes its masked check ("aa"), but the name the apiserver makes from it ("a_-" and five
    random characters) does not: the error is the name's (the real apiserver: metadata.name, a random suffix)."""
    f = tmp_path / "p.yaml"
    f.write_text("apiVersion: v1\nkind: Pod\nmetadata: {generateName: 'a_-', namespace: default}\nspec:\n"
                 "  containers: [{name: c, image: busybox}]\n")
    r = dractl("check", "-f", str(f))
    assert r.code == 2
    assert 'metadata.name: Invalid value: "a_-<5 random characters>": a lowercase RFC 1123 subdomain' in r.err
